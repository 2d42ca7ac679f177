// A path-search worker thread. Each job names a compiled graph on SharedArrayBuffers and a shared counter;
// the worker takes roots from the counter until none are left (so threads balance themselves) and posts
// its routes back packed into flat typed arrays, transferred rather than copied.
import { parentPort, workerData } from 'node:worker_threads';
import { bestPaths, PathSearch, type PairPath, type SearchPlan, type SearchSide } from './best-paths.js';
import { fromShared, type SharedCompiledGraph } from './compiled-graph.js';
import { materialize, type NumArray } from './cow-arrays.js';
import { coreLengths, coreViews, type ForkDelta } from './live-graph.js';
import { scopedRoots } from './pass-scope.js';

/** workerData marking a thread started by path-finder.ts (a module importing this one stays inert). */
export const WORKER_ROLE = 'pathgate/path-worker';

export interface PathJob {
  id: number;
  graph: SharedCompiledGraph;
  /** Computed once by the caller and shared by every worker. */
  plan: SearchPlan;
  roots: Int32Array;
  /** Shared: index into `roots` of the next root to search; workers take them with Atomics.add. */
  next: Int32Array;
}

/**
 * A gate fork to search (patched-search.ts): the worker makes its searchable copy (the live arrays with the
 * forks' writes laid over them), says so (`copied`: the live graph may move on), finds the roots to search
 * and searches them, all on this one thread.
 */
export interface PatchedJob {
  kind: 'patched';
  id: number;
  delta: ForkDelta;
  side: SearchSide;
  /**
   * Scoped: the roots whose previous routes use a changed edge (the others that a cheaper edge can reach
   * are added here); null: search every root of the side.
   */
  onChanged: Int32Array | null;
  cheaper: Int32Array;
}

export interface PatchedResult {
  /** The fork's copy (shared): LiveGraph.searchable reads the routes off it. */
  arrays: Record<string, NumArray>;
  roots: Int32Array;
  found: PairPath[];
}

export interface PackedPaths {
  starts: Int32Array<ArrayBuffer>;
  targets: Int32Array<ArrayBuffer>;
  scores: Float64Array<ArrayBuffer>;
  /** Route i's edges are edges[offsets[i] .. offsets[i + 1]). */
  offsets: Int32Array<ArrayBuffer>;
  edges: Int32Array<ArrayBuffer>;
}

export type PathReply =
  | { id: number; ok: true; paths: PackedPaths; arrays?: Record<string, NumArray>; roots?: Int32Array }
  | { id: number; ok: false; message: string }
  | { id: number; copied: true };

export function packPaths(found: PairPath[]): PackedPaths {
  const count = found.length;
  const starts = new Int32Array(count);
  const targets = new Int32Array(count);
  const scores = new Float64Array(count);
  const offsets = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i] + found[i].edges.length;
  const edges = new Int32Array(offsets[count]);
  for (let i = 0; i < count; i++) {
    const p = found[i];
    starts[i] = p.start;
    targets[i] = p.target;
    scores[i] = p.score;
    edges.set(p.edges, offsets[i]);
  }
  return { starts, targets, scores, offsets, edges };
}

export function unpackPaths(packed: PackedPaths): PairPath[] {
  const { starts, targets, scores, offsets, edges } = packed;
  const out = new Array<PairPath>(starts.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      start: starts[i],
      target: targets[i],
      score: scores[i],
      edges: edges.subarray(offsets[i], offsets[i + 1]),
    };
  }
  return out;
}

function runJob(job: PathJob): PairPath[] {
  const search = new PathSearch(fromShared(job.graph), job.plan);
  const out: PairPath[] = [];
  for (;;) {
    const i = Atomics.add(job.next, 0, 1);
    if (i >= job.roots.length) break;
    search.run(job.roots[i], out);
  }
  return out;
}

/** A patched job, wherever it runs (a worker, or in-process for small graphs and one-thread finders). */
export function runPatchedJob(job: Omit<PatchedJob, 'id' | 'kind'>, copied: () => void): PatchedResult {
  const arrays = materialize(job.delta.base, job.delta.layers, coreLengths(job.delta));
  copied();
  const g = coreViews(arrays, job.delta);
  const all = job.side === 'targets' ? g.targets : g.starts;
  const roots = job.onChanged ? scopedRoots(g, job.side, job.onChanged, job.cheaper) : all;
  return { arrays, roots, found: bestPaths(g, roots, job.side) };
}

const port = parentPort;
if (port && (workerData as { role?: unknown } | null)?.role === WORKER_ROLE) {
  port.on('message', (job: PathJob | PatchedJob) => {
    let reply: PathReply;
    try {
      if ('kind' in job) {
        const id = job.id;
        const result = runPatchedJob(job, () => port.postMessage({ id, copied: true }));
        reply = { id, ok: true, paths: packPaths(result.found), arrays: result.arrays, roots: result.roots };
      } else reply = { id: job.id, ok: true, paths: packPaths(runJob(job)) };
    } catch (error) {
      port.postMessage({ id: job.id, ok: false, message: (error as Error).stack ?? String(error) });
      return;
    }
    const { starts, targets, scores, offsets, edges } = reply.paths;
    port.postMessage(reply, [starts.buffer, targets.buffer, scores.buffer, offsets.buffer, edges.buffer]);
  });
}
