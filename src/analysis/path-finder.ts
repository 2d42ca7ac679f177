// Runs the best-path search over a compiled graph, in-process (1 thread) or split across a persistent
// pool of worker threads that share the graph's arrays. Results are the same either way.
import { Worker } from 'node:worker_threads';
import { bestPaths, searchSide, type PairPath } from './best-paths.js';
import { arraysOf, type CompiledGraph } from './compiled-graph.js';
import type { PathJob, PathJobResult } from './path-worker.js';

export interface PathFinder {
  find(g: CompiledGraph): Promise<PairPath[]>;
  close(): Promise<void>;
}

type WorkerReply = { ok: true; result: PathJobResult } | { ok: false; id: number; message: string };

function unpack(result: PathJobResult): PairPath[] {
  const out: PairPath[] = new Array<PairPath>(result.starts.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      start: result.starts[i],
      target: result.targets[i],
      score: result.scores[i],
      edges: result.edges.subarray(result.offsets[i], result.offsets[i + 1]),
    };
  }
  return out;
}

/**
 * Starts the worker from compiled JS; when running from TypeScript source (tests), a two-line bootstrap
 * registers tsx inside the worker first, since loader flags in execArgv do not reach worker threads.
 */
function spawnWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./path-worker.js', import.meta.url));
  const entry = JSON.stringify(new URL('./path-worker.ts', import.meta.url).href);
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`;
  return new Worker(bootstrap, { eval: true });
}

export function createPathFinder(options: { threads: number }): PathFinder {
  const threads = Math.max(1, Math.floor(options.threads));
  if (threads === 1) {
    return { find: async (g) => bestPaths(g), close: async () => undefined };
  }
  let workers: Worker[] = [];
  let nextJob = 1;
  let closed = false;

  const run = (worker: Worker, job: PathJob): Promise<PairPath[]> =>
    new Promise((resolve, reject) => {
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (reply: WorkerReply) => {
        const id = reply.ok ? reply.result.id : reply.id;
        if (id !== job.id) return;
        cleanup();
        if (reply.ok) resolve(unpack(reply.result));
        else reject(new Error(`analysis/path-finder: worker failed: ${reply.message}`));
      };
      const onError = (error: Error) => {
        cleanup();
        workers = workers.filter((w) => w !== worker);
        reject(new Error(`analysis/path-finder: worker crashed: ${error.message}`));
      };
      const onExit = (code: number) => {
        cleanup();
        workers = workers.filter((w) => w !== worker);
        reject(new Error(`analysis/path-finder: worker exited with code ${code}`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(job);
    });

  return {
    async find(g) {
      if (closed) throw new Error('analysis/path-finder: closed');
      const side = searchSide(g);
      const roots = side === 'targets' ? g.targets : g.starts;
      // Small searches are not worth a thread hop.
      if (roots.length < 2 || g.edgeCount < 10_000) return bestPaths(g, roots, side);
      while (workers.length < threads) workers.push(spawnWorker());
      // Interleaved shares balance better than halves: neighbouring roots often cost alike.
      const shares = workers.map((_, w) => roots.filter((_root, i) => i % workers.length === w));
      const graph = arraysOf(g);
      const parts = await Promise.all(workers.map((worker, w) => run(worker, { id: nextJob++, graph, sources: Int32Array.from(shares[w]), side })));
      // Restore the order of a single-threaded search, so results do not depend on the thread count.
      const byRoot = new Map<number, PairPath[]>();
      parts.forEach((part) => {
        for (const p of part) {
          const root = side === 'targets' ? p.target : p.start;
          let list = byRoot.get(root);
          if (!list) byRoot.set(root, (list = []));
          list.push(p);
        }
      });
      return Array.from(roots).flatMap((root) => byRoot.get(root) ?? []);
    },
    async close() {
      closed = true;
      const all = workers;
      workers = [];
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}
