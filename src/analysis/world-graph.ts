// The part of a compiled graph the risk simulation searches (risk-simulation.ts): pruned to the nodes a
// start reaches that reach a target, renumbered in depth-first reverse postorder, each hop keyed by its
// endpoints' ids and type and given its presence threshold. Graph-only: the simulation keeps it per graph.
import type { CompiledCore, CompiledGraph } from './compiled-graph.js';

/** Hop probabilities are drawn at 16-bit resolution (bias under 1/65,536), as the yardstick does. */
export const RESOLUTION = 65536;

// murmur3's 32-bit finalizer: a full-avalanche mix.
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The part of a graph the simulation searches, renumbered densely: only nodes that a start reaches and that
 * reach some target, over hops that can be present (p > 0). A node outside it either is never
 * reached or reaches no target, so leaving it out changes no target's count; and since a hop's masks are a
 * hash of (seed, batch, hop), not a draw from one stream, the worlds are exactly the same ones too: the
 * answer is bit for bit that of a search over the whole graph, for a fraction of the work (on the 100k
 * estate 30,000 of the 83,000 nodes the starts reach). Nodes are numbered in depth-first reverse postorder
 * from the starts, so most hops lead forward and a batch's sweeps (countOn) read the arrays forward.
 */
export interface WorldGraph {
  nodes: number;
  /** Out-hops of compact node u: slots slotStart[u] .. slotStart[u + 1] - 1. */
  slotStart: Int32Array;
  slotTo: Int32Array;
  /**
   * The hop's edge index, its masks' key (hopKey), its probability and that at 16-bit resolution, per
   * slot. A hop of p > 0 whose threshold rounds to 0 is kept (the comonotone part reads it); its masks are
   * empty, as they should be.
   */
  slotEdge: Int32Array;
  slotKey: Int32Array;
  slotP: Float64Array;
  slotThreshold: Uint32Array;
  starts: Int32Array;
  /** Per entry of g.targets: 0 not reachable, 1 ordinary, 2 direct access, 3 a start reached over a hop. */
  targetKind: Uint8Array;
  /** Compact node of each ordinary target; for a starting target, its arriving slots in arrivals[from..to). */
  targetNode: Int32Array;
  arrivalStart: Int32Array;
  arrivals: Int32Array;
  /** The compact node each arriving slot leaves from. */
  arrivalFrom: Int32Array;
}

/**
 * Gives `g` its node keys (CompiledCore.nodeKeys): a hash of each node's id, on a SharedArrayBuffer so a
 * worker thread reads it in place. With them a hop's worlds depend on the hop (its endpoints' ids and its
 * type), not on how the graph was numbered: a fresh compile and the live graph patched pass after pass
 * (live-graph.ts) simulate the same worlds for a seed. Returns `g`.
 */
export function withNodeKeys<G extends CompiledGraph>(g: G): G {
  const keys = new Int32Array(new SharedArrayBuffer(Math.max(1, g.nodeCount) * 4), 0, g.nodeCount);
  for (let i = 0; i < g.nodeCount; i++) {
    // FNV-1a over the id's UTF-16 code units, then a full-avalanche mix.
    const id = g.nodeIds[i] ?? '';
    let h = 0x811c9dc5;
    for (let c = 0; c < id.length; c++) h = Math.imul(h ^ id.charCodeAt(c), 0x01000193);
    keys[i] = fmix32(h);
  }
  g.nodeKeys = keys;
  return g;
}

/**
 * The key of hop `e`: a hash of its endpoints' keys and its type (two hops sharing all three cannot exist).
 * 32 bits: among the 444,301 hops of the 100k estate a few dozen pairs share a key and so their presence,
 * which moves no estimate measurably.
 */
function hopKey(g: CompiledCore, e: number): number {
  const keys = g.nodeKeys;
  const from = keys ? keys[g.edgeFrom[e]] : g.edgeFrom[e];
  const to = keys ? keys[g.edgeTo[e]] : g.edgeTo[e];
  return fmix32((fmix32(from ^ Math.imul(g.edgeType[e] + 1, 0x9e3779b9)) + Math.imul(to, 0x85ebca6b)) | 0);
}

function thresholdOf(p: number): number {
  return p >= 1 ? RESOLUTION : p > 0 ? Math.floor(p * RESOLUTION) : 0;
}

/** `prune: false` keeps every node the starts reach (the search over the whole graph, for tests). */
export function worldGraph(g: CompiledCore, prune = true): WorldGraph {
  const n = g.nodeCount;
  const { fStart, fEnd, fEdges, fTo, rStart, rEnd, rEdges, rFrom, edgeP, starts, targets } = g;
  const stack = new Int32Array(Math.max(1, n));
  // Nodes that reach a target over hops that can be present (every node when not pruning).
  const useful = new Uint8Array(n);
  if (prune) {
    let top = 0;
    for (let i = 0; i < targets.length; i++)
      if (!useful[targets[i]]) {
        useful[targets[i]] = 1;
        stack[top++] = targets[i];
      }
    while (top > 0) {
      const v = stack[--top];
      for (let r = rStart[v], end = rEnd[v]; r < end; r++) {
        const u = rFrom[r];
        if (useful[u] || !(edgeP[rEdges[r]] > 0)) continue;
        useful[u] = 1;
        stack[top++] = u;
      }
    }
  } else useful.fill(1);
  // Of those, the ones the starts reach (a depth-first search over hops that can be present), numbered in
  // reverse postorder: every hop that closes no cycle leads to a higher number, so the batches' sweeps in
  // number order (countOn) take most nodes once.
  const reached = new Uint8Array(n);
  const post = new Int32Array(Math.max(1, n));
  const hopAt = new Int32Array(Math.max(1, n));
  let done = 0;
  let slots = 0;
  for (let i = 0; i < starts.length; i++) {
    const root = starts[i];
    if (!useful[root] || reached[root]) continue;
    reached[root] = 1;
    let top = 0;
    stack[top++] = root;
    hopAt[root] = fStart[root];
    while (top > 0) {
      const u = stack[top - 1];
      const end = fEnd[u];
      let s = hopAt[u];
      for (; s < end; s++) {
        const v = fTo[s];
        if (!useful[v] || !(edgeP[fEdges[s]] > 0)) continue;
        slots++;
        if (reached[v]) continue;
        reached[v] = 1;
        hopAt[u] = s + 1;
        hopAt[v] = fStart[v];
        stack[top++] = v;
        break;
      }
      if (s === end) {
        post[done++] = u;
        top--;
      }
    }
  }
  const count = done;
  const compact = new Int32Array(n).fill(-1);
  const order = stack;
  for (let i = 0; i < count; i++) {
    const u = post[count - 1 - i];
    order[i] = u;
    compact[u] = i;
  }
  const slotStart = new Int32Array(count + 1);
  const slotTo = new Int32Array(Math.max(1, slots));
  const slotEdge = new Int32Array(Math.max(1, slots));
  const slotKey = new Int32Array(Math.max(1, slots));
  const slotThreshold = new Uint32Array(Math.max(1, slots));
  const slotP = new Float64Array(Math.max(1, slots));
  let at = 0;
  for (let c = 0; c < count; c++) {
    slotStart[c] = at;
    const u = order[c];
    for (let s = fStart[u], end = fEnd[u]; s < end; s++) {
      const v = fTo[s];
      const p = edgeP[fEdges[s]];
      if (!useful[v] || !(p > 0)) continue;
      slotTo[at] = compact[v];
      slotEdge[at] = fEdges[s];
      slotKey[at] = hopKey(g, fEdges[s]);
      slotP[at] = p;
      slotThreshold[at] = thresholdOf(p);
      at++;
    }
  }
  slotStart[count] = at;
  const isStart = new Uint8Array(n);
  for (let i = 0; i < starts.length; i++) isStart[starts[i]] = 1;
  const isDirect = new Uint8Array(n);
  for (let i = 0; i < g.directAccess.length; i++) isDirect[g.directAccess[i]] = 1;
  const targetKind = new Uint8Array(targets.length);
  const targetNode = new Int32Array(targets.length).fill(-1);
  const arrivalStart = new Int32Array(targets.length + 1);
  const arrivals: number[] = [];
  const arrivalFrom: number[] = [];
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    arrivalStart[i] = arrivals.length;
    if (isDirect[t]) targetKind[i] = 2;
    else if (isStart[t]) {
      // A starting node that is also a target counts only when a present hop reaches it: the slots of its
      // in-hops from searched nodes (a node outside the search is never reached).
      targetKind[i] = 3;
      const c = compact[t];
      if (c >= 0)
        for (let r = rStart[t], end = rEnd[t]; r < end; r++) {
          const from = compact[rFrom[r]];
          if (from < 0) continue;
          for (let s = slotStart[from], stop = slotStart[from + 1]; s < stop; s++)
            if (slotEdge[s] === rEdges[r]) {
              arrivals.push(s);
              arrivalFrom.push(from);
            }
        }
    } else if (compact[t] >= 0) {
      targetKind[i] = 1;
      targetNode[i] = compact[t];
    }
  }
  arrivalStart[targets.length] = arrivals.length;
  return {
    nodes: count,
    slotStart,
    slotTo,
    slotEdge,
    slotKey,
    slotThreshold,
    slotP,
    starts: Int32Array.from(new Set(Array.from(starts, (v) => compact[v]).filter((c) => c >= 0))),
    targetKind,
    targetNode,
    arrivalStart,
    arrivals: Int32Array.from(arrivals),
    arrivalFrom: Int32Array.from(arrivalFrom),
  };
}
