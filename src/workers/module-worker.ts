// Starting a worker thread on one of our modules, from compiled JavaScript (build/) or from TypeScript
// (tests, tsx) alike: the path-finding pool and the YAML parsing pool both start theirs here.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Loads a TypeScript entry through tsx's module hooks, registered inside the worker: on Node 20 a Worker's
 * `execArgv: ['--import', 'tsx']` does not apply ESM hooks to the worker's own modules (nodejs/node#47747).
 */
const TS_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx)
  .then((api) => { api.register(); return import(workerData.entry); })
  .catch((error) => setImmediate(() => { throw error; }));
`;

/** tsx's ESM API, located from its package.json so the worker does not depend on the working directory. */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const { exports } = require(manifest) as { exports?: Record<string, { import?: { default?: string } }> };
  return new URL(
    exports?.['./esm/api']?.import?.default ?? './dist/esm/api/index.mjs',
    pathToFileURL(manifest),
  ).href;
}

/**
 * Starts `entry` (the worker module's `.js` URL, beside the caller) on a worker thread; when the caller
 * itself runs as TypeScript, the `.ts` beside it runs through tsx. `workerData` reaches the module as is.
 */
export function spawnModuleWorker(
  entry: URL,
  options: { workerData?: Record<string, unknown>; resourceLimits?: ResourceLimits; caller: string },
): Worker {
  if (!options.caller.endsWith('.ts')) {
    return new Worker(entry, { workerData: options.workerData, resourceLimits: options.resourceLimits });
  }
  const source = new URL(entry.href.replace(/\.js$/, '.ts')).href;
  return new Worker(TS_BOOTSTRAP, {
    eval: true,
    workerData: { ...options.workerData, tsx: tsxApiUrl(), entry: source },
    resourceLimits: options.resourceLimits,
  });
}
