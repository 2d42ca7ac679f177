// ANALYZER_DB_PATHS, the spec's opt-in database path finder (src/db/db-path-finder.ts) over the graph store
// (src/db/graph-store.ts), against the in-process finder: seeded random writes with a pass after each (the
// store kept up to date from GraphChanges, staleness pruning removing nodes and edges), the demo estate,
// and each way the safe rails fall back (row limit, statement timeout, a stale store, an error).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { DbPathFinder, searchInDatabase, type DbPathsOptions } from '../../src/db/db-path-finder.js';
import { GraphStore } from '../../src/db/graph-store.js';
import { createDb, migrate, type Db } from '../../src/db/postgres.js';
import { runPass } from '../../src/engine/analyzer.js';
import type { TenantState } from '../../src/engine/tenant.js';
import { nodeId } from '../../src/graph/ids.js';
import { EDGE_TYPES } from '../../src/graph/vocabulary.js';
import { silentLog } from '../../src/log/logger.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { loadDemo } from '../../app/service.js';
import { envelope } from '../helpers/envelope.js';
import { prng, randomEdge, randomNode, readable } from '../helpers/random-estate.js';
import { describeWithServices, missingServices, schemaDsn, waitFor } from '../helpers/services.js';
import { makeService } from '../helpers/service.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const reason = await missingServices({ postgres: true });
const finder = createPathFinder({ threads: 1 });
const OPTIONS: DbPathsOptions = { timeoutMs: 30_000, rowLimit: 5_000_000 };

describeWithServices('ANALYZER_DB_PATHS: the database path finder', reason, () => {
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  let db: Db;
  beforeAll(async () => {
    schema = await schemaDsn('dbpaths');
    db = createDb(schema.dsn);
    await migrate(db);
  });
  afterAll(async () => {
    await finder.close();
    await db?.end();
    await schema?.drop();
  });

  /** A tenant whose passes search on PostgreSQL, with the metrics they count in. */
  function setup(name: string, options: DbPathsOptions = OPTIONS) {
    const metrics = createMetrics();
    const store = new GraphStore(db, silentLog());
    const dbPaths = new DbPathFinder(store, finder, {
      metrics,
      log: silentLog(),
      options,
      writes: () => true,
    });
    const tenant = testTenant();
    Object.defineProperty(tenant, 'name', { value: name });
    let clock = 1_000_000;
    const deps = { ...passDeps(finder, () => clock, { graphTtlMs: 50_000 }), metrics, dbPaths };
    return {
      tenant,
      store,
      metrics,
      dbPaths,
      pass: () => runPass(tenant, deps),
      advance: (ms: number) => (clock += ms),
      now: () => clock,
    };
  }

  async function counts(metrics: Metrics) {
    const searches = (await metrics.analyzerDbPathSearches.get()).values.reduce((a, v) => a + v.value, 0);
    const fallbacks = Object.fromEntries(
      (await metrics.analyzerDbPathFallbacks.get()).values.map((v) => [v.labels.reason, v.value]),
    );
    return { searches, fallbacks };
  }

  /** The pass's answer is exactly a full in-process search of the same compiled graph. */
  function expectInProcessAnswer(tenant: TenantState, context: string) {
    const g = tenant.live;
    expect(readable(g, tenant.lastSearch!.found), context).toEqual(readable(g, bestPaths(g)));
  }

  /** What the store holds for a tenant is exactly the compiled graph: its live nodes and edges, priced alike. */
  async function expectStoreHolds(tenant: TenantState, context: string) {
    const g = tenant.live;
    const edges = await db.query<{ key: string; units: string | null; p: number }>(
      'select key, units::text as units, p from graph_edges where tenant = $1 order by key',
      [tenant.name],
    );
    const expected: { key: string; units: string | null; p: number }[] = [];
    for (let v = 0; v < g.nodeCount; v++) {
      if (g.indexOf(g.nodeIds[v]) !== v) continue;
      for (let s = g.fStart[v]; s < g.fEnd[v]; s++) {
        const k = g.fEdges[s];
        const units = g.fUnits[s];
        expected.push({
          key: `${EDGE_TYPES[g.edgeType[k]]}|${g.nodeIds[v]}|${g.nodeIds[g.edgeTo[k]]}`,
          units: Number.isFinite(units) ? String(units) : null,
          p: g.edgeP[k],
        });
      }
    }
    expected.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    expect(edges.rows, context).toEqual(expected);
    const nodes = await db.query<{ n: string }>(
      'select count(*)::text as n from graph_nodes where tenant = $1',
      [tenant.name],
    );
    expect(Number(nodes.rows[0].n), context).toBe(g.liveNodes);
  }

  it('its results equal the in-process finder on random graphs: pairs, scores and routes, pass after pass', async () => {
    let checked = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const s = setup(`random${seed}`);
      const random = prng(seed);
      for (let step = 0; step < 16; step++) {
        const nodes = Array.from({ length: 2 + Math.floor(random() * 6) }, () => randomNode(random));
        const edges = Array.from({ length: 4 + Math.floor(random() * 12) }, () => randomEdge(random));
        // Endpoints are written with the edges, so none parks.
        const ids = new Set(nodes.map((n) => n.id));
        for (const e of edges)
          for (const id of [e.from, e.to])
            if (!ids.has(id)) {
              const label = id.slice(0, id.indexOf(':'));
              ids.add(id);
              nodes.push({ id, label: label as never, name: id, properties: {} });
            }
        s.tenant.writer.apply(envelope(nodes, edges), s.now());
        // Now and then long enough for GRAPH_TTL to prune what was not seen again: removals reach the store.
        s.advance(random() < 0.15 ? 60_000 : 1_000);
        await s.pass();
        const context = `seed ${seed}, step ${step}`;
        expectInProcessAnswer(s.tenant, context);
        await s.store.settle();
        await expectStoreHolds(s.tenant, context);
        checked += s.tenant.lastSearch!.found.length;
      }
      const { searches, fallbacks } = await counts(s.metrics);
      // Every pass searched on PostgreSQL and none fell back: the answers above are the database's.
      expect(searches).toBe(16);
      expect(fallbacks).toEqual({});
      expect(s.store.tenant(s.tenant.name).counts.incremental).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('its results equal the in-process finder on the demo estate', async () => {
    const service = await makeService();
    try {
      await loadDemo(service);
      await service.settle();
      const demo = service.engine.tenant('default')!;
      const g = demo.live;
      const store = new GraphStore(db, silentLog());
      store
        .tenant('demo')
        .capture(g, null, { rebuilt: true, rolesChanged: true, cheaper: [], dearer: [], changes: 0 });
      expect(await store.tenant('demo').current()).toBe(true);
      const fromDb = await searchInDatabase(db, 'demo', g, OPTIONS);
      const inProcess = bestPaths(g);
      expect(inProcess.length).toBeGreaterThan(5);
      expect(readable(g, fromDb)).toEqual(readable(g, inProcess));
      // The same from the other side of the search, and scoped to some roots.
      const roots = (g.targets.length <= g.starts.length ? g.targets : g.starts).slice(0, 2);
      expect(readable(g, await searchInDatabase(db, 'demo', g, OPTIONS, roots))).toEqual(
        readable(g, bestPaths(g, roots)),
      );
    } finally {
      await service.dispose();
    }
  });

  it('falls back to the in-process finder past the row limit, logged and counted; its answer is the same', async () => {
    const s = setup('rowlimit', { timeoutMs: 30_000, rowLimit: 3 });
    const lb = {
      id: nodeId('LoadBalancer', 'lb'),
      label: 'LoadBalancer' as const,
      name: 'lb',
      properties: { internet_exposed: true },
    };
    const svc = { id: nodeId('Service', 'svc'), label: 'Service' as const, name: 'svc', properties: {} };
    const dbn = {
      id: nodeId('Database', 'db'),
      label: 'Database' as const,
      name: 'db',
      properties: { crown_jewel: true },
    };
    s.tenant.writer.apply(
      envelope(
        [lb, svc, dbn],
        [
          { type: 'ROUTES_TO', from: lb.id, to: svc.id, exploit_probability: 0.9 },
          { type: 'CONNECTS_TO', from: svc.id, to: dbn.id, exploit_probability: 0.5 },
        ],
      ),
      s.now(),
    );
    await s.pass();
    expect(await counts(s.metrics)).toEqual({ searches: 1, fallbacks: { row_limit: 1 } });
    expect(s.tenant.paths.open()).toHaveLength(1);
    expectInProcessAnswer(s.tenant, 'row limit');
  });

  it('falls back on the statement timeout, on a stale store, and on an error', async () => {
    // A chain with shortcuts, long enough that the recursive query needs well over a millisecond.
    const s = setup('timeout', { timeoutMs: 1, rowLimit: 5_000_000 });
    const chain = Array.from({ length: 400 }, (_, i) => ({
      id: nodeId('Service', `s${i}`),
      label: 'Service' as const,
      name: `s${i}`,
      properties: { internet_exposed: i % 7 === 0, crown_jewel: i % 11 === 0 },
    }));
    const edges = chain.flatMap((n, i) => [
      ...(i + 1 < chain.length
        ? [{ type: 'CONNECTS_TO' as const, from: n.id, to: chain[i + 1].id, exploit_probability: 0.9 }]
        : []),
      ...(i + 5 < chain.length
        ? [{ type: 'CONNECTS_TO' as const, from: n.id, to: chain[i + 5].id, exploit_probability: 0.5 }]
        : []),
    ]);
    s.tenant.writer.apply(envelope(chain, edges), s.now());
    await s.pass();
    expect(await counts(s.metrics)).toEqual({ searches: 1, fallbacks: { timeout: 1 } });
    expectInProcessAnswer(s.tenant, 'timeout');

    // Stale: another writer moved the store on; this replica's next delta is refused, the pass falls back,
    // and the pass after rewrites the tenant in full and searches there again.
    const t = setup('stale');
    t.tenant.writer.apply(envelope(chain.slice(0, 30), edges.slice(0, 40)), t.now());
    await t.pass();
    await db.query("update graph_store_state set generation = generation + 100 where tenant = 'stale'");
    t.tenant.writer.apply(envelope([{ ...chain[3], properties: { crown_jewel: true } }]), t.now());
    t.advance(1_000);
    await t.pass();
    expect((await counts(t.metrics)).fallbacks).toEqual({ stale: 1 });
    expectInProcessAnswer(t.tenant, 'stale');
    t.tenant.writer.apply(envelope([{ ...chain[4], properties: { crown_jewel: true } }]), t.now());
    t.advance(1_000);
    await t.pass();
    expect(await counts(t.metrics)).toEqual({ searches: 3, fallbacks: { stale: 1 } });
    expectInProcessAnswer(t.tenant, 'after the full rewrite');
    await expectStoreHolds(t.tenant, 'after the full rewrite');

    // An error: the store's table is gone (in a schema of its own, so the others keep theirs).
    const other = await schemaDsn('dbpathserr');
    const broken: Db = createDb(other.dsn);
    try {
      await migrate(broken);
      const metrics = createMetrics();
      const store = new GraphStore(broken, silentLog());
      const dbPaths = new DbPathFinder(store, finder, {
        metrics,
        log: silentLog(),
        options: OPTIONS,
        writes: () => true,
      });
      const g = t.tenant.live;
      store
        .tenant('e')
        .capture(g, null, { rebuilt: true, rolesChanged: true, cheaper: [], dearer: [], changes: 0 });
      await store.settle();
      await broken.query('drop table graph_edges');
      const found = await dbPaths.find('e', g);
      expect(readable(g, found)).toEqual(readable(g, bestPaths(g)));
      expect(await counts(metrics)).toEqual({ searches: 1, fallbacks: { error: 1 } });
    } finally {
      await broken.end();
      await other.drop();
    }
  });

  it('a follower does not write the store and searches in-process', async () => {
    const metrics = createMetrics();
    const store = new GraphStore(db, silentLog());
    let leader = false;
    const dbPaths = new DbPathFinder(store, finder, {
      metrics,
      log: silentLog(),
      options: OPTIONS,
      writes: () => leader,
    });
    const tenant = testTenant();
    Object.defineProperty(tenant, 'name', { value: 'follower' });
    tenant.writer.apply(
      envelope([
        { id: nodeId('Database', 'x'), label: 'Database', name: 'x', properties: { crown_jewel: true } },
      ]),
      1,
    );
    await runPass(tenant, { ...passDeps(finder, () => 2), metrics, dbPaths });
    await store.settle();
    const rows = await db.query("select count(*)::int as n from graph_nodes where tenant = 'follower'");
    expect(rows.rows[0].n).toBe(0);
    expect(await counts(metrics)).toEqual({ searches: 0, fallbacks: {} });
    // Leading again after changes it never wrote: the tenant is rewritten in full, then searched there.
    leader = true;
    tenant.writer.apply(
      envelope(
        [
          {
            id: nodeId('LoadBalancer', 'y'),
            label: 'LoadBalancer',
            name: 'y',
            properties: { internet_exposed: true },
          },
        ],
        [
          {
            type: 'CONNECTS_TO',
            from: nodeId('LoadBalancer', 'y'),
            to: nodeId('Database', 'x'),
            exploit_probability: 0.4,
          },
        ],
      ),
      3,
    );
    await runPass(tenant, { ...passDeps(finder, () => 4), metrics, dbPaths });
    expect(store.tenant('follower').counts).toMatchObject({ full: 1, incremental: 0 });
    expect(await counts(metrics)).toEqual({ searches: 1, fallbacks: {} });
    expect(tenant.paths.open()).toHaveLength(1);
    // A follower again while the hop is repriced, then leading: the change it never wrote is not lost to
    // the store (a full rewrite, not a delta on top of rows that miss it).
    leader = false;
    const hop = {
      type: 'CONNECTS_TO' as const,
      from: nodeId('LoadBalancer', 'y'),
      to: nodeId('Database', 'x'),
    };
    tenant.writer.apply(envelope([], [{ ...hop, exploit_probability: 0.9 }]), 5);
    await runPass(tenant, { ...passDeps(finder, () => 6), metrics, dbPaths });
    leader = true;
    tenant.writer.apply(
      envelope([{ id: nodeId('Service', 'z'), label: 'Service', name: 'z', properties: {} }]),
      7,
    );
    await runPass(tenant, { ...passDeps(finder, () => 8), metrics, dbPaths });
    await store.settle();
    expect(store.tenant('follower').counts).toMatchObject({ full: 2, incremental: 0 });
    const stored = await db.query("select p from graph_edges where tenant = 'follower'");
    expect(stored.rows).toEqual([{ p: 0.9 }]);
    expect(await counts(metrics)).toEqual({ searches: 2, fallbacks: {} });
    expect(tenant.paths.open()[0].score).toBeCloseTo(0.9, 12);
  });

  it('with ANALYZER_DB_PATHS=true and DB_DSN the service searches on PostgreSQL and the store holds its graph', async () => {
    const own = await schemaDsn('dbpathssvc');
    const service = await makeService({
      DB_DSN: own.dsn,
      ANALYZER_DB_PATHS: 'true',
      LEADER_POLL_INTERVAL: '200ms',
    });
    try {
      // The embedded shape's leadership lock is shared with any other test process using DB_DSN: wait for it.
      await waitFor('leadership', () => service.engine.isLeader(), 30_000);
      const lb = {
        id: nodeId('LoadBalancer', 'edge'),
        label: 'LoadBalancer' as const,
        name: 'edge',
        properties: { internet_exposed: true },
      };
      const vault = {
        id: nodeId('Database', 'vault'),
        label: 'Database' as const,
        name: 'vault',
        properties: { crown_jewel: true },
      };
      expect(
        (
          await service.ingest(
            envelope(
              [lb, vault],
              [{ type: 'CONNECTS_TO', from: lb.id, to: vault.id, exploit_probability: 0.7 }],
            ),
          )
        ).status,
      ).toBe(202);
      await service.settle();
      const { attackPaths } = await service.graphql('{ attackPaths { score nodes { name } } }');
      expect(attackPaths).toEqual([{ score: 0.7, nodes: [{ name: 'edge' }, { name: 'vault' }] }]);
      const metrics = (await service.tenantMetrics()).body;
      expect(metrics).toMatch(/service_analyzer_db_path_searches_total\{tenant="default"\} [1-9]/);
      expect(metrics).not.toMatch(/service_analyzer_db_path_fallbacks_total\{/);
      const check = createDb(own.dsn);
      try {
        const rows = await check.query("select key, p from graph_edges where tenant = 'default'");
        expect(rows.rows).toEqual([{ key: `CONNECTS_TO|${lb.id}|${vault.id}`, p: 0.7 }]);
      } finally {
        await check.end();
      }
    } finally {
      await service.dispose();
      await own.drop();
    }
  });

  it('ANALYZER_DB_PATHS=true without DB_DSN is refused at start, naming both', async () => {
    await expect(makeService({ ANALYZER_DB_PATHS: 'true' })).rejects.toThrow(
      /ANALYZER_DB_PATHS=true needs DB_DSN/,
    );
  });
});
