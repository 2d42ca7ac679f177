// Which searches a pass must run again after the live graph was patched (live-graph.ts). The searches go
// from the roots of one side (best-paths.ts: the targets, or the starts when fewer); a root's pairs can
// change only when
//  - one of its current routes uses an edge that was removed or repriced (any direction), or
//  - an edge became cheaper (or new) and could join a start to it: for a target t, the edge's head reaches
//    t and its tail is reached from some start (mirrored when searching from the starts).
// Every other root keeps its pairs, scores and routes exactly: its distances to every node of its routes
// and every tight hop along them are untouched (an edge dearer off its routes stays not tight; a cheaper
// edge it cannot reach through changes no distance it reads). Reachability here ignores hop prices, which
// only widens the set.
import { comparePairs, reachable, type PairPath, type SearchSide } from './best-paths.js';
import type { CompiledCore } from './compiled-graph.js';

export function affectedRoots(
  g: CompiledCore,
  side: SearchSide,
  change: { cheaper: readonly number[]; dearer: readonly number[] },
  previous: readonly PairPath[],
): Int32Array {
  return scopedRoots(g, side, rootsOnChangedRoutes(g.edgeCount, side, change, previous), change.cheaper);
}

/**
 * The first half of affectedRoots, which reads only the previous routes (cheap: the gate runs it on the
 * main thread): the roots one of whose routes uses a changed edge.
 */
export function rootsOnChangedRoutes(
  edgeCount: number,
  side: SearchSide,
  change: { cheaper: readonly number[]; dearer: readonly number[] },
  previous: readonly PairPath[],
): Int32Array {
  const changed = new Uint8Array(edgeCount);
  for (const k of change.cheaper) changed[k] = 1;
  for (const k of change.dearer) changed[k] = 1;
  const hit = new Set<number>();
  for (const p of previous) {
    const root = side === 'targets' ? p.target : p.start;
    if (hit.has(root)) continue;
    for (let i = 0; i < p.edges.length; i++) {
      if (changed[p.edges[i]] === 1) {
        hit.add(root);
        break;
      }
    }
  }
  return Int32Array.from(hit);
}

/**
 * The second half, which walks the whole graph (the gate runs it where the search runs): `onChanged` and
 * the roots a cheaper edge can join to the other side, in the order of the side's roots.
 */
export function scopedRoots(
  g: CompiledCore,
  side: SearchSide,
  onChanged: ArrayLike<number>,
  cheaper: ArrayLike<number>,
): Int32Array {
  const n = g.nodeCount;
  const roots = side === 'targets' ? g.targets : g.starts;
  const hit = new Uint8Array(n);
  for (let i = 0; i < onChanged.length; i++) hit[onChanged[i]] = 1;
  if (cheaper.length > 0) {
    const seeds: number[] = [];
    if (side === 'targets') {
      const fromStarts = reachable(n, g.starts, g.fStart, g.fEnd, g.fTo, null);
      for (let i = 0; i < cheaper.length; i++) {
        const k = cheaper[i];
        if (fromStarts[g.edgeFrom[k]] === 1) seeds.push(g.edgeTo[k]);
      }
      const ahead = reachable(n, Int32Array.from(seeds), g.fStart, g.fEnd, g.fTo, null);
      for (const t of roots) if (ahead[t] === 1) hit[t] = 1;
    } else {
      const toTargets = reachable(n, g.targets, g.rStart, g.rEnd, g.rFrom, null);
      for (let i = 0; i < cheaper.length; i++) {
        const k = cheaper[i];
        if (toTargets[g.edgeTo[k]] === 1) seeds.push(g.edgeFrom[k]);
      }
      const behind = reachable(n, Int32Array.from(seeds), g.rStart, g.rEnd, g.rFrom, null);
      for (const s of roots) if (behind[s] === 1) hit[s] = 1;
    }
  }
  return roots.filter((r) => hit[r] === 1);
}

/**
 * The pairs of a patched graph: those of the roots searched again (`searched`, from `roots`) and, for every
 * other root, its pairs as `previous` had them. Sorted as a full search sorts them.
 */
export function mergeScoped(
  previous: readonly PairPath[],
  searched: PairPath[],
  roots: Int32Array,
  side: SearchSide,
  nodeCount: number,
): PairPath[] {
  const again = new Uint8Array(nodeCount);
  for (const r of roots) again[r] = 1;
  const kept = previous.filter((p) => again[side === 'targets' ? p.target : p.start] === 0);
  return kept.concat(searched).sort(comparePairs);
}
