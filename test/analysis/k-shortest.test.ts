// Yen's k best loopless routes against brute-force enumeration of every simple route on random small
// estates (parallel hops of different types included), and on a literal estate computed by hand.
import { describe, expect, it } from 'vitest';
import { hopUnits, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { kShortestRoutes } from '../../src/analysis/k-shortest.js';
import { compile, estate, randomEstate } from './small-estate.js';

/** Every simple route (as node sequences, best parallel hop per step) from a start to `target`, by cost. */
function bruteForce(g: CompiledGraph, target: number): number[] {
  const best = new Map<string, number>();
  for (let e = 0; e < g.edgeCount; e++) {
    const units = hopUnits(g.edgeP[e]);
    if (units === Infinity) continue;
    const key = `${g.edgeFrom[e]}>${g.edgeTo[e]}`;
    best.set(key, Math.min(best.get(key) ?? Infinity, units));
  }
  const costs: number[] = [];
  const walk = (u: number, cost: number, on: Set<number>) => {
    if (u === target && on.size > 1) {
      costs.push(cost);
      return;
    }
    for (let v = 0; v < g.nodeCount; v++) {
      const units = best.get(`${u}>${v}`);
      if (units === undefined || on.has(v)) continue;
      on.add(v);
      walk(v, cost + units, on);
      on.delete(v);
    }
  };
  for (const s of g.starts) if (s !== target) walk(s, 0, new Set([s]));
  return costs.sort((a, b) => a - b);
}

describe('kShortestRoutes', () => {
  it('ranks the routes of a literal estate as computed by hand', () => {
    // s→a→t 0.9·0.8 = 0.72; s→b→t 0.6·0.9 = 0.54; s→a→b→t 0.9·0.5·0.9 = 0.405; s→t direct 0.3.
    const g = compile(
      estate({ s: { start: true }, a: {}, b: {}, t: { target: true } }, [
        ['s', 'a', 0.9],
        ['a', 't', 0.8],
        ['s', 'b', 0.6],
        ['b', 't', 0.9],
        ['a', 'b', 0.5],
        ['s', 't', 0.3],
      ]),
    );
    const routes = kShortestRoutes(g, g.indexOf('t'), 10);
    expect(routes.map((r) => r.nodes.map((i) => g.nodeIds[i]).join(''))).toEqual([
      'sat',
      'sbt',
      'sabt',
      'st',
    ]);
    expect(routes.map((r) => r.score)).toEqual([0.9 * 0.8, 0.6 * 0.9, 0.9 * 0.5 * 0.9, 0.3]);
  });

  it('matches brute-force enumeration on random estates, parallel hops included', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const g = compile(randomEstate(seed, 7, 18, ['CONNECTS_TO', 'ROUTES_TO']));
      for (const target of g.targets) {
        const truth = bruteForce(g, target);
        for (const k of [1, 3, 12]) {
          const routes = kShortestRoutes(g, target, k);
          expect(
            routes.map((r) => r.units),
            `seed ${seed} target ${target} k ${k}`,
          ).toEqual(truth.slice(0, k));
          const distinct = new Set(routes.map((r) => r.nodes.join(',')));
          expect(distinct.size).toBe(routes.length);
          for (const r of routes) {
            expect(new Set(r.nodes).size).toBe(r.nodes.length);
            expect(g.starts).toContain(r.nodes[0]);
            expect(r.nodes.at(-1)).toBe(target);
          }
        }
      }
    }
  });

  it('a target that is a starting node is reached only over a hop; an unreachable one has none', () => {
    const g = compile(
      estate({ s: { start: true, target: true }, u: { start: true }, x: { target: true } }, [
        ['u', 's', 0.5],
      ]),
    );
    expect(kShortestRoutes(g, g.indexOf('s'), 5).map((r) => r.nodes.length)).toEqual([2]);
    expect(kShortestRoutes(g, g.indexOf('x'), 5)).toEqual([]);
    expect(() => kShortestRoutes(g, 0, 0)).toThrow(/k must be/);
  });
});
