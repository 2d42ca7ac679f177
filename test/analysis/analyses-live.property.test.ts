// The analyses on the live compiled graph (analysis-service.ts `compiled`): seeded random writes through
// the real graph writer, an analyzer pass now and then (so the live graph is patched, tombstones and all,
// and some writes are still pending when the analyses read it), and each time the graph the service hands
// the analyses must be a fork of the live graph, not a compile, whose answers (by node ids) are exactly
// those on a fresh compile of the graph as it is: the Monte Carlo per crown jewel (its worlds are keyed on
// node ids, not on where the hops were numbered), k-shortest routes, the remediation plan and a what-if.
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisService } from '../../src/analysis/analysis-service.js';
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { kShortestRoutes } from '../../src/analysis/k-shortest.js';
import { LiveGraph } from '../../src/analysis/live-graph.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { remediationPlan } from '../../src/analysis/remediation-plan.js';
import { simulateRisk, withNodeKeys } from '../../src/analysis/risk-simulation.js';
import { resolveNode, resolveSelectors, whatIf, type EdgeSelector } from '../../src/analysis/what-if.js';
import { runPass } from '../../src/engine/analyzer.js';
import { envelope } from '../helpers/envelope.js';
import { pick, prng, randomEdge, randomNode } from '../helpers/random-estate.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());

const id = (g: CompiledGraph, i: number) => g.nodeIds[i];
const hop = (g: CompiledGraph, e: number) =>
  `${id(g, g.edgeFrom[e])} ${g.edgeType[e]} ${id(g, g.edgeTo[e])} ${g.edgeP[e]}`;

/** Every analysis's answer, by ids. */
function answers(g: CompiledGraph, cut: EdgeSelector | null, seed: number) {
  const risk = simulateRisk(g, { iterations: 200, seed });
  const byTarget = (sim: typeof risk) =>
    Object.fromEntries(sim.crownJewels.map((j) => [id(g, j.node), j.compromiseProbability]));
  const routes = Object.fromEntries(
    Array.from(g.targets, (t) => [
      id(g, t),
      kShortestRoutes(g, t, 4).map((r) => ({ score: r.score, hops: r.edges.map((e) => hop(g, e)) })),
    ]),
  );
  const plan = remediationPlan(g, { p1: 0.3, iterations: 128, seed }).items.map((item) => ({
    kind: item.kind,
    what: item.kind === 'cut-edge' ? hop(g, item.edge) : id(g, item.node),
    coverage: item.coveragePct,
    verification: item.verification,
    eliminated: item.eliminated.map((c) => `${id(g, c.start)}>${id(g, c.target)}`),
  }));
  let what = null;
  if (cut) {
    const w = whatIf(g, resolveSelectors(g, [cut]), { iterations: 200, seed });
    what = {
      before: byTarget(w.before),
      after: byTarget(w.after),
      any: [w.before.anyCompromiseProbability, w.after.anyCompromiseProbability],
      closed: w.closed.map((c) => `${id(g, c.start)}>${id(g, c.target)}`).sort(),
      remaining: w.remaining.map((c) => `${id(g, c.start)}>${id(g, c.target)} ${c.after!.score}`).sort(),
    };
  }
  return { risk: byTarget(risk), any: risk.anyCompromiseProbability, routes, plan, what };
}

describe('the analyses on the live compiled graph', () => {
  it('read a fork of the live graph whose answers are a fresh compile’s, pass after pass', async () => {
    let forks = 0;
    let pendingForks = 0;
    let tombstoned = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const random = prng(seed * 7919);
      const seedIamUsers = seed % 2 === 0;
      const tenant = testTenant({ thresholds: { p1: 0.3, p2: 0.1 } });
      const service = new AnalysisService({ seedIamUsers, workers: false });
      let clock = 1_000_000;
      const deps = passDeps(finder, () => clock, { seedIamUsers });
      for (let step = 0; step < 16; step++) {
        clock += 1000;
        const nodes = Array.from({ length: 2 + Math.floor(random() * 8) }, () => randomNode(random));
        const edges = Array.from({ length: 6 + Math.floor(random() * 14) }, () => randomEdge(random));
        tenant.writer.apply(envelope(nodes, edges), clock);
        if (random() < 0.2) tenant.writer.prune(clock - 1000 * (3 + Math.floor(random() * 6)));
        if (random() < 0.7) await runPass(tenant, deps);
        if (tenant.lastPass === null) continue;
        const g = service.compiled(tenant);
        expect(service.compiled(tenant), 'reused until the graph changes').toBe(g);
        expect(g, `seed ${seed}, step ${step}`).toBeInstanceOf(LiveGraph);
        forks++;
        if (tenant.stale) pendingForks++;
        if ((g as LiveGraph).liveNodes < g.nodeCount) tombstoned++;
        const fresh = withNodeKeys(compileGraph(tenant.graph, { seedIamUsers }));
        const hops: EdgeSelector[] = [];
        tenant.graph.forEachEdge((_key, attrs, from, to) => hops.push({ from, to, type: attrs.type }));
        const cut = hops.length ? pick(random, hops) : null;
        const context = `seed ${seed}, step ${step}`;
        // Nodes named as the API names them (id or name): a removed node's slot is never one of them.
        const named = (graph: CompiledGraph, key: string) =>
          resolveNode(graph, key)
            .map((i) => id(graph, i))
            .sort();
        for (let i = 0; i < g.nodeCount; i++)
          for (const key of [g.names[i], g.nodeIds[i]])
            expect(named(g, key), `${context}: ${key}`).toEqual(named(fresh, key));
        expect(answers(g, cut, seed), context).toEqual(answers(fresh, cut, seed));
      }
    }
    expect(forks).toBeGreaterThan(30);
    expect(pendingForks).toBeGreaterThan(5);
    expect(tombstoned).toBeGreaterThan(3);
  });
});
