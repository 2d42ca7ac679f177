// Best path of every connected (start, target) pair: Dijkstra under integer costs (compiled-graph.ts) from
// each node of the smaller side, on the reversed graph when that side is the targets. A search skips nodes
// no start→target path can use and stops once every node of the other side is settled. Routes are then
// read off the distances canonically (the first tight out-edge at each step, walking from the start), so
// the same pairs, scores and routes come out whichever side is searched and however sources are split.
import type { CompiledCore } from './compiled-graph.js';

export interface PairPath {
  start: number;
  target: number;
  /** Product of the hop probabilities along the route. */
  score: number;
  /** Edge indices in attack order, start → target. */
  edges: Int32Array;
}

export type SearchSide = 'targets' | 'starts';

/** The side to search from: the smaller one (targets on a tie), as the yardstick does. */
export function searchSide(g: CompiledCore): SearchSide {
  return g.targets.length <= g.starts.length ? 'targets' : 'starts';
}

/** The order results are returned in: by start index, then target index. */
export function comparePairs(a: PairPath, b: PairPath): number {
  return a.start - b.start || a.target - b.target;
}

/**
 * What every search over one graph from one side shares (on SharedArrayBuffers, so worker threads can
 * take it as it is): the side, which nodes a search looks for, and the initial distances.
 */
export interface SearchPlan {
  side: SearchSide;
  /** 1 on the nodes of the other side. */
  want: Uint8Array;
  wantCount: number;
  /**
   * Infinity on nodes some start→target path may use (reached from the other side, against the search),
   * NaN elsewhere: `candidate < NaN` is false, so a search never enters them and needs no other check.
   */
  initialDist: Float64Array;
}

export function planSearch(g: CompiledCore, side: SearchSide = searchSide(g)): SearchPlan {
  const n = g.nodeCount;
  const other = side === 'targets' ? g.starts : g.targets;
  const want = new Uint8Array(new SharedArrayBuffer(Math.max(1, n)), 0, n);
  for (let i = 0; i < other.length; i++) want[other[i]] = 1;
  const relevant =
    side === 'targets'
      ? reachable(n, other, g.fStart, g.fEnd, g.fTo, g.fUnits)
      : reachable(n, other, g.rStart, g.rEnd, g.rFrom, g.rUnits);
  const initialDist = new Float64Array(new SharedArrayBuffer(Math.max(1, n) * 8), 0, n);
  for (let v = 0; v < n; v++) initialDist[v] = relevant[v] === 1 ? Infinity : NaN;
  return { side, want, wantCount: other.length, initialDist };
}

/**
 * One thread's search state over one graph and plan: scratch arrays sized once and reset only where a
 * search touched them. `run` may be called for any number of roots of the plan's side.
 */
export class PathSearch {
  private readonly fromTargets: boolean;
  private readonly dist: Float64Array;
  private readonly touched: Int32Array;
  private readonly mark: Uint8Array;
  private readonly found: Int32Array;
  private heapKey: Float64Array;
  private heapNode: Int32Array;
  /** Nodes settled by the searches so far (for benchmarks). */
  settledTotal = 0;

  constructor(
    private readonly g: CompiledCore,
    private readonly plan: SearchPlan,
  ) {
    const n = g.nodeCount;
    this.fromTargets = plan.side === 'targets';
    this.dist = Float64Array.from(plan.initialDist);
    this.touched = new Int32Array(n);
    this.mark = new Uint8Array(this.fromTargets ? 0 : n);
    this.found = new Int32Array(plan.wantCount);
    const capacity = Math.max(64, Math.min(n, 1 << 16));
    this.heapKey = new Float64Array(capacity);
    this.heapNode = new Int32Array(capacity);
  }

  /** Searches from `root` (a node of the chosen side) and appends its pairs' best paths to `out`. */
  run(root: number, out: PairPath[]): void {
    const g = this.g;
    const fromTargets = this.fromTargets;
    const starts = fromTargets ? g.rStart : g.fStart;
    const ends = fromTargets ? g.rEnd : g.fEnd;
    const adj = fromTargets ? g.rFrom : g.fTo;
    const units = fromTargets ? g.rUnits : g.fUnits;
    const { want, wantCount } = this.plan;
    const { dist, touched, found } = this;
    let heapKey = this.heapKey;
    let heapNode = this.heapNode;
    let remaining = wantCount - want[root];
    let foundCount = 0;
    let touchedCount = 0;
    let heapSize = 1;
    let settled = 0;
    const rootInitial = dist[root];
    dist[root] = 0;
    heapKey[0] = 0;
    heapNode[0] = root;

    // Lazy deletion: a node may sit in the heap several times; only the entry matching dist[] counts.
    // (Measured against an indexed decrease-key heap: no faster here, and simpler.)
    while (heapSize > 0 && remaining > 0) {
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
          let childKey = heapKey[child];
          if (child + 1 < heapSize) {
            const rightKey = heapKey[child + 1];
            if (rightKey < childKey) {
              child++;
              childKey = rightKey;
            }
          }
          if (childKey >= lastKey) break;
          heapKey[i] = childKey;
          heapNode[i] = heapNode[child];
          i = child;
        }
        heapKey[i] = lastKey;
        heapNode[i] = lastNode;
      }
      if (d > dist[u]) continue;
      settled++;
      if (want[u] === 1 && u !== root) {
        found[foundCount++] = u;
        remaining--;
      }
      for (let k = starts[u], end = ends[u]; k < end; k++) {
        const v = adj[k];
        const nd = d + units[k];
        const dv = dist[v];
        if (nd < dv) {
          if (dv === Infinity) touched[touchedCount++] = v;
          dist[v] = nd;
          if (heapSize === heapKey.length) {
            heapKey = grow(heapKey, new Float64Array(heapSize * 2));
            heapNode = grow(heapNode, new Int32Array(heapSize * 2));
            this.heapKey = heapKey;
            this.heapNode = heapNode;
          }
          let i = heapSize++;
          while (i > 0) {
            const parent = (i - 1) >> 1;
            const parentKey = heapKey[parent];
            if (parentKey <= nd) break;
            heapKey[i] = parentKey;
            heapNode[i] = heapNode[parent];
            i = parent;
          }
          heapKey[i] = nd;
          heapNode[i] = v;
        }
      }
    }
    this.settledTotal += settled;

    for (let f = 0; f < foundCount; f++) {
      const other = found[f];
      out.push(fromTargets ? this.routeToRoot(other, root) : this.routeFromRoot(root, other));
    }
    // Only nodes that held Infinity are ever touched; the root may have held NaN.
    for (let t = 0; t < touchedCount; t++) dist[touched[t]] = Infinity;
    dist[root] = rootInitial;
  }

  private routeToRoot(start: number, target: number): PairPath {
    return routeToTarget(this.g, this.dist, start, target);
  }

  private routeFromRoot(start: number, target: number): PairPath {
    return routeFromStart(this.g, this.dist, this.mark, start, target);
  }
}

/**
 * dist[] holds costs to `target` (reverse search). Every node with cost below the start's is settled, and
 * costs are integers of at least one unit per hop, so the tight out-edges of each node on the way are
 * exactly the hops of best routes: take the smallest edge index each time. (Exported: the database path
 * finder reads its routes off the distances PostgreSQL computed the same way, src/db/db-path-finder.ts.)
 */
export function routeToTarget(g: CompiledCore, dist: Float64Array, start: number, target: number): PairPath {
  const { fTo, fUnits } = g;
  return walk(g, start, target, 'reverse', (u, s) => fUnits[s] + dist[fTo[s]] === dist[u]);
}

/**
 * Walks from `start` to `target`, taking at each node the first out-edge (in the graph's order of
 * out-edges, fStart..fEnd) that `tight` accepts; `tight` is given the edge's forward slot.
 */
function walk(
  g: CompiledCore,
  start: number,
  target: number,
  direction: string,
  tight: (u: number, slot: number) => boolean,
): PairPath {
  const { edgeTo, edgeP, fStart, fEnd, fEdges } = g;
  const hops: number[] = [];
  let score = 1;
  for (let u = start; u !== target;) {
    let next = -1;
    for (let s = fStart[u], end = fEnd[u]; s < end; s++) {
      if (tight(u, s)) {
        next = fEdges[s];
        break;
      }
    }
    if (next < 0) throw new Error(`analysis/best-paths: broken search tree (${direction})`);
    hops.push(next);
    score *= edgeP[next];
    u = edgeTo[next];
  }
  return { start, target, score, edges: Int32Array.from(hops) };
}

/**
 * dist[] holds costs from `start` (forward search). Marks the nodes with a tight route to the target
 * (walking tight in-edges back from it), then walks forward from the start exactly as routeToTarget does.
 * `mark` is scratch of one byte per node, all 0, left all 0.
 */
export function routeFromStart(
  g: CompiledCore,
  dist: Float64Array,
  mark: Uint8Array,
  start: number,
  target: number,
): PairPath {
  const { fTo, fUnits, rStart, rEnd, rFrom, rUnits } = g;
  const marked: number[] = [target];
  mark[target] = 1;
  for (let s = 0; s < marked.length; s++) {
    const v = marked[s];
    const dv = dist[v];
    for (let r = rStart[v], end = rEnd[v]; r < end; r++) {
      const u = rFrom[r];
      if (mark[u] === 0 && dist[u] + rUnits[r] === dv) {
        mark[u] = 1;
        marked.push(u);
      }
    }
  }
  try {
    return walk(
      g,
      start,
      target,
      'forward',
      (u, s) => mark[fTo[s]] === 1 && dist[u] + fUnits[s] === dist[fTo[s]],
    );
  } finally {
    for (const v of marked) mark[v] = 0;
  }
}

function grow<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Nodes reachable from `seeds` over traversable edges of the given adjacency (breadth-first). */
export function reachable(
  n: number,
  seeds: Int32Array,
  starts: Int32Array,
  ends: Int32Array,
  adj: Int32Array,
  units: Float64Array | null,
): Uint8Array {
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < seeds.length; i++) {
    const s = seeds[i];
    if (seen[s] === 0) {
      seen[s] = 1;
      queue[tail++] = s;
    }
  }
  for (let head = 0; head < tail; head++) {
    const u = queue[head];
    for (let k = starts[u], end = ends[u]; k < end; k++) {
      const v = adj[k];
      // Without units, every edge counts (pass scope asks what any edge can reach).
      if (seen[v] === 0 && (units === null || units[k] !== Infinity)) {
        seen[v] = 1;
        queue[tail++] = v;
      }
    }
  }
  return seen;
}

/**
 * Best paths of all connected (start, target) pairs, sorted by start then target. `sources` restricts the
 * searches to some nodes of the searched side (to split work); `side` forces a side (tests, benchmarks).
 */
export function bestPaths(
  g: CompiledCore,
  sources?: Int32Array,
  side: SearchSide = searchSide(g),
): PairPath[] {
  const roots = sources ?? (side === 'targets' ? g.targets : g.starts);
  const out: PairPath[] = [];
  if (roots.length === 0) return out;
  const search = new PathSearch(g, planSearch(g, side));
  for (let i = 0; i < roots.length; i++) search.run(roots[i], out);
  return out.sort(comparePairs);
}
