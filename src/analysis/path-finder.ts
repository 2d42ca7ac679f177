// Runs the best-path search over a compiled graph, in-process (threads ≤ 1) or on a persistent pool of
// worker threads that read the graph's SharedArrayBuffers in place and share out the roots between them.
// Results are sorted the same way in every mode, so they do not depend on the thread count.
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../workers/module-worker.js';
import { bestPaths, comparePairs, planSearch, searchSide, type PairPath } from './best-paths.js';
import { toShared, type CompiledGraph } from './compiled-graph.js';
import {
  runPatchedJob,
  WORKER_ROLE,
  unpackPaths,
  type PatchedJob,
  type PatchedResult,
  type PathJob,
  type PathReply,
} from './path-worker.js';

export interface PathFinder {
  /**
   * Best paths of every connected pair, or with `roots` only of the pairs of those nodes of the searched
   * side (searchSide(g)): a pass that knows which roots a change can affect searches only those.
   */
  find(g: CompiledGraph, roots?: Int32Array): Promise<PairPath[]>;
  /**
   * A gate fork's search, on one worker thread (in-process for small graphs or one thread): its copy, the
   * roots to search and their pairs. `copied` is called once the copy is made (the live graph may move on).
   */
  findPatched(job: Omit<PatchedJob, 'id' | 'kind'>, copied: () => void): Promise<PatchedResult>;
  /** Terminates the workers; finds still running reject. */
  close(): Promise<void>;
}

export interface PathFinderOptions {
  threads: number;
  /** Graphs with fewer edges are searched in-process: a thread hop costs more than it saves. Default 20,000. */
  inlineBelowEdges?: number;
  /** Per-worker V8 limits (a worker that exceeds them fails its find). */
  resourceLimits?: ResourceLimits;
}

interface Pending {
  resolve: (reply: Extract<PathReply, { ok: true }>) => void;
  reject: (error: Error) => void;
  copied?: () => void;
}

interface PooledWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** Compiled, the worker is path-worker.js; under TypeScript (tests, tsx) path-worker.ts through tsx. */
function spawnWorker(resourceLimits: ResourceLimits | undefined): Worker {
  return spawnModuleWorker(new URL('./path-worker.js', import.meta.url), {
    workerData: { role: WORKER_ROLE },
    resourceLimits,
    caller: import.meta.url,
  });
}

export function createPathFinder(options: PathFinderOptions): PathFinder {
  const threads = Math.max(1, Math.floor(options.threads) || 1);
  const inlineBelow = options.inlineBelowEdges ?? 20_000;
  let closed = false;
  const closedError = () => new Error('analysis/path-finder: closed');
  if (threads === 1) {
    return {
      find: async (g, roots) => {
        if (closed) throw closedError();
        return bestPaths(g, roots);
      },
      findPatched: async (job, copied) => {
        if (closed) throw closedError();
        return runPatchedJob(job, copied);
      },
      close: async () => {
        closed = true;
      },
    };
  }

  let pool: PooledWorker[] = [];
  let nextJob = 1;

  const fail = (entry: PooledWorker, error: Error) => {
    pool = pool.filter((w) => w !== entry);
    const pending = [...entry.pending.values()];
    entry.pending.clear();
    for (const p of pending) p.reject(error);
  };

  const start = (): PooledWorker => {
    const entry: PooledWorker = { worker: spawnWorker(options.resourceLimits), pending: new Map() };
    const { worker } = entry;
    worker.unref();
    worker.on('message', (reply: PathReply) => {
      const p = entry.pending.get(reply.id);
      if (!p) return;
      if ('copied' in reply) {
        p.copied?.();
        return;
      }
      entry.pending.delete(reply.id);
      if (entry.pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply);
      else p.reject(new Error(`analysis/path-finder: search failed in a worker: ${reply.message}`));
    });
    worker.on('error', (error) => {
      fail(entry, new Error(`analysis/path-finder: worker crashed: ${error.message}`, { cause: error }));
    });
    worker.on('messageerror', (error) => {
      fail(entry, new Error(`analysis/path-finder: worker message unreadable: ${error.message}`));
      void worker.terminate();
    });
    worker.on('exit', (code) => {
      fail(
        entry,
        closed ? closedError() : new Error(`analysis/path-finder: worker exited with code ${code}`),
      );
    });
    return entry;
  };

  const post = (entry: PooledWorker, job: PathJob | PatchedJob, copied?: () => void) =>
    new Promise<Extract<PathReply, { ok: true }>>((resolve, reject) => {
      try {
        entry.worker.postMessage(job);
      } catch (error) {
        reject(new Error(`analysis/path-finder: cannot send a job: ${(error as Error).message}`));
        return;
      }
      entry.pending.set(job.id, { resolve, reject, copied });
      // Held only while a job runs, so an idle pool never keeps the process alive.
      entry.worker.ref();
    });

  return {
    async find(g, only) {
      if (closed) throw closedError();
      const side = searchSide(g);
      const roots = only ?? (side === 'targets' ? g.targets : g.starts);
      if (roots.length === 0) return [];
      if (roots.length < 2 || g.edgeCount < inlineBelow) return bestPaths(g, roots, side);
      while (pool.length < threads) pool.push(start());
      const graph = toShared(g);
      const plan = planSearch(g, side);
      const next = new Int32Array(new SharedArrayBuffer(4));
      const id = nextJob++;
      // Every worker takes roots from the shared counter until none are left; no more workers than roots.
      const active = pool.slice(0, Math.min(pool.length, roots.length));
      const parts = await Promise.all(active.map((entry) => post(entry, { id, graph, plan, roots, next })));
      return parts.flatMap((reply) => unpackPaths(reply.paths)).sort(comparePairs);
    },
    async findPatched(job, copied) {
      if (closed) throw closedError();
      if (job.delta.edgeCount < inlineBelow) return runPatchedJob(job, copied);
      while (pool.length < threads) pool.push(start());
      // The least busy worker: calls side by side spread over the pool.
      const entry = pool.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const reply = await post(entry, { kind: 'patched', id: nextJob++, ...job }, copied);
      return { arrays: reply.arrays!, roots: reply.roots!, found: unpackPaths(reply.paths) };
    },
    async close() {
      closed = true;
      const all = pool;
      pool = [];
      await Promise.all(all.map((entry) => entry.worker.terminate()));
    },
  };
}
