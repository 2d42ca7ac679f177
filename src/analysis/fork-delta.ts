// A fork of a live graph as a search takes it to another thread (live-graph.ts forkDelta, path-worker.ts):
// the live arrays, read only, and every fork's writes on them; and the exact-length views of the copy the
// search makes of it, as a fresh compile hands its arrays over.
import type { CompiledCore } from './compiled-graph.js';
import type { Layer, NumArray } from './cow-arrays.js';

/** A fork as a search takes it: the live arrays (shared, read only) and the forks' writes on them. */
export interface ForkDelta {
  base: Record<string, NumArray>;
  /** From the fork nearest the live graph to this one. */
  layers: Layer[];
  nodeCount: number;
  edgeCount: number;
  fTail: number;
  rTail: number;
  starts: Int32Array;
  targets: Int32Array;
  directAccess: Int32Array;
}

/** The arrays of a compiled core and their lengths in a fork: what its copy holds (coreViews reads them). */
export function coreLengths(
  d: Pick<ForkDelta, 'nodeCount' | 'edgeCount' | 'fTail' | 'rTail'>,
): Record<string, number> {
  const lengths: Record<string, number> = {};
  for (const name of ['labels', 'fStart', 'fEnd', 'rStart', 'rEnd']) lengths[name] = d.nodeCount;
  for (const name of ['edgeFrom', 'edgeTo', 'edgeType', 'edgeP', 'edgeBasis']) lengths[name] = d.edgeCount;
  for (const name of ['fEdges', 'fTo', 'fUnits']) lengths[name] = d.fTail;
  for (const name of ['rEdges', 'rFrom', 'rUnits']) lengths[name] = d.rTail;
  return lengths;
}

/** Exact-length views of a fork's copy, as a fresh compile hands them over (publish does the same). */
export function coreViews(
  arrays: Readonly<Record<string, NumArray>>,
  d: Pick<ForkDelta, 'nodeCount' | 'edgeCount' | 'fTail' | 'rTail' | 'starts' | 'targets' | 'directAccess'>,
): CompiledCore {
  const n = d.nodeCount;
  const m = d.edgeCount;
  const i32 = (name: string, length: number) => (arrays[name] as Int32Array).subarray(0, length);
  const f64 = (name: string, length: number) => (arrays[name] as Float64Array).subarray(0, length);
  const u8 = (name: string, length: number) => (arrays[name] as Uint8Array).subarray(0, length);
  return {
    nodeCount: n,
    edgeCount: m,
    labels: u8('labels', n),
    fStart: i32('fStart', n),
    fEnd: i32('fEnd', n),
    rStart: i32('rStart', n),
    rEnd: i32('rEnd', n),
    edgeFrom: i32('edgeFrom', m),
    edgeTo: i32('edgeTo', m),
    edgeType: u8('edgeType', m),
    edgeP: f64('edgeP', m),
    edgeBasis: u8('edgeBasis', m),
    fEdges: i32('fEdges', d.fTail),
    fTo: i32('fTo', d.fTail),
    fUnits: f64('fUnits', d.fTail),
    rEdges: i32('rEdges', d.rTail),
    rFrom: i32('rFrom', d.rTail),
    rUnits: f64('rUnits', d.rTail),
    starts: d.starts,
    targets: d.targets,
    directAccess: d.directAccess,
  };
}
