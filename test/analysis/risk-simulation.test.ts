// Monte Carlo risk against exact enumeration of every world on estates of at most 16 hops: each target's
// exact compromise probability lies in the simulation's own interval; seeded runs repeat exactly; a cut
// view sees the same worlds minus the cut hops.
import { describe, expect, it } from 'vitest';
import type { CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { EdgeView } from '../../src/analysis/edge-view.js';
import {
  comonotoneTargetRisk,
  countWorlds,
  simulateRisk,
  wilson,
} from '../../src/analysis/risk-simulation.js';
import { compile, estate, randomEstate } from './small-estate.js';

/** Exact per-target compromise probabilities, summing over all 2^m worlds. */
function exact(g: CompiledGraph): { targets: number[]; any: number; expected: number } {
  const m = g.edgeCount;
  expect(m).toBeLessThanOrEqual(16);
  const targets = new Array<number>(g.targets.length).fill(0);
  let any = 0;
  const isStart = new Set(g.starts);
  const isDirect = new Set(g.directAccess);
  for (let world = 0; world < 1 << m; world++) {
    let weight = 1;
    for (let e = 0; e < m; e++) weight *= world & (1 << e) ? g.edgeP[e] : 1 - g.edgeP[e];
    if (weight === 0) continue;
    // Nodes reached over at least one present hop from a start.
    const arrived = new Set<number>();
    const stack = [...g.starts];
    const seen = new Set<number>(stack);
    while (stack.length) {
      const u = stack.pop()!;
      for (let e = 0; e < m; e++) {
        if (!(world & (1 << e)) || g.edgeFrom[e] !== u) continue;
        const v = g.edgeTo[e];
        arrived.add(v);
        if (!seen.has(v)) {
          seen.add(v);
          stack.push(v);
        }
      }
    }
    let hitAny = false;
    g.targets.forEach((t, i) => {
      const hit = isDirect.has(t) || arrived.has(t) || (!isStart.has(t) && seen.has(t));
      if (hit) {
        targets[i] += weight;
        hitAny = true;
      }
    });
    if (hitAny) any += weight;
  }
  return { targets, any, expected: targets.reduce((a, b) => a + b, 0) };
}

describe('risk simulation', () => {
  it('a single hop: compromise at its probability, interval around it', () => {
    const g = compile(estate({ a: { start: true }, b: { target: true } }, [['a', 'b', 0.3]]));
    const sim = simulateRisk(g, { iterations: 20_000, seed: 7 });
    expect(sim.crownJewels[0].ciLow).toBeLessThan(0.3);
    expect(sim.crownJewels[0].ciHigh).toBeGreaterThan(0.3);
    expect(sim.anyCompromiseProbability).toBe(sim.crownJewels[0].compromiseProbability);
  });

  it('agrees with exact enumeration of all worlds on random estates of <= 16 hops', () => {
    let inside95 = 0;
    let checks = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const g = compile(randomEstate(seed, 7, 14));
      const truth = exact(g);
      const iterations = 4000;
      const counts = countWorlds(g, iterations, seed);
      const sim = simulateRisk(g, { iterations, seed });
      truth.targets.forEach((p, i) => {
        const ci = sim.crownJewels[i];
        // Every answer within the 99.9 % interval; the reported 95 % interval holds nearly all.
        const wide = wilson(counts.targetHits[i], iterations, 3.2905);
        expect(p, `seed ${seed} target ${i}`).toBeGreaterThanOrEqual(wide.low - 1e-4);
        expect(p, `seed ${seed} target ${i}`).toBeLessThanOrEqual(wide.high + 1e-4);
        if (p >= ci.ciLow - 1e-4 && p <= ci.ciHigh + 1e-4) inside95++;
        checks++;
      });
      expect(truth.any).toBeGreaterThanOrEqual(sim.anyCiLow - 0.02);
      expect(truth.any).toBeLessThanOrEqual(sim.anyCiHigh + 0.02);
    }
    expect(checks).toBeGreaterThan(20);
    expect(inside95 / checks).toBeGreaterThanOrEqual(0.85);
  });

  it('counts a starting target only when a hop reaches it, and a public target always', () => {
    const g = compile(
      estate({ a: { start: true, target: true }, b: { start: true }, c: { target: true, public: true } }, [
        ['b', 'a', 0.5],
      ]),
    );
    const truth = exact(g);
    expect(truth.targets).toEqual([0.5, 1]);
    const sim = simulateRisk(g, { iterations: 10_000, seed: 3 });
    expect(sim.crownJewels[1].compromiseProbability).toBe(1);
    expect(sim.crownJewels[0].ciLow).toBeLessThan(0.5);
    expect(sim.crownJewels[0].ciHigh).toBeGreaterThan(0.5);
    expect(sim.anyCompromiseProbability).toBe(1);
  });

  it('is reproducible per seed and differs across seeds', () => {
    const g = compile(randomEstate(5, 8, 16));
    const a = simulateRisk(g, { iterations: 999, seed: 42 });
    const b = simulateRisk(g, { iterations: 999, seed: 42 });
    const c = simulateRisk(g, { iterations: 999, seed: 43 });
    expect(b).toEqual(a);
    expect(c.crownJewels.map((j) => j.compromiseProbability)).not.toEqual(
      a.crownJewels.map((j) => j.compromiseProbability),
    );
  });

  it('a cut view sees the same worlds minus the cut hop: never more compromise, in any target', () => {
    const g = compile(randomEstate(9, 8, 16));
    const before = countWorlds(g, 2048, 1);
    const view = new EdgeView(g);
    view.remove(3);
    const after = countWorlds(view.graph, 2048, 1);
    after.targetHits.forEach((hits, i) => expect(hits).toBeLessThanOrEqual(before.targetHits[i]));
    expect(after.anyHits).toBeLessThanOrEqual(before.anyHits);
  });

  it('the shared-skill part is the widest route, exactly; the mixture weighs the profiles', () => {
    // Two routes to t: 0.9 × 0.5 and 0.6 × 0.7: widest min is max(0.5, 0.6) = 0.6.
    const g = compile(
      estate({ s: { start: true }, a: {}, b: {}, t: { target: true } }, [
        ['s', 'a', 0.9],
        ['a', 't', 0.5],
        ['s', 'b', 0.6],
        ['b', 't', 0.7],
      ]),
    );
    expect(Array.from(comonotoneTargetRisk(g))).toEqual([0.6]);
    const sim = simulateRisk(g, { iterations: 5000, seed: 1 });
    const independent = sim.anyCompromiseProbability;
    const expected =
      0.6 * (0.9 * independent + 0.1 * 0.6) +
      0.3 * (0.6 * independent + 0.4 * 0.6) +
      0.1 * (0.2 * independent + 0.8 * 0.6);
    expect(sim.mixtureCompromiseProbability).toBeCloseTo(expected, 12);
    expect(sim.profileCompromise.map((p) => p.profile)).toEqual(['commodity', 'criminal', 'apt']);
  });

  it('searching only the nodes that reach a target gives the very same counts as searching all', () => {
    // Sparse estates (many nodes reach no target, some no start) and dense ones, plain and with hops cut or
    // made certain; batch sizes around a word's 64 worlds.
    let pruned = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const n = 6 + (seed % 30);
      const g = compile(randomEstate(seed, n, n * (1 + (seed % 4)), ['CONNECTS_TO', 'ASSUMES']));
      const view = new EdgeView(g);
      view.remove(seed % g.edgeCount);
      view.reprice((seed * 7) % g.edgeCount, 1);
      for (const graph of [g, view.graph])
        for (const iterations of [1, 64, 65, 700]) {
          const all = countWorlds(graph, iterations, seed, { prune: false });
          const some = countWorlds(graph, iterations, seed);
          expect(some.targetHits, `seed ${seed}, ${iterations} worlds`).toEqual(all.targetHits);
          expect(some.anyHits, `seed ${seed}, ${iterations} worlds`).toBe(all.anyHits);
        }
      if (countWorlds(g, 1, 1).searched < countWorlds(g, 1, 1, { prune: false }).searched) pruned++;
    }
    expect(pruned).toBeGreaterThan(10);
  });

  it('a graph kept under a key answers, seed after seed, as a simulation that prepares it afresh', () => {
    // The searched part and the shared-skill part are kept per key (analysis-service.ts names each graph it
    // hands out); a key names one graph only, so two graphs under two keys never mix.
    const graphs = [compile(randomEstate(11, 20, 60)), compile(randomEstate(12, 25, 70))];
    for (let seed = 1; seed <= 4; seed++)
      graphs.forEach((g, i) => {
        const key = 9_000_000 + i;
        const fresh = simulateRisk(g, { iterations: 700, seed });
        const phases = { world: -1, worlds: -1, comonotone: -1, shape: -1 };
        expect(simulateRisk(g, { iterations: 700, seed, graphKey: key, phases })).toEqual(fresh);
        for (const phase of Object.values(phases)) expect(phase).toBeGreaterThanOrEqual(0);
      });
  });

  it('refuses a bad iteration count', () => {
    const g = compile(estate({ a: { start: true }, b: { target: true } }, [['a', 'b', 0.3]]));
    expect(() => simulateRisk(g, { iterations: 0, seed: 1 })).toThrow(/iterations/);
    expect(() => simulateRisk(g, { iterations: 2.5, seed: 1 })).toThrow(/iterations/);
  });
});
