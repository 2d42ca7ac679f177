// Monte Carlo risk over the compiled graph (spec "Risk simulation"): in each simulated world every hop is
// present with its probability, independently; a crown jewel is compromised in a world when some starting
// node reaches it over present hops (a target that is itself a starting node only when a hop reaches it; a
// direct-access target always). Worlds are packed 32 to a 32-bit word, WORDS words per node, and reachability
// runs once per batch of 32 × WORDS worlds over bit masks (label-correcting search, as the yardstick's
// mc_bitpar, in sweeps over nodes numbered so most hops lead forward), over only the nodes that reach some
// target (worldGraph). A hop's presence masks are drawn only when the search first needs them.
// Randomness is counter-based: a hop's masks in a batch are a hash of (seed, batch, hop), not a draw from
// one stream, so the same seed gives the same worlds whatever order the search visits hops in, whichever
// nodes it leaves out, and a view with hops cut (edge-view.ts) sees exactly the same worlds minus those
// hops: what-if differences carry no sampling noise of their own (common random numbers). A hop is named
// by its endpoints' ids and its type (withNodeKeys), not by its edge index, so a live graph and a fresh
// compile of the same estate draw the same worlds.
// The attacker-profile mixture (attacker-profiles.ts): with probability `correlation` one skill draw decides
// every hop, and a target then falls exactly when its widest route (the best weakest hop) beats the draw, so
// that part is computed exactly (a bottleneck search) and mixed with the independent worlds.
import { attackerProfiles, type AttackerProfile, type ProfileName } from './attacker-profiles.js';
import type { CompiledCore, CompiledGraph } from './compiled-graph.js';

/** Words of 32 worlds per node in one batch: 2 words, 64 worlds (as the yardstick's 64-bit words). The
 * inner loops are written for exactly two. */
export const WORDS = 2;
const WORLDS_PER_BATCH = 32 * WORDS;
/** Hop probabilities are drawn at 16-bit resolution (bias under 1/65,536), as the yardstick does. */
const RESOLUTION = 65536;
export const MAX_ITERATIONS = 1_000_000;
/** Two-sided 95 % Wilson interval. */
const Z95 = 1.959963984540054;

export interface WorldCounts {
  iterations: number;
  /** Per entry of g.targets: worlds in which it is compromised. */
  targetHits: Float64Array;
  /** Worlds in which at least one target is compromised. */
  anyHits: number;
  /** Nodes the search covered: those a start reaches that reach some target. */
  searched: number;
}

// murmur3's 32-bit finalizer: a full-avalanche mix.
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** 32 worlds' bits of U < t (U uniform on 16 bits, t in 1..65535), drawing bit planes of U from `key`. */
function lessThan(t: number, key: number): number {
  let less = 0;
  let equal = -1;
  for (let b = 15; b >= 0 && equal !== 0; b--) {
    const plane = fmix32((key + Math.imul(b + 1, 0x6d2b79f5)) | 0);
    if ((t >>> b) & 1) {
      less |= equal & ~plane;
      equal &= plane;
    } else equal &= ~plane;
    // Worlds still equal on every plane so far are not below t once t has no 1 bit left.
    if ((t & ((1 << b) - 1)) === 0) break;
  }
  return less >>> 0;
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
interface WorldGraph {
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
function worldGraph(g: CompiledCore, prune = true): WorldGraph {
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

/**
 * Counts, over `iterations` worlds drawn from `seed`, the worlds in which each target (and any target) is
 * compromised. Reads the graph through its adjacency only (fStart..fEnd, rStart..rEnd), so a live graph's
 * edge numbering does not matter. `prune: false` searches every node the starts reach (tests: the answer
 * must be the same).
 */
export function countWorlds(
  g: CompiledCore,
  iterations: number,
  seed: number,
  options: { prune?: boolean } = {},
): WorldCounts {
  return countOn(g, worldGraph(g, options.prune ?? true), iterations, seed);
}

function countOn(g: CompiledCore, w: WorldGraph, iterations: number, seed: number): WorldCounts {
  const n = w.nodes;
  const { slotStart, slotTo, slotKey, slotThreshold, starts, targetKind, targetNode } = w;
  const { arrivalStart, arrivals, arrivalFrom } = w;
  const slots = slotTo.length;
  const reach = new Uint32Array(Math.max(1, n) * WORDS);
  const mask = new Uint32Array(slots * WORDS);
  const stamp = new Uint32Array(slots);
  const dirty = new Uint8Array(Math.max(1, n));
  const targets = g.targets;
  const targetHits = new Float64Array(targets.length);
  let anyHits = 0;
  const seedMix = fmix32((seed >>> 0) ^ 0x5bd1e995) ^ fmix32(Math.floor(seed / 2 ** 32) + 0x27d4eb2f);
  // Each hop's key under this seed, mixed once for all batches (a batch adds its own mix below).
  const slotSeed = new Int32Array(slots);
  for (let s = 0; s < slots; s++) slotSeed[s] = fmix32(slotKey[s] ^ seedMix);
  const all = new Uint32Array(WORDS);
  const acc = new Uint32Array(WORDS);
  const arrived = new Uint32Array(WORDS);

  // The masks of the hop in slot s for this batch: each world's bit set with probability threshold/65,536.
  const sample = (s: number, batch: number) => {
    stamp[s] = batch;
    const t = slotThreshold[s];
    const at = s << 1;
    if (t >= RESOLUTION) {
      mask[at] = 0xffffffff;
      mask[at + 1] = 0xffffffff;
      return;
    }
    // Each world's bit is U < t for a uniform 16-bit U, compared bit plane by bit plane from the most
    // significant: a world is decided at the first plane where U's bit differs from t's, so a word of 32
    // worlds is usually settled after six or seven random planes, not sixteen. Each plane is a
    // full-avalanche hash of (seed, batch, hop, word, plane): the same whatever order hops are visited in.
    const key = fmix32((slotSeed[s] + Math.imul(batch, 0x9e3779b9)) | 0);
    mask[at] = lessThan(t, key);
    mask[at + 1] = lessThan(t, key ^ 0x5851f42d);
  };

  let batch = 0;
  for (let done = 0; done < iterations; done += WORLDS_PER_BATCH) {
    batch++;
    const k = Math.min(WORLDS_PER_BATCH, iterations - done);
    for (let j = 0; j < WORDS; j++) {
      const bits = Math.max(0, Math.min(32, k - 32 * j));
      all[j] = bits === 32 ? 0xffffffff : bits === 0 ? 0 : ((1 << bits) - 1) >>> 0;
    }
    reach.fill(0);
    // Sweeps in number order over the nodes whose reach grew (dirty): a hop to a higher number is taken in
    // the same sweep, one to a lower number (it closes a cycle) in the next, from the lowest such node.
    let lo = n;
    let hi = -1;
    for (let i = 0; i < starts.length; i++) {
      const s = starts[i];
      reach[s << 1] = all[0];
      reach[(s << 1) + 1] = all[1];
      dirty[s] = 1;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    while (lo <= hi) {
      let nextLo = n;
      let nextHi = -1;
      for (let u = lo; u <= hi; u++) {
        if (dirty[u] === 0) continue;
        dirty[u] = 0;
        const uAt = u << 1;
        // reach[u] does not change while u's hops are read (no hop leads from a node to itself).
        const u0 = reach[uAt];
        const u1 = reach[uAt + 1];
        for (let s = slotStart[u], end = slotStart[u + 1]; s < end; s++) {
          const v = slotTo[s];
          const vAt = v << 1;
          const v0 = reach[vAt];
          const v1 = reach[vAt + 1];
          if ((u0 & ~v0) === 0 && (u1 & ~v1) === 0) continue;
          if (stamp[s] !== batch) sample(s, batch);
          const n0 = u0 & ~v0 & mask[s << 1];
          const n1 = u1 & ~v1 & mask[(s << 1) + 1];
          if (n0 === 0 && n1 === 0) continue;
          reach[vAt] = v0 | n0;
          reach[vAt + 1] = v1 | n1;
          if (dirty[v] === 0) {
            dirty[v] = 1;
            if (v > u) {
              if (v > hi) hi = v;
            } else {
              if (v < nextLo) nextLo = v;
              if (v > nextHi) nextHi = v;
            }
          }
        }
      }
      lo = nextLo;
      hi = nextHi;
    }
    for (let j = 0; j < WORDS; j++) acc[j] = 0;
    for (let i = 0; i < targets.length; i++) {
      let hits = 0;
      const kind = targetKind[i];
      if (kind === 2) {
        hits = k;
        for (let j = 0; j < WORDS; j++) acc[j] |= all[j];
      } else if (kind === 1 || kind === 3) {
        if (kind === 1) {
          const at = targetNode[i] << 1;
          for (let j = 0; j < WORDS; j++) arrived[j] = reach[at + j];
        } else {
          arrived.fill(0);
          for (let a = arrivalStart[i], end = arrivalStart[i + 1]; a < end; a++) {
            const s = arrivals[a];
            const fromAt = arrivalFrom[a] << 1;
            if ((reach[fromAt] | reach[fromAt + 1]) === 0) continue;
            if (stamp[s] !== batch) sample(s, batch);
            for (let j = 0; j < WORDS; j++) arrived[j] |= reach[fromAt + j] & mask[(s << 1) + j];
          }
        }
        for (let j = 0; j < WORDS; j++) {
          const word = arrived[j] & all[j];
          hits += popcount32(word);
          acc[j] |= word;
        }
      }
      targetHits[i] += hits;
    }
    for (let j = 0; j < WORDS; j++) anyHits += popcount32(acc[j]);
  }
  return { iterations, targetHits, anyHits, searched: n };
}

/** Two-sided 95 % Wilson score interval of `hits` successes in `n` trials. */
export function wilson(hits: number, n: number, z = Z95): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = hits / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Per entry of g.targets, the probability it falls when one draw U decides every hop (a hop is present when
 * U < p): the best over routes of the route's weakest hop (widest-path search from the starts; a starting
 * target counts only over a hop; a direct-access target is 1).
 */
export function comonotoneTargetRisk(g: CompiledCore): Float64Array {
  return comonotoneOn(g, worldGraph(g));
}

// The widest-path search on the searched part of the graph (worldGraph): a node left out lies on no route
// from a start to a target, so no target's answer changes.
function comonotoneOn(g: CompiledCore, w: WorldGraph): Float64Array {
  const { slotStart, slotTo, slotP } = w;
  const best = new Float64Array(w.nodes);
  const heapKey: number[] = [];
  const heapNode: number[] = [];
  const push = (key: number, node: number) => {
    let i = heapKey.length;
    heapKey.push(key);
    heapNode.push(node);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heapKey[parent] >= key) break;
      heapKey[i] = heapKey[parent];
      heapNode[i] = heapNode[parent];
      i = parent;
    }
    heapKey[i] = key;
    heapNode[i] = node;
  };
  const pop = (): [number, number] => {
    const top: [number, number] = [heapKey[0], heapNode[0]];
    const lastKey = heapKey.pop()!;
    const lastNode = heapNode.pop()!;
    const size = heapKey.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && heapKey[child + 1] > heapKey[child]) child++;
        if (heapKey[child] <= lastKey) break;
        heapKey[i] = heapKey[child];
        heapNode[i] = heapNode[child];
        i = child;
      }
      heapKey[i] = lastKey;
      heapNode[i] = lastNode;
    }
    return top;
  };
  for (let i = 0; i < w.starts.length; i++) {
    best[w.starts[i]] = 1;
    push(1, w.starts[i]);
  }
  while (heapKey.length) {
    const [width, u] = pop();
    if (width < best[u]) continue;
    for (let s = slotStart[u], end = slotStart[u + 1]; s < end; s++) {
      const v = slotTo[s];
      const reached = Math.min(width, slotP[s]);
      if (reached > best[v]) {
        best[v] = reached;
        push(reached, v);
      }
    }
  }
  return Float64Array.from(g.targets, (_t, i) => {
    switch (w.targetKind[i]) {
      case 2:
        return 1;
      case 1:
        return best[w.targetNode[i]];
      case 3: {
        // A starting target falls only over a hop into it.
        let arrival = 0;
        for (let a = w.arrivalStart[i], end = w.arrivalStart[i + 1]; a < end; a++)
          arrival = Math.max(arrival, Math.min(best[w.arrivalFrom[a]], slotP[w.arrivals[a]]));
        return arrival;
      }
      default:
        return 0;
    }
  });
}

export interface CrownJewelRisk {
  /** Node index. */
  node: number;
  compromiseProbability: number;
  ciLow: number;
  ciHigh: number;
  /** The attacker-profile mixture for this target. */
  mixtureCompromiseProbability: number;
}

export interface ProfileRisk {
  profile: ProfileName;
  weight: number;
  correlation: number;
  anyCompromiseProbability: number;
  expectedCompromised: number;
}

export interface RiskSimulation {
  iterations: number;
  seed: number;
  anyCompromiseProbability: number;
  anyCiLow: number;
  anyCiHigh: number;
  /** Expected number of crown jewels compromised. */
  expectedCompromised: number;
  crownJewels: CrownJewelRisk[];
  mixtureCompromiseProbability: number;
  profileCompromise: ProfileRisk[];
}

/** Milliseconds a simulation spent per phase (the bench's breakdown, bench/risk-client.ts). */
export interface RiskPhases {
  /** The searched part of the graph (worldGraph), or 0 when it was cached for the graph. */
  world: number;
  /** The independent worlds (countOn). */
  worlds: number;
  /** The shared-skill part (comonotoneOn). */
  comonotone: number;
  /** Intervals, the mixture and the answer's shape. */
  shape: number;
}

/** What a simulation needs of a graph alone, whatever the seed: its searched part and the shared-skill part. */
interface Prepared {
  world: WorldGraph;
  comonotone: Float64Array;
}

// Kept for the next simulation of the same graph, by the key the caller gives it (analysis-service.ts gives
// one to each graph it hands analyses, which is never written again: a new graph version is a new graph).
// A key, not the graph object: in a worker every job brings new views of the same shared memory. The
// last two graphs only (a 1M-node estate's searched part is tens of MB).
const preparedByKey = new Map<number, Prepared>();
const PREPARED_KEPT = 2;

function keep(key: number, prepared: Prepared): void {
  preparedByKey.set(key, prepared);
  for (const old of preparedByKey.keys()) {
    if (preparedByKey.size <= PREPARED_KEPT) break;
    preparedByKey.delete(old);
  }
}

/**
 * The simulation of `options.iterations` worlds drawn from `options.seed`, with intervals and the attacker
 * mixture. `graphKey` names a graph that never changes (analysis-service.ts): what depends on the graph
 * alone is then kept for the next simulation under the same key. `phases` receives the phases' times.
 */
export function simulateRisk(
  g: CompiledCore,
  options: {
    iterations: number;
    seed: number;
    profiles?: AttackerProfile[];
    phases?: RiskPhases;
    graphKey?: number;
  },
): RiskSimulation {
  const { iterations, seed, phases } = options;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be an integer from 1 to ${MAX_ITERATIONS}, got ${iterations}`);
  let at = performance.now();
  const lap = (phase: keyof RiskPhases) => {
    const now = performance.now();
    if (phases) phases[phase] = now - at;
    at = now;
  };
  const kept = options.graphKey === undefined ? undefined : preparedByKey.get(options.graphKey);
  const world = kept?.world ?? worldGraph(g);
  lap('world');
  const counts = countOn(g, world, iterations, seed);
  lap('worlds');
  const profiles = options.profiles ?? attackerProfiles();
  const comonotone = kept?.comonotone ?? comonotoneOn(g, world);
  lap('comonotone');
  if (options.graphKey !== undefined && !kept) keep(options.graphKey, { world, comonotone });
  const comonotoneAny = comonotone.reduce((a, b) => Math.max(a, b), 0);
  const comonotoneExpected = comonotone.reduce((a, b) => a + b, 0);
  const any = counts.anyHits / iterations;
  const anyCi = wilson(counts.anyHits, iterations);
  let expected = 0;
  const mix = (independent: number, shared: number) =>
    profiles.reduce(
      (sum, p) => sum + p.weight * ((1 - p.correlation) * independent + p.correlation * shared),
      0,
    );
  const crownJewels = Array.from(g.targets, (node, i): CrownJewelRisk => {
    const p = counts.targetHits[i] / iterations;
    expected += p;
    const ci = wilson(counts.targetHits[i], iterations);
    return {
      node,
      compromiseProbability: p,
      ciLow: ci.low,
      ciHigh: ci.high,
      mixtureCompromiseProbability: mix(p, comonotone[i]),
    };
  });
  const answer: RiskSimulation = {
    iterations,
    seed,
    anyCompromiseProbability: any,
    anyCiLow: anyCi.low,
    anyCiHigh: anyCi.high,
    expectedCompromised: expected,
    crownJewels,
    mixtureCompromiseProbability: mix(any, comonotoneAny),
    profileCompromise: profiles.map((p) => ({
      profile: p.name,
      weight: p.weight,
      correlation: p.correlation,
      anyCompromiseProbability: (1 - p.correlation) * any + p.correlation * comonotoneAny,
      expectedCompromised: (1 - p.correlation) * expected + p.correlation * comonotoneExpected,
    })),
  };
  lap('shape');
  return answer;
}
