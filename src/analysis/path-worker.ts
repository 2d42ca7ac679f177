// A path-finding worker thread: runs bestPaths over its share of the sources on the shared arrays and
// posts the routes back as flat typed arrays (transferred, not copied).
import { parentPort } from 'node:worker_threads';
import { bestPaths, type SearchSide } from './best-paths.js';
import type { CompiledArrays } from './compiled-graph.js';

export interface PathJob {
  id: number;
  graph: CompiledArrays;
  sources: Int32Array;
  side: SearchSide;
}

export interface PathJobResult {
  id: number;
  starts: Int32Array;
  targets: Int32Array;
  scores: Float64Array;
  /** Route i's edges are edges[offsets[i] .. offsets[i + 1]). */
  offsets: Int32Array;
  edges: Int32Array;
}

export function packResults(id: number, found: ReturnType<typeof bestPaths>): PathJobResult {
  const starts = new Int32Array(found.length);
  const targets = new Int32Array(found.length);
  const scores = new Float64Array(found.length);
  const offsets = new Int32Array(found.length + 1);
  for (let i = 0; i < found.length; i++) offsets[i + 1] = offsets[i] + found[i].edges.length;
  const edges = new Int32Array(offsets[found.length]);
  found.forEach((p, i) => {
    starts[i] = p.start;
    targets[i] = p.target;
    scores[i] = p.score;
    edges.set(p.edges, offsets[i]);
  });
  return { id, starts, targets, scores, offsets, edges };
}

parentPort?.on('message', (job: PathJob) => {
  try {
    const result = packResults(job.id, bestPaths(job.graph, job.sources, job.side));
    const buffers = [result.starts, result.targets, result.scores, result.offsets, result.edges].map((a) => a.buffer as ArrayBuffer);
    parentPort!.postMessage({ ok: true, result }, buffers);
  } catch (error) {
    parentPort!.postMessage({ ok: false, id: job.id, message: (error as Error).stack ?? String(error) });
  }
});
