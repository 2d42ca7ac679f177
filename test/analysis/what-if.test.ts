// What-if cuts and the verified remediation plan on estates whose answers are computed by hand.
import { describe, expect, it } from 'vitest';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { remediationPlan } from '../../src/analysis/remediation-plan.js';
import { resolveSelectors, SelectorError, whatIf } from '../../src/analysis/what-if.js';
import { compile, estate } from './small-estate.js';

// Two routes from the internet to the database: web → app → db (0.9 × 0.8) and web → batch → db
// (0.5 × 0.6). With hops independent, P(db) = 1 − (1 − 0.72)(1 − 0.3) = 0.804.
const twoRoutes = () =>
  compile(
    estate({ web: { start: true }, app: {}, batch: {}, db: { target: true } }, [
      ['web', 'app', 0.9],
      ['app', 'db', 0.8, 'HAS_PERMISSION'],
      ['web', 'batch', 0.5],
      ['batch', 'db', 0.6, 'HAS_PERMISSION'],
    ]),
  );

describe('whatIf on a two-route estate', () => {
  it('cutting the better route leaves the other: risk 0.804 → 0.3, by name or id', () => {
    const g = twoRoutes();
    const changes = resolveSelectors(g, [{ from: 'NAME-APP', to: 'db', type: 'HAS_PERMISSION' }]);
    expect(changes).toEqual([{ edge: expect.any(Number), p: 0 }]);
    const result = whatIf(g, changes, { iterations: 200_000, seed: 1 });
    expect(result.removedEdges).toBe(1);
    expect(result.closed).toEqual([]);
    expect(result.remaining).toHaveLength(1);
    expect(result.remaining[0].scoreBefore).toBeCloseTo(0.72, 12);
    expect(result.remaining[0].after!.score).toBeCloseTo(0.3, 12);
    expect(result.before.anyCompromiseProbability).toBeCloseTo(0.804, 2);
    expect(result.after.anyCompromiseProbability).toBeCloseTo(0.3, 2);
    expect(result.riskReduction).toBeCloseTo(0.504, 2);
    expect(result.expectedReduction).toBeCloseTo(0.504, 2);
  });

  it('cutting both routes closes the pair: risk 0', () => {
    const g = twoRoutes();
    const changes = resolveSelectors(g, [
      { from: 'app', to: 'db' },
      { from: 'batch', to: 'db' },
    ]);
    const result = whatIf(g, changes, { iterations: 10_000, seed: 1 });
    expect(result.removedEdges).toBe(2);
    expect(result.closed.map((c) => [g.nodeIds[c.start], g.nodeIds[c.target]])).toEqual([['web', 'db']]);
    expect(result.remaining).toEqual([]);
    expect(result.after.anyCompromiseProbability).toBe(0);
  });

  it('repricing a hop lowers the route: 0.9 × 0.1', () => {
    const g = twoRoutes();
    const changes = resolveSelectors(g, [{ from: 'app', to: 'db', probability: 0.1 }]);
    const result = whatIf(g, changes, { iterations: 1000, seed: 1 });
    expect(result.repricedEdges).toBe(1);
    expect(result.remaining[0].after!.score).toBeCloseTo(0.3, 12);
    // The view is a copy: the graph it views still has the hop.
    expect(bestPaths(g)[0].score).toBeCloseTo(0.72, 12);
  });

  it('names the selector that matches nothing', () => {
    const g = twoRoutes();
    expect(() => resolveSelectors(g, [{ from: 'nowhere', to: 'db' }])).toThrow(
      new SelectorError('cuts[0].from: no node has id or name "nowhere"'),
    );
    expect(() => resolveSelectors(g, [{ from: 'app', to: 'db', type: 'ROUTES_TO' }])).toThrow(
      /cuts\[0\]: no ROUTES_TO edge from "app" to "db"/,
    );
    expect(() => resolveSelectors(g, [{ from: 'app', to: 'db', type: 'NOPE' }])).toThrow(/not an edge type/);
    expect(() => resolveSelectors(g, [{ from: 'app', to: 'db', probability: 2 }])).toThrow(/from 0 to 1/);
  });
});

describe('remediationPlan', () => {
  it('cuts the shared choke point first, verified, and follows re-routing', () => {
    // Three starts reach db through gw (0.9 each, then gw → db 0.9): critical (P1 at 0.7) routes 0.81 each.
    // A side route s1 → side → db (0.85 × 0.9 = 0.765) takes over for s1 once gw → db is cut.
    const g = compile(
      estate(
        {
          s1: { start: true },
          s2: { start: true },
          s3: { start: true },
          gw: {},
          side: {},
          db: { target: true },
        },
        [
          ['s1', 'gw', 0.9],
          ['s2', 'gw', 0.9],
          ['s3', 'gw', 0.9],
          ['gw', 'db', 0.9],
          ['s1', 'side', 0.85],
          ['side', 'db', 0.9],
        ],
      ),
    );
    const plan = remediationPlan(g, { p1: 0.7 });
    expect(plan.criticalBefore).toBe(3);
    expect(plan.criticalAfter).toBe(0);
    const [first, second] = plan.items;
    expect(g.nodeIds[g.edgeFrom[first.edge]] + '>' + g.nodeIds[g.edgeTo[first.edge]]).toBe('gw>db');
    // s2 and s3 lose their only route; s1 re-routes through side (0.765, still critical).
    expect(first.verification).toMatchObject({ verified: true, pathsEliminated: 2 });
    const total = 3 * 0.81;
    expect(first.verification.riskReductionPct).toBeCloseTo((100 * (total - 0.765)) / total, 9);
    expect(first.coveragePct).toBeCloseTo((100 * (total - 0.765)) / total, 9);
    expect(['s1>side', 'side>db']).toContain(
      g.nodeIds[g.edgeFrom[second.edge]] + '>' + g.nodeIds[g.edgeTo[second.edge]],
    );
    expect(second.verification.pathsEliminated).toBe(1);
    expect(second.coveragePct).toBeCloseTo(100, 9);
    expect(plan.items).toHaveLength(2);
  });

  it('blocks public access for a direct-access target', () => {
    const g = compile(estate({ s: { start: true }, bucket: { target: true, public: true } }, []));
    const plan = remediationPlan(g, { p1: 0.7 });
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0]).toMatchObject({
      kind: 'block-public-access',
      node: g.indexOf('bucket'),
      coveragePct: 100,
      verification: { verified: true, pathsEliminated: 1, riskReductionPct: 100, expectedReduction: 1 },
    });
  });

  it('offers nothing when there is no critical route', () => {
    const g = twoRoutes();
    expect(remediationPlan(g, { p1: 0.95 }).items).toEqual([]);
  });
});

describe('whatIf re-searches only what a change can touch', () => {
  it('gives the same pairs, scores and routes as a whole new search, for cuts and cheaper reprices', async () => {
    const { EdgeView } = await import('../../src/analysis/edge-view.js');
    const { randomEstate } = await import('./small-estate.js');
    for (let seed = 1; seed <= 30; seed++) {
      const g = compile(randomEstate(seed, 9, 24));
      for (const p of [0, 0.05, 0.99]) {
        const change = [{ edge: seed % g.edgeCount, p }];
        const result = whatIf(g, change, { iterations: 64, seed: 1 });
        const view = new EdgeView(g);
        view.reprice(change[0].edge, p);
        const truth = bestPaths(view.graph);
        const got = result.remaining.map((c) => c.after!);
        expect(got.map((x) => [x.start, x.target, x.score, Array.from(x.edges)])).toEqual(
          truth.map((x) => [x.start, x.target, x.score, Array.from(x.edges)]),
        );
      }
    }
  });
});
