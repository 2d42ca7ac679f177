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
import type { CompiledCore } from './compiled-graph.js';
import { fmix32, RESOLUTION, worldGraph, type WorldGraph } from './world-graph.js';

export { withNodeKeys } from './world-graph.js';

/** Words of 32 worlds per node in one batch: 2 words, 64 worlds (as the yardstick's 64-bit words). The
 * inner loops are written for exactly two. */
export const WORDS = 2;
const WORLDS_PER_BATCH = 32 * WORDS;
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
