// Best path of every connected (start, target) pair: Dijkstra under cost −ln p from each node of the
// smaller side (from targets it runs on the reversed graph). A search stops as soon as every node of the
// other side is settled. Pure and synchronous; path-finder.ts spreads the sources over threads.
import type { CompiledArrays } from './compiled-graph.js';

export interface PairPath {
  start: number;
  target: number;
  /** Product of the hop probabilities: exp(−cost). */
  score: number;
  /** Edge indices in attack order, start → target. */
  edges: Int32Array;
}

export type SearchSide = 'targets' | 'starts';

/** Searching from the smaller side gives the same pairs and scores for less work. */
export function searchSide(g: CompiledArrays): SearchSide {
  return g.targets.length <= g.starts.length ? 'targets' : 'starts';
}

/** Reusable scratch space for one thread: a search touches only what it reaches and resets only that. */
class Scratch {
  readonly dist: Float64Array;
  readonly settled: Uint8Array;
  readonly via: Int32Array;
  readonly touched: Int32Array;
  heapKey: Float64Array;
  heapNode: Int32Array;

  constructor(n: number) {
    this.dist = new Float64Array(n).fill(Infinity);
    this.settled = new Uint8Array(n);
    this.via = new Int32Array(n).fill(-1);
    this.touched = new Int32Array(n);
    this.heapKey = new Float64Array(Math.max(16, n));
    this.heapNode = new Int32Array(Math.max(16, n));
  }

  grow(): void {
    const key = new Float64Array(this.heapKey.length * 2);
    key.set(this.heapKey);
    const node = new Int32Array(this.heapNode.length * 2);
    node.set(this.heapNode);
    this.heapKey = key;
    this.heapNode = node;
  }
}

/**
 * Runs the searches from `sources` (default: every node of the chosen side) and returns each reached
 * pair's best path. `side` may be forced; by default the smaller side is searched from.
 */
export function bestPaths(g: CompiledArrays, sources?: Int32Array, side: SearchSide = searchSide(g)): PairPath[] {
  const fromTargets = side === 'targets';
  const roots = sources ?? (fromTargets ? g.targets : g.starts);
  const want = fromTargets ? g.isStart : g.isTarget;
  const wantTotal = fromTargets ? g.starts.length : g.targets.length;
  const offsets = fromTargets ? g.rOffsets : g.fOffsets;
  const adj = fromTargets ? g.rAdj : g.fAdj;
  const cost = fromTargets ? g.rCost : g.fCost;
  const edgeOf = fromTargets ? g.rEdge : g.fEdge;
  const s = new Scratch(g.nodeCount);
  const { dist, settled, via, touched } = s;
  const results: PairPath[] = [];
  const reached: number[] = [];

  for (let r = 0; r < roots.length; r++) {
    const root = roots[r];
    let touchedCount = 0;
    let heapSize = 0;
    let remaining = wantTotal - (want[root] ? 1 : 0);
    reached.length = 0;
    dist[root] = 0;
    touched[touchedCount++] = root;
    s.heapKey[0] = 0;
    s.heapNode[0] = root;
    heapSize = 1;

    while (heapSize > 0 && remaining > 0) {
      // Pop the minimum (lazy deletion: stale entries are skipped once settled).
      let heapKey = s.heapKey;
      let heapNode = s.heapNode;
      const d = heapKey[0];
      const u = heapNode[0];
      heapSize--;
      if (heapSize > 0) {
        const lastKey = heapKey[heapSize];
        const lastNode = heapNode[heapSize];
        let i = 0;
        for (;;) {
          let child = 2 * i + 1;
          if (child >= heapSize) break;
          if (child + 1 < heapSize && heapKey[child + 1] < heapKey[child]) child++;
          if (heapKey[child] >= lastKey) break;
          heapKey[i] = heapKey[child];
          heapNode[i] = heapNode[child];
          i = child;
        }
        heapKey[i] = lastKey;
        heapNode[i] = lastNode;
      }
      if (settled[u]) continue;
      settled[u] = 1;
      if (want[u] && u !== root) {
        reached.push(u);
        remaining--;
      }
      for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
        const v = adj[k];
        const nd = d + cost[k];
        if (nd < dist[v]) {
          if (dist[v] === Infinity) touched[touchedCount++] = v;
          dist[v] = nd;
          via[v] = edgeOf[k];
          if (heapSize === heapKey.length) {
            s.grow();
            heapKey = s.heapKey;
            heapNode = s.heapNode;
          }
          // Push and sift up.
          let i = heapSize++;
          while (i > 0) {
            const parent = (i - 1) >> 1;
            if (heapKey[parent] <= nd) break;
            heapKey[i] = heapKey[parent];
            heapNode[i] = heapNode[parent];
            i = parent;
          }
          heapKey[i] = nd;
          heapNode[i] = v;
        }
      }
    }

    for (const other of reached) results.push(extract(g, fromTargets, root, other, dist[other], via));
    for (let t = 0; t < touchedCount; t++) {
      const v = touched[t];
      dist[v] = Infinity;
      settled[v] = 0;
      via[v] = -1;
    }
  }
  return results;
}

/** Follows the search tree from `other` back to `root` and returns the route in attack order. */
function extract(g: CompiledArrays, fromTargets: boolean, root: number, other: number, d: number, via: Int32Array): PairPath {
  const hops: number[] = [];
  let v = other;
  while (v !== root) {
    const e = via[v];
    hops.push(e);
    v = fromTargets ? g.edgeTo[e] : g.edgeFrom[e];
  }
  // From targets the tree points forward (start → target) already; from starts it points back.
  if (!fromTargets) hops.reverse();
  return fromTargets
    ? { start: other, target: root, score: Math.exp(-d), edges: Int32Array.from(hops) }
    : { start: root, target: other, score: Math.exp(-d), edges: Int32Array.from(hops) };
}
