// The k best loopless routes to one target (spec "kShortestPaths"): Yen's algorithm on the compiled arrays,
// under the search's integer costs (−ln p in units of 2^-36 nat, compiled-graph.ts), from any starting node.
// Routes are distinct as node sequences (the spec's routes): between two consecutive nodes a route takes
// the best hop, and a spur bans every hop from its spur node to a next node already used, parallel ones too.
// Every spur search is an A* search guided by the exact cost to the target on the whole graph (one reverse
// Dijkstra): banning hops and nodes only makes costs higher, so the guide stays admissible and consistent,
// and a spur search walks little more than the route it finds.
// A target that is itself a starting node is reached only over a hop (spec item 7): it is not a source.
import { hopUnits, type CompiledCore } from './compiled-graph.js';

export interface RankedRoute {
  /** Node indices, start → target. */
  nodes: number[];
  /** Edge indices in attack order. */
  edges: number[];
  /** Product of the hop probabilities. */
  score: number;
  /** Σ ln p, exact where the product underflows. */
  logScore: number;
  /** Sum of the hops' search units (the order routes come out in). */
  units: number;
}

export const MAX_K = 100;

class MinHeap {
  private keys: number[] = [];
  private tie: number[] = [];
  private items: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  push(key: number, tie: number, item: number): void {
    const { keys, items } = this;
    let i = keys.length;
    keys.push(key);
    this.tie.push(tie);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(key, tie, keys[parent], this.tie[parent])) break;
      keys[i] = keys[parent];
      this.tie[i] = this.tie[parent];
      items[i] = items[parent];
      i = parent;
    }
    keys[i] = key;
    this.tie[i] = tie;
    items[i] = item;
  }
  pop(): { key: number; item: number } {
    const { keys, items } = this;
    const top = { key: keys[0], item: items[0] };
    const lastKey = keys.pop()!;
    const lastTie = this.tie.pop()!;
    const lastItem = items.pop()!;
    const size = keys.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && this.less(keys[child + 1], this.tie[child + 1], keys[child], this.tie[child]))
          child++;
        if (!this.less(keys[child], this.tie[child], lastKey, lastTie)) break;
        keys[i] = keys[child];
        this.tie[i] = this.tie[child];
        items[i] = items[child];
        i = child;
      }
      keys[i] = lastKey;
      this.tie[i] = lastTie;
      items[i] = lastItem;
    }
    return top;
  }
  private less(k1: number, t1: number, k2: number, t2: number): boolean {
    return k1 < k2 || (k1 === k2 && t1 < t2);
  }
}

/** Exact search cost from every node to `target` (Infinity where it cannot be reached). */
function costsTo(g: CompiledCore, target: number): Float64Array {
  const dist = new Float64Array(g.nodeCount).fill(Infinity);
  dist[target] = 0;
  const heap = new MinHeap();
  heap.push(0, 0, target);
  while (heap.size) {
    const { key, item: v } = heap.pop();
    if (key > dist[v]) continue;
    for (let r = g.rStart[v], end = g.rEnd[v]; r < end; r++) {
      const nd = key + g.rUnits[r];
      const u = g.rFrom[r];
      if (nd < dist[u]) {
        dist[u] = nd;
        heap.push(nd, 0, u);
      }
    }
  }
  return dist;
}

export function kShortestRoutes(g: CompiledCore, target: number, k: number): RankedRoute[] {
  if (!Number.isInteger(k) || k < 1 || k > MAX_K)
    throw new RangeError(`k must be an integer from 1 to ${MAX_K}, got ${k}`);
  const n = g.nodeCount;
  const h = costsTo(g, target);
  const isStart = new Uint8Array(n);
  const sources: number[] = [];
  for (let i = 0; i < g.starts.length; i++) {
    const s = g.starts[i];
    if (s !== target && isStart[s] === 0 && h[s] !== Infinity) {
      isStart[s] = 1;
      sources.push(s);
    }
  }
  if (!sources.length) return [];

  // Scratch state for the spur searches, reset only where touched.
  const dist = new Float64Array(n).fill(Infinity);
  const via = new Int32Array(n).fill(-1);
  const touched: number[] = [];
  const bannedNode = new Uint8Array(n);
  const ban = new Map<number, Set<number>>();

  /**
   * Best route from `from` (a node, or all allowed sources for -1) to the target, avoiding banned nodes and
   * the banned next nodes of each node; null when there is none.
   */
  const search = (from: number, bannedSources: Set<number> | null): RankedRoute | null => {
    const heap = new MinHeap();
    const seed = (s: number) => {
      dist[s] = 0;
      via[s] = -1;
      touched.push(s);
      heap.push(h[s], s, s);
    };
    if (from >= 0) seed(from);
    else for (const s of sources) if (!bannedSources?.has(s) && !bannedNode[s]) seed(s);
    let found = false;
    while (heap.size) {
      const { key, item: u } = heap.pop();
      const du = dist[u];
      if (key > du + h[u]) continue;
      if (u === target) {
        found = true;
        break;
      }
      const banned = ban.get(u);
      for (let s = g.fStart[u], end = g.fEnd[u]; s < end; s++) {
        const v = g.fTo[s];
        if (bannedNode[v] || h[v] === Infinity || (banned && banned.has(v))) continue;
        const nd = du + g.fUnits[s];
        if (nd < dist[v]) {
          if (dist[v] === Infinity) touched.push(v);
          dist[v] = nd;
          via[v] = g.fEdges[s];
          heap.push(nd + h[v], v, v);
        }
      }
    }
    let route: RankedRoute | null = null;
    if (found) {
      const edges: number[] = [];
      for (let v = target; via[v] >= 0 && v !== from; v = g.edgeFrom[via[v]]) edges.push(via[v]);
      edges.reverse();
      route = assemble(g, edges, edges.length ? g.edgeFrom[edges[0]] : target);
    }
    for (const v of touched) {
      dist[v] = Infinity;
      via[v] = -1;
    }
    touched.length = 0;
    return route;
  };

  const first = search(-1, null);
  if (!first) return [];
  const accepted: RankedRoute[] = [first];
  const seenRoutes = new Set<string>([first.nodes.join(',')]);
  const candidates = new MinHeap();
  const pool: RankedRoute[] = [];
  while (accepted.length < k) {
    const previous = accepted[accepted.length - 1];
    // Spur at position i: the root is previous.nodes[0..i]; i = -1 spurs from the sources themselves.
    for (let i = -1; i < previous.nodes.length - 1; i++) {
      const root = i < 0 ? [] : previous.nodes.slice(0, i + 1);
      const rootEdges = i < 0 ? [] : previous.edges.slice(0, i);
      let bannedSources: Set<number> | null = null;
      if (i < 0) {
        bannedSources = new Set(accepted.map((r) => r.nodes[0]));
      } else {
        const spur = root[i];
        const next = new Set<number>();
        for (const r of accepted)
          if (r.nodes.length > i + 1 && sameStart(r.nodes, root)) next.add(r.nodes[i + 1]);
        ban.set(spur, next);
        for (let j = 0; j < i; j++) bannedNode[root[j]] = 1;
      }
      const spurRoute = search(i < 0 ? -1 : root[i], bannedSources);
      if (i >= 0) {
        ban.delete(root[i]);
        for (let j = 0; j < i; j++) bannedNode[root[j]] = 0;
      }
      if (!spurRoute) continue;
      const route = i < 0 ? spurRoute : assemble(g, [...rootEdges, ...spurRoute.edges], root[0]);
      const key = route.nodes.join(',');
      if (seenRoutes.has(key)) continue;
      seenRoutes.add(key);
      pool.push(route);
      // Equal costs: fewer hops first, then the order found (stable).
      candidates.push(route.units, route.edges.length * 1e6 + pool.length, pool.length - 1);
    }
    if (!candidates.size) break;
    accepted.push(pool[candidates.pop().item]);
  }
  return accepted;
}

function sameStart(nodes: number[], root: number[]): boolean {
  for (let j = 0; j < root.length; j++) if (nodes[j] !== root[j]) return false;
  return true;
}

function assemble(g: CompiledCore, edges: number[], start: number): RankedRoute {
  const nodes = [start];
  let score = 1;
  let logScore = 0;
  let units = 0;
  for (const e of edges) {
    nodes.push(g.edgeTo[e]);
    score *= g.edgeP[e];
    logScore += Math.log(g.edgeP[e]);
    units += hopUnits(g.edgeP[e]);
  }
  return { nodes, edges, score, logScore, units };
}
