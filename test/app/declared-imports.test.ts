// Every package the code imports is declared in package.json: the service's own code (src/, app/, bin/)
// only from `dependencies` (what `npm ci --omit=dev` installs), the Action (bundled by ncc), tests,
// benchmarks and scripts from either. A package that arrives only as another's dependency can vanish
// with that package's next release.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  engines: { node: string };
};
const builtins = new Set(builtinModules);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') yield* sources(rel);
    } else if (/\.(ts|js|mjs)$/.test(entry.name)) yield rel;
  }
}

/** The packages a file imports: static imports and exports, dynamic import(), require(). */
export function importedPackages(text: string): string[] {
  const out = new Set<string>();
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    // A package name, not text that only looks like an import (inside a string or a comment).
    if (!builtins.has(name) && /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/.test(name)) out.add(name);
  }
  return [...out];
}

describe('declared imports', () => {
  it('finds the packages of every import form, and none of node: or relative ones', () => {
    expect(
      importedPackages(
        "import a from 'fastify';\nimport { b } from '@octokit/webhooks';\nexport * from 'pino/file';\nconst c = await import('pg');\nimport './x.js';\nimport fs from 'node:fs';\nimport os from 'os';\nimport type { D } from 'graphql';",
      ).sort(),
    ).toEqual(['@octokit/webhooks', 'fastify', 'graphql', 'pg', 'pino']);
  });

  it('every package src/, app/ and bin/ import is a dependency; tests, benches and scripts may use devDependencies', () => {
    const missing: string[] = [];
    for (const dir of ['src', 'app', 'bin', 'test', 'bench', 'scripts']) {
      for (const file of sources(dir)) {
        const runtime = ['src', 'app', 'bin'].includes(dir) && !file.startsWith(path.join('app', 'action'));
        const declared = runtime ? pkg.dependencies : { ...pkg.dependencies, ...pkg.devDependencies };
        for (const name of importedPackages(readFileSync(path.join(root, file), 'utf8')))
          if (!(name in declared) && name !== 'pathgate')
            missing.push(
              `${file}: ${name} (not in ${runtime ? 'dependencies' : 'dependencies or devDependencies'})`,
            );
      }
    }
    expect(missing).toEqual([]);
  });
});

/** Whether Node `version` meets an engines range: the `>=`, `^` and exact bounds packages write. */
function nodeSatisfies(version: string, range: string): boolean {
  const num = (v: string) =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((x) => Number.parseInt(x, 10) || 0);
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const have = num(version);
  return range.split('||').some((alternative) =>
    alternative
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .trim()
      .split(/\s+/)
      .filter((part) => part && part !== '*' && part !== 'x')
      .every((part) => {
        const [, op, v] = /^(>=|<=|>|<|\^|~|=)?\s*(.+)$/.exec(part)!;
        const want = num(v);
        const c = cmp(have, want);
        if (op === '>=') return c >= 0;
        if (op === '>') return c > 0;
        if (op === '<') return c < 0;
        if (op === '<=') return c <= 0;
        if (op === '^') return c >= 0 && have[0] === want[0];
        if (op === '~') return c >= 0 && have[0] === want[0] && have[1] === want[1];
        return v.split('.').every((x, i) => x === 'x' || x === '*' || Number(x) === have[i]);
      }),
  );
}

describe('engines', () => {
  it('every installed package runs on the oldest Node package.json allows (no EBADENGINE on npm ci)', () => {
    const oldest = /^>=\s*(\d+\.\d+(\.\d+)?)$/.exec(pkg.engines.node)![1];
    expect(nodeSatisfies('20.19.0', '>=22')).toBe(false);
    expect(nodeSatisfies('20.19.0', '^18 || ^20 || >=22')).toBe(true);
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const needNewer = Object.entries(lock.packages)
      .filter(([name, info]) => name && info.engines?.node && !nodeSatisfies(oldest, info.engines.node))
      .map(([name, info]) => `${name}@${info.version} needs node ${info.engines!.node}`);
    expect(needNewer).toEqual([]);
  });
});
