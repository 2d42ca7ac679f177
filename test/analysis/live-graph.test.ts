// The live compiled graph on literal estates: what a write costs it (a patch, not a compile), the tie
// order after an edge comes back, the compile afresh past the fragmentation bound, and the pass scope
// through the analyzer (which roots are searched again, and that stored routes keep their old prices).
import { afterAll, describe, expect, it } from 'vitest';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { LiveGraph, tenantSource } from '../../src/analysis/live-graph.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { runPass } from '../../src/engine/analyzer.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { createTenantGraph } from '../../src/graph/model.js';
import { silentLog } from '../../src/log/logger.js';
import { routeSteps } from '../../src/paths/path-store.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());

const lb = node('LoadBalancer', 'lb', { internet_exposed: true });
const b = node('Service', 'b');
const c = node('Service', 'c');
const db = node('Database', 'db', { crown_jewel: true });

function writer() {
  return new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
}

/** lb, db and `services` written as scope `scope` (completed), lb routing to each Service. */
function routeToEach(w: GraphWriter, services: ReturnType<typeof node>[], scope: string): void {
  w.apply(
    envelope(
      [lb, db, ...services],
      services.map((s) => edge('ROUTES_TO', lb, s, 0.5)),
    ),
    1,
    scope,
  );
  w.completeScope(scope);
}

const sync = (live: LiveGraph, w: GraphWriter) => live.sync(w.graph, w.changes, { seedIamUsers: false });

const routes = (g: CompiledGraph) =>
  bestPaths(g).map((p) => [g.nodeIds[p.start], ...Array.from(p.edges, (e) => g.nodeIds[g.edgeTo[e]])]);

describe('LiveGraph', () => {
  it('compiles once, then patches: a reprice, an added edge and a removal are no compile', () => {
    const w = writer();
    w.apply(envelope([lb, b, c, db], [edge('ROUTES_TO', lb, b, 0.9), edge('CONNECTS_TO', b, db, 0.5)]), 1);
    const live = new LiveGraph();
    expect(sync(live, w).rebuilt).toBe(true);
    w.apply(envelope([], [edge('CONNECTS_TO', b, db, 0.25)]), 2);
    const repriced = sync(live, w);
    expect(repriced).toMatchObject({ rebuilt: false, rolesChanged: false, cheaper: [] });
    expect(repriced.dearer).toHaveLength(1);
    const viaC = [edge('ROUTES_TO', lb, c, 0.9), edge('CONNECTS_TO', c, db, 0.9)];
    w.apply(envelope([c], viaC), 3, 'scope');
    w.completeScope('scope');
    const added = sync(live, w);
    expect(added.rebuilt).toBe(false);
    expect(added.cheaper).toHaveLength(2);
    expect(routes(live)).toEqual([[lb.id, c.id, db.id]]);
    w.apply(envelope([c], [viaC[0]]), 4, 'scope');
    w.completeScope('scope'); // retracts c → db
    expect(sync(live, w).rebuilt).toBe(false);
    expect(routes(live)).toEqual([[lb.id, b.id, db.id]]);
    expect(live.rebuilds).toBe(1);
    expect([live.liveNodes, live.liveEdges]).toEqual([4, 3]);
  });

  it('breaks ties as graphology orders edges: one removed and added again between two syncs goes last', () => {
    const w = writer();
    // Two routes of exactly the same score: the first out-edge of lb wins the tie.
    w.apply(
      envelope(
        [lb, b, c, db],
        [
          edge('ROUTES_TO', lb, b, 0.5),
          edge('ROUTES_TO', lb, c, 0.5),
          edge('CONNECTS_TO', b, db, 0.5),
          edge('CONNECTS_TO', c, db, 0.5),
        ],
      ),
      1,
      'scope',
    );
    w.completeScope('scope');
    const live = new LiveGraph();
    sync(live, w);
    expect(routes(live)).toEqual([[lb.id, b.id, db.id]]);
    // lb → b is retracted and then reported again: graphology now lists it after lb → c.
    w.apply(
      envelope(
        [lb, b, c, db],
        [edge('ROUTES_TO', lb, c, 0.5), edge('CONNECTS_TO', b, db, 0.5), edge('CONNECTS_TO', c, db, 0.5)],
      ),
      2,
      'scope',
    );
    w.completeScope('scope');
    w.apply(envelope([], [edge('ROUTES_TO', lb, b, 0.5)]), 3);
    expect(sync(live, w).rebuilt).toBe(false);
    const fresh = compileGraph(w.graph, { seedIamUsers: false });
    expect(routes(fresh)).toEqual([[lb.id, c.id, db.id]]);
    expect(routes(live)).toEqual(routes(fresh));
  });

  it('compiles afresh when dead room passes the bound, and when a restore bypassed the writer', () => {
    const w = writer();
    const services = Array.from({ length: 3000 }, (_, i) => node('Service', `s${i}`));
    routeToEach(w, services, 'bulk');
    const live = new LiveGraph();
    sync(live, w);
    // A third of the hops retracted and reported again each round: dead edges pile up until the bound.
    for (let round = 0; round < 7; round++) {
      const kept = services.filter((_, i) => i % 3 !== round);
      w.apply(
        envelope(
          [lb, db, ...kept],
          kept.map((s) => edge('ROUTES_TO', lb, s, 0.5)),
        ),
        2 + round,
        'bulk',
      );
      w.completeScope('bulk');
      w.apply(
        envelope(
          [],
          services.filter((_, i) => i % 3 === round).map((s) => edge('ROUTES_TO', lb, s, 0.4)),
        ),
        2 + round,
      );
      sync(live, w);
    }
    // Each round moved lb's out-list and left dead room behind; the bound brought a compile afresh.
    expect(live.rebuilds).toBeGreaterThan(1);
    expect(bestPaths(live)).toEqual(bestPaths(compileGraph(w.graph, { seedIamUsers: false })));
    const rebuilds = live.rebuilds;
    w.touch();
    expect(sync(live, w).rebuilt).toBe(true);
    expect(live.rebuilds).toBe(rebuilds + 1);
  });

  it("finds every node by id after a compile afresh, the store's id table copied where its slots are dense", () => {
    const services = Array.from({ length: 300 }, (_, i) => node('Service', `svc-${i}`));
    for (const withDeadSlots of [false, true]) {
      const w = writer();
      routeToEach(w, services, 'all');
      // Every third Service retracted: the store keeps their slots dead, so slots are not compile indices.
      const kept = withDeadSlots ? services.filter((_, i) => i % 3) : services;
      if (withDeadSlots) {
        w.apply(envelope([lb, db, ...kept], []), 2, 'all');
        w.completeScope('all');
      }
      const graph = w.graph;
      expect(graph.slots!().idTableOver!(graph.nodes()) === undefined).toBe(withDeadSlots);
      const live = new LiveGraph();
      expect(sync(live, w).rebuilt).toBe(true);
      graph.forEachNode((id) => expect(live.nodeIds[live.indexOf(id)]).toBe(id));
      expect(live.indexOf('Service:not-there')).toBe(-1);
      // Patched afterwards: a node added is found, and one removed is not, through the same table.
      const extra = node('Service', 'svc-extra');
      w.apply(envelope([extra], [edge('ROUTES_TO', lb, extra, 0.5)]), 3);
      w.apply(envelope([lb, db, ...kept.slice(1)], []), 4, 'all');
      w.completeScope('all');
      expect(sync(live, w).rebuilt).toBe(false);
      expect(live.nodeIds[live.indexOf(extra.id)]).toBe(extra.id);
      expect(live.indexOf(kept[0].id)).toBe(-1);
      expect(live.nodeIds[live.indexOf(kept[1].id)]).toBe(kept[1].id);
    }
  });
});

describe('pass scope (analyzer)', () => {
  it('re-searches only the targets a repriced hop can affect, and keeps old routes at their old price', async () => {
    let clock = 1_000_000;
    const tenant = testTenant();
    const deps = passDeps(finder, () => clock);
    const lb2 = node('LoadBalancer', 'lb2', { internet_exposed: true });
    // Starts with no route: there are more starts than targets, so the searches go from the targets.
    const idle = [1, 2].map((i) => node('LoadBalancer', `idle${i}`, { internet_exposed: true }));
    const other = node('Database', 'other', { crown_jewel: true });
    const t1 = node('Database', 't1', { crown_jewel: true });
    tenant.writer.apply(
      envelope(
        [lb, lb2, ...idle, b, c, db, other, t1],
        [
          edge('ROUTES_TO', lb, b, 0.9),
          edge('CONNECTS_TO', b, db, 0.5),
          edge('ROUTES_TO', lb2, c, 0.9),
          edge('CONNECTS_TO', c, other, 0.5),
          edge('CONNECTS_TO', c, t1, 0.5),
        ],
      ),
      clock,
    );
    await runPass(tenant, deps);
    expect(tenant.lastPass).toMatchObject({ rebuilt: true, searchedRoots: 3, roots: 3 });
    const before = tenant.paths.open().find((p) => p.targetId === db.id)!;
    // Dearer hop on the route to db: only db is searched again.
    clock += 1000;
    tenant.writer.apply(envelope([], [edge('CONNECTS_TO', b, db, 0.25)]), clock);
    await runPass(tenant, deps);
    expect(tenant.lastPass).toMatchObject({ rebuilt: false, searchedRoots: 1, roots: 3 });
    expect(tenant.paths.open().find((p) => p.targetId === db.id)!.score).toBeCloseTo(0.225, 12);
    // A cheaper hop from c reaches other and t1, not db.
    clock += 1000;
    tenant.writer.apply(envelope([], [edge('ROUTES_TO', lb2, c, 0.95)]), clock);
    await runPass(tenant, deps);
    expect(tenant.lastPass).toMatchObject({ rebuilt: false, searchedRoots: 2, roots: 3 });
    // A hop removed: the route to db resolves, and its frozen route shows the price it had, not 0.
    clock += 1000;
    tenant.writer.apply(envelope([], [edge('CONNECTS_TO', b, db, 0)]), clock);
    await runPass(tenant, deps);
    expect(before.state).toBe('resolved');
    expect(routeSteps(before).map((s) => s.probability)).toEqual([0.9, 0.25]);
    expect(tenant.lastPass).toMatchObject({ rebuilt: false, searchedRoots: 1 });
  });

  it('a fork reads the live arrays until it is copied: the pass waits for it, and the fork keeps its own writes', async () => {
    const tenant = testTenant();
    const deps = passDeps(finder, () => 1_000_000);
    tenant.writer.apply(
      envelope([lb, b, db], [edge('ROUTES_TO', lb, b, 0.9), edge('CONNECTS_TO', b, db, 0.5)]),
      1,
    );
    await runPass(tenant, deps);
    const fork = tenant.live.fork();
    const other = tenant.live.fork();
    expect(tenant.live.pinned).toBe(true);
    // The fork takes a cheaper hop and a new node; the live graph does not see them.
    const overlay = writer();
    overlay.changes.take(); // listing starts now
    overlay.apply(
      envelope(
        [lb, b, c, db],
        [edge('ROUTES_TO', lb, b, 0.9), edge('CONNECTS_TO', b, db, 0.8), edge('ROUTES_TO', lb, c, 0.5)],
      ),
      2,
    );
    expect(fork.patchWith(tenantSource(overlay.graph), overlay.changes.take())).not.toBeNull();
    expect([fork.liveNodes, fork.liveEdges]).toEqual([4, 3]);
    expect([tenant.live.liveNodes, tenant.live.liveEdges]).toEqual([3, 2]);
    expect(tenant.live.edgeP).toContain(0.5);
    expect(tenant.live.edgeP).not.toContain(0.8);

    // A write and a pass: the pass waits while a fork is not copied yet.
    tenant.writer.apply(envelope([], [edge('CONNECTS_TO', b, db, 0.1)]), 3);
    let passed = false;
    const pass = runPass(tenant, deps).then(() => (passed = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passed).toBe(false);
    fork.release();
    fork.release(); // idempotent: the other fork still pins
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passed).toBe(false);
    other.release();
    await pass;
    expect(tenant.live.pinned).toBe(false);
    expect(tenant.paths.open()[0].score).toBeCloseTo(0.09);
  });
});
