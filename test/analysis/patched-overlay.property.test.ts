// The gate's way of searching "live + a pull request's change" (src/gate/evaluate.ts): a fork of the live
// compiled graph patched with what the overlay (src/gate/overlay.ts) changes, searched only where the change
// can matter. On seeded random estates and random reports (new nodes and edges, re-stated nodes and hops,
// workloads pointed at a successor image), it must give exactly what a fresh compile of the overlay gives.
import { afterAll, describe, expect, it } from 'vitest';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { compileGraph } from '../../src/analysis/compiled-graph.js';
import { forkIsInert, patchFork, searchPatched } from '../../src/analysis/patched-search.js';
import { createPathFinder, type PathFinder } from '../../src/analysis/path-finder.js';
import { runPass } from '../../src/engine/analyzer.js';
import { Overlay } from '../../src/gate/overlay.js';
import type { EnvelopeEdge } from '../../src/ingest/envelope.js';
import { envelope } from '../helpers/envelope.js';
import { PS, pick, prng, randomEdge, randomNode, readable } from '../helpers/random-estate.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const inProcess = createPathFinder({ threads: 1 });
// The same searches on worker threads: the fork's copy is made there from the live arrays and its writes.
const pooled = createPathFinder({ threads: 2, inlineBelowEdges: 0 });
afterAll(() => Promise.all([inProcess.close(), pooled.close()]));

describe('patched search of a gate overlay', () => {
  it('equals a fresh compile of the overlay on 300 random estates and reports', async () => {
    await check(inProcess, 2001, 2300);
  }, 120_000);

  it('equals it too when the fork is copied and searched on worker threads (60 estates)', async () => {
    await check(pooled, 2301, 2360);
  }, 120_000);
});

async function check(finder: PathFinder, first: number, last: number): Promise<void> {
  let scoped = 0;
  let checks = 0;
  let inertChecks = 0;
  for (let seed = first; seed <= last; seed++) {
    const random = prng(seed);
    const seedIamUsers = random() < 0.5;
    const tenant = testTenant();
    const deps = passDeps(finder, () => 1_000_000, { seedIamUsers });
    for (let w = 0; w < 6; w++) {
      const nodes = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomNode(random));
      const edges = Array.from({ length: Math.floor(random() * 8) }, () => randomEdge(random));
      tenant.writer.apply(envelope(nodes, edges), 1000 + w);
      if (random() < 0.5) await runPass(tenant, deps);
    }
    await runPass(tenant, deps);

    for (let report = 0; report < 3; report++) {
      const overlay = new Overlay(tenant.graph, tenant.writer);
      const live: { key: string; edge: EnvelopeEdge }[] = [];
      tenant.graph.forEachEdge((key, attrs, from, to) =>
        live.push({ key, edge: { type: attrs.type, from, to } }),
      );
      const nodes = Array.from({ length: Math.floor(random() * 3) }, () => randomNode(random));
      const edges = Array.from({ length: Math.floor(random() * 5) }, () =>
        live.length && random() < 0.4
          ? { ...pick(random, live).edge, exploit_probability: pick(random, PS) ?? 0.5 }
          : randomEdge(random),
      );
      overlay.apply(envelope(nodes, edges), 2000);
      // A successor image: a workload's DEPENDS_ON hop pointed at another image.
      const images: string[] = [];
      tenant.graph.forEachNode((id, attrs) => {
        if (attrs.label === 'Image') images.push(id);
      });
      const runs = live.filter((e) => e.edge.type === 'DEPENDS_ON');
      if (runs.length && images.length && random() < 0.3) {
        const hop = pick(random, runs);
        const to = pick(random, images);
        if (to !== hop.edge.to && to !== hop.edge.from) overlay.retarget(hop.key, to);
      }
      const fresh = compileGraph(overlay, { seedIamUsers });
      const context = `seed ${seed}, report ${report}`;
      const truth = readable(fresh, bestPaths(fresh));
      // A change the gate calls inert (no search: the live paths stand) must leave every route as it was.
      const forked = patchFork(tenant.live, overlay, overlay.changes(), { seedIamUsers });
      if (forked) {
        const inert = forkIsInert(forked, tenant.lastSearch!);
        forked.fork.release();
        if (inert) {
          expect(truth, `${context} (inert)`).toEqual(readable(tenant.live, tenant.lastSearch!.found));
          inertChecks++;
        }
      }
      const patched = await searchPatched(tenant.live, tenant.lastSearch, overlay, overlay.changes(), {
        finder,
        seedIamUsers,
      });
      expect(patched, context).not.toBeNull();
      // Searched: the fork no longer pins the live graph (the analyzer's sync would wait for it).
      expect(tenant.live.pinned, context).toBe(false);
      expect(readable(patched!.compiled, patched!.found), context).toEqual(truth);
      checks++;
      if (patched!.searchedRoots < patched!.roots) scoped++;
    }
  }
  // Worth something only if many reports were searched in part, and some were found inert.
  expect(scoped).toBeGreaterThan(checks * 0.2);
  expect(inertChecks).toBeGreaterThan(0);
}
