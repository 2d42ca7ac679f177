// A path-search worker thread. Each job names a compiled graph on SharedArrayBuffers and a shared counter;
// the worker takes roots from the counter until none are left (so threads balance themselves) and posts
// its routes back packed into flat typed arrays, transferred rather than copied.
import { parentPort, workerData } from 'node:worker_threads';
import { PathSearch, type PairPath, type SearchPlan } from './best-paths.js';
import { fromShared, type SharedCompiledGraph } from './compiled-graph.js';

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

export interface PackedPaths {
  starts: Int32Array<ArrayBuffer>;
  targets: Int32Array<ArrayBuffer>;
  scores: Float64Array<ArrayBuffer>;
  /** Route i's edges are edges[offsets[i] .. offsets[i + 1]). */
  offsets: Int32Array<ArrayBuffer>;
  edges: Int32Array<ArrayBuffer>;
}

export type PathReply =
  { id: number; ok: true; paths: PackedPaths } | { id: number; ok: false; message: string };

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

const port = parentPort;
if (port && (workerData as { role?: unknown } | null)?.role === WORKER_ROLE) {
  port.on('message', (job: PathJob) => {
    let reply: PathReply;
    try {
      reply = { id: job.id, ok: true, paths: packPaths(runJob(job)) };
    } catch (error) {
      port.postMessage({ id: job.id, ok: false, message: (error as Error).stack ?? String(error) });
      return;
    }
    const { starts, targets, scores, offsets, edges } = reply.paths;
    port.postMessage(reply, [starts.buffer, targets.buffer, scores.buffer, offsets.buffer, edges.buffer]);
  });
}
