// The live compiled graph and the pass scope (src/analysis/live-graph.ts, pass-scope.ts) against the plain
// way: seeded random sequences of writes through the real graph writer (nodes and edges added, hops
// repriced with many exact ties, properties that move starts, targets and workload prices, renames,
// snapshot retractions, staleness pruning), an analyzer pass after each, and after each pass the live
// answer must be exactly a from-scratch compile and search: the same pairs in the same order, the same
// scores to the last bit, the same routes hop for hop, the same open path records.
import { afterAll, describe, expect, it } from 'vitest';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { compileGraph } from '../../src/analysis/compiled-graph.js';
import { tenantSource } from '../../src/analysis/live-graph.js';
import { searchPatched } from '../../src/analysis/patched-search.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { runPass } from '../../src/engine/analyzer.js';
import type { TenantState } from '../../src/engine/tenant.js';
import { createTenantGraph } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import type { EnvelopeEdge, EnvelopeNode } from '../../src/ingest/envelope.js';
import { silentLog } from '../../src/log/logger.js';
import { PathStore, routeNodes, routeSteps } from '../../src/paths/path-store.js';
import { envelope } from '../helpers/envelope.js';
import { PS, pick, prng, randomEdge, randomNode, readable } from '../helpers/random-estate.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());

function openRecords(store: PathStore) {
  return [...store.open()]
    .map((r) => ({
      id: r.id,
      score: r.score,
      logScore: r.logScore,
      priority: r.priority,
      directAccess: r.directAccess,
      nodes: routeNodes(r),
      steps: routeSteps(r),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

interface Tally {
  passes: number;
  patched: number;
  scoped: number;
  rebuilt: number;
  forks: number;
  forksScoped: number;
  pending: number;
}

/**
 * The gate's way: a copy of the tenant graph takes a random change through a writer of its own, and a fork
 * of the live compiled graph patched with that writer's changes must search like a fresh compile of the
 * copy, while the live graph stays as it was.
 */
async function checkFork(
  tenant: TenantState,
  random: () => number,
  seedIamUsers: boolean,
  context: string,
  tally: Tally,
): Promise<void> {
  // Same order, other keys: the copy's own writer numbers its edges from 0 again.
  const copy = createTenantGraph();
  tenant.graph.forEachNode((id, attrs) => copy.addNode(id, { ...attrs }));
  tenant.graph.forEachEdge((key, attrs, from, to) =>
    copy.addDirectedEdgeWithKey(`copy-${key}`, from, to, { ...attrs }),
  );
  const writer = new GraphWriter(copy, { log: silentLog(), parkedTtlMs: 1e12 });
  writer.changes.take(); // listing starts now
  const existing: EnvelopeEdge[] = [];
  copy.forEachEdge((_key, attrs, from, to) => existing.push({ type: attrs.type, from, to }));
  const nodes = Array.from({ length: Math.floor(random() * 3) }, () => randomNode(random));
  const edges = Array.from({ length: Math.floor(random() * 4) }, () =>
    existing.length && random() < 0.5
      ? { ...pick(random, existing), exploit_probability: pick(random, [0, 0.5, 0.9]) }
      : randomEdge(random),
  );
  writer.apply(envelope(nodes, edges), 1);
  const liveBefore = readable(tenant.live, tenant.lastSearch!.found);
  const patched = await searchPatched(
    tenant.live,
    tenant.lastSearch,
    tenantSource(copy),
    writer.changes.take(),
    { finder, seedIamUsers },
  );
  expect(patched, context).not.toBeNull();
  const fresh = compileGraph(copy, { seedIamUsers });
  expect(readable(patched!.compiled, patched!.found), context).toEqual(readable(fresh, bestPaths(fresh)));
  expect(readable(tenant.live, tenant.lastSearch!.found), context).toEqual(liveBefore);
  tally.forks++;
  if (patched!.searchedRoots < patched!.roots) tally.forksScoped++;
}

async function runSequence(seed: number, steps: number, tally: Tally, forks = false): Promise<void> {
  const random = prng(seed);
  let clock = 1_000_000;
  const seedIamUsers = random() < 0.5;
  const tenant = testTenant();
  const deps = passDeps(finder, () => clock, { seedIamUsers });
  /** Envelopes of the two snapshot scopes, so that a later snapshot can omit some of them. */
  const snapshots = new Map<string, { nodes: EnvelopeNode[]; edges: EnvelopeEdge[] }>();
  for (let step = 0; step < steps; step++) {
    clock += 1000;
    const op = random();
    const writes = 1 + Math.floor(random() * 3);
    if (op < 0.45) {
      // Unscoped reports: nodes and edges (edges to absent nodes park, and land when the node comes).
      for (let w = 0; w < writes; w++) {
        const nodes = Array.from({ length: Math.floor(random() * 3) }, () => randomNode(random));
        const edges = Array.from({ length: Math.floor(random() * 5) }, () => randomEdge(random));
        tenant.writer.apply(envelope(nodes, edges), clock);
      }
    } else if (op < 0.65) {
      // Reprice: an existing hop sent again with another probability (the bench's steady-state change).
      const existing: EnvelopeEdge[] = [];
      tenant.graph.forEachEdge((_key, attrs, from, to) => existing.push({ type: attrs.type, from, to }));
      for (let w = 0; w < writes && existing.length; w++) {
        const edge = { ...pick(random, existing) };
        const p = pick(random, PS);
        if (p !== undefined) edge.exploit_probability = p;
        tenant.writer.apply(envelope([], [edge]), clock);
      }
    } else if (op < 0.85) {
      // A complete snapshot of a scope: keeps some of what the previous one held, retracts the rest.
      const scope = pick(random, ['cloud', 'cluster']);
      const before = snapshots.get(scope) ?? { nodes: [], edges: [] };
      const nodes = [
        ...before.nodes.filter(() => random() < 0.7),
        ...Array.from({ length: Math.floor(random() * 4) }, () => randomNode(random)),
      ];
      const edges = [
        ...before.edges.filter(() => random() < 0.7),
        ...Array.from({ length: Math.floor(random() * 6) }, () => randomEdge(random)),
      ];
      snapshots.set(scope, { nodes, edges });
      tenant.writer.apply(envelope(nodes, edges), clock, scope);
      tenant.writer.completeScope(scope);
      if (random() < 0.5) {
        // Some of what was just retracted comes straight back from another report, before any pass:
        // graphology puts it last now, and the compiled form must too.
        const back = before.edges.filter((e) => !edges.includes(e) && random() < 0.6);
        const nodesBack = before.nodes.filter((n) => !nodes.includes(n) && random() < 0.6);
        tenant.writer.apply(envelope(nodesBack, back), clock);
      }
    } else if (op < 0.93) {
      // Staleness pruning (GRAPH_TTL): whatever was not seen in the last few steps goes.
      tenant.writer.prune(clock - 1000 * (1 + Math.floor(random() * 6)));
    } else {
      // Properties only: starts and targets move, CVE evidence reprices the workloads running the image.
      for (let w = 0; w < writes; w++) tenant.writer.apply(envelope([randomNode(random)]), clock);
    }
    if (random() < 0.25 && step < steps - 1) continue; // several writes between two passes, sometimes

    if (forks && tenant.lastSearch) {
      // Writes not analysed yet, laid over the live graph without taking them (the gate's "before" while
      // ingest runs): the same as a fresh compile of the graph as it is now.
      const pending = tenant.writer.changes.peek();
      const now = pending
        ? await searchPatched(tenant.live, tenant.lastSearch, tenantSource(tenant.graph), pending, {
            finder,
            seedIamUsers,
            identity: true,
          })
        : null;
      if (now) {
        const current = compileGraph(tenant.graph, { seedIamUsers });
        expect(readable(now.compiled, now.found), `seed ${seed}, step ${step}, pending`).toEqual(
          readable(current, bestPaths(current)),
        );
        tally.pending++;
      }
    }
    await runPass(tenant, deps);
    const pass = tenant.lastPass!;
    tally.passes++;
    if (!pass.rebuilt) tally.patched++;
    else tally.rebuilt++;
    if (pass.searchedRoots < pass.roots) tally.scoped++;

    const fresh = compileGraph(tenant.graph, { seedIamUsers });
    const expected = bestPaths(fresh);
    const live = tenant.live;
    const context = `seed ${seed}, step ${step}`;
    expect(readable(live, tenant.lastSearch!.found), context).toEqual(readable(fresh, expected));
    expect([live.liveNodes, live.liveEdges], context).toEqual([fresh.nodeCount, fresh.edgeCount]);
    const store = new PathStore({ p1: 0.5, p2: 0.1 });
    store.applyPass(fresh, expected, clock);
    expect(openRecords(tenant.paths), context).toEqual(openRecords(store));
    if (forks) await checkFork(tenant, random, seedIamUsers, context, tally);
  }
}

describe('incremental analysis (live compiled graph + pass scope)', () => {
  it('equals a from-scratch compile and search after every pass of 400 random write sequences', async () => {
    const tally: Tally = {
      passes: 0,
      patched: 0,
      scoped: 0,
      rebuilt: 0,
      forks: 0,
      forksScoped: 0,
      pending: 0,
    };
    for (let seed = 1; seed <= 400; seed++) await runSequence(seed, 30, tally);
    // The comparison is only worth something if the incremental ways were taken, and often.
    expect(tally.patched).toBeGreaterThan(tally.passes * 0.8);
    expect(tally.scoped).toBeGreaterThan(tally.passes * 0.2);
  }, 120_000);

  it('a patched fork of the live graph searches like a fresh compile of the changed graph (200 sequences)', async () => {
    const tally: Tally = {
      passes: 0,
      patched: 0,
      scoped: 0,
      rebuilt: 0,
      forks: 0,
      forksScoped: 0,
      pending: 0,
    };
    for (let seed = 1001; seed <= 1200; seed++) await runSequence(seed, 15, tally, true);
    expect(tally.forks).toBe(tally.passes);
    expect(tally.pending).toBeGreaterThan(tally.passes * 0.5);
    expect(tally.forksScoped).toBeGreaterThan(tally.forks * 0.2);
  }, 120_000);
});
