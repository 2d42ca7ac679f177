import { afterAll, describe, expect, it } from 'vitest';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { runPass, type AnalyzerConfig } from '../../src/engine/analyzer.js';
import { findEdge } from '../../src/graph/model.js';
import type { TenantState } from '../../src/engine/tenant.js';
import { routeNodes, routeSteps, priorityOf } from '../../src/paths/path-store.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { passDeps, testTenant } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());

function setup(config: Partial<AnalyzerConfig> = {}) {
  let clock = 1_000_000;
  const tenant = testTenant({ parkedTtlMs: 1e9 });
  const deps = passDeps(finder, () => clock, config);
  return {
    tenant,
    metrics: deps.metrics,
    write: (env: ReturnType<typeof envelope>) => tenant.writer.apply(env, clock),
    pass: () => runPass(tenant, deps),
    advance: (ms: number) => (clock += ms),
  };
}

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const app = node('Service', 'checkout');
const db = node('Database', 'orders-db', { crown_jewel: true });

describe('analyzer pass', () => {
  it('finds the best path, scores it as the product of hop probabilities and records nodes and steps', async () => {
    const s = setup();
    s.write(envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.5)]));
    await s.pass();
    const [path] = s.tenant.paths.open();
    expect(path.score).toBeCloseTo(0.45, 12);
    expect(path.priority).toBe('P2');
    expect(routeNodes(path).map((n) => n.name)).toEqual(['public-lb', 'checkout', 'orders-db']);
    expect(routeSteps(path)).toEqual([
      { from: lb.id, to: app.id, type: 'ROUTES_TO', probability: 0.9, weightBasis: 'heuristic' },
      { from: app.id, to: db.id, type: 'HAS_PERMISSION', probability: 0.5, weightBasis: 'heuristic' },
    ]);
  });

  it('prices hops without an explicit probability from the one table', async () => {
    const s = setup();
    s.write(envelope([lb, app, db], [edge('ROUTES_TO', lb, app), edge('HAS_PERMISSION', app, db)]));
    await s.pass();
    expect(routeSteps(s.tenant.paths.open()[0]).map((x) => x.probability)).toEqual([0.9, 0.6]);
  });

  it('opens, resolves and reopens a path, keeping its id and first_seen', async () => {
    const s = setup();
    s.write(envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.9)]));
    await s.pass();
    const [opened] = s.tenant.paths.open();
    const firstSeen = opened.firstSeen;
    expect(opened).toMatchObject({ state: 'open', reopens: 0 });

    s.advance(60_000);
    s.tenant.graph.dropEdge(findEdge(s.tenant.graph, 'HAS_PERMISSION', app.id, db.id)!);
    s.tenant.writer.touch();
    await s.pass();
    expect(s.tenant.paths.open()).toHaveLength(0);
    const resolved = s.tenant.paths.get(opened.id)!;
    expect(resolved).toMatchObject({ state: 'resolved', resolvedAt: 1_060_000 });
    // A resolved path keeps the route it had, for the record.
    expect(routeNodes(resolved).map((n) => n.name)).toEqual(['public-lb', 'checkout', 'orders-db']);

    s.advance(60_000);
    s.write(envelope([], [edge('HAS_PERMISSION', app, db, 0.9)]));
    await s.pass();
    const reopened = s.tenant.paths.get(opened.id)!;
    expect(reopened).toMatchObject({ state: 'open', reopens: 1, firstSeen, openedAt: 1_120_000 });
  });

  it('does not run again when the graph did not change', async () => {
    const s = setup();
    s.write(envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9)]));
    await s.pass();
    expect(s.tenant.stale).toBe(false);
    s.write(envelope([lb, app]));
    expect(s.tenant.stale).toBe(false);
  });

  it('reports a public_access target as a direct-access path: no steps, score 1, P1', async () => {
    const s = setup();
    const bucket = node('Bucket', 'exports', { crown_jewel: true, public_access: true });
    s.write(envelope([bucket]));
    await s.pass();
    const [path] = s.tenant.paths.open();
    expect(path).toMatchObject({ directAccess: true, score: 1, priority: 'P1' });
    expect(routeSteps(path)).toEqual([]);
    expect(routeNodes(path).map((n) => n.name)).toEqual(['exports']);
  });

  it('counts an internet-exposed target only when an edge reaches it', async () => {
    const s = setup();
    const exposedDb = node('Database', 'public-db', { crown_jewel: true, internet_exposed: true });
    s.write(envelope([exposedDb]));
    await s.pass();
    expect(s.tenant.paths.open()).toHaveLength(0);
    s.write(envelope([lb, exposedDb], [edge('CONNECTS_TO', lb, exposedDb, 0.4)]));
    await s.pass();
    const open = s.tenant.paths.open();
    expect(open).toHaveLength(1);
    expect(open[0].startId).toBe(lb.id);
  });

  it('has no paths without a marker on either side', async () => {
    const s = setup();
    s.write(
      envelope(
        [node('Service', 'a'), node('Database', 'b')],
        [edge('CONNECTS_TO', node('Service', 'a'), node('Database', 'b'))],
      ),
    );
    await s.pass();
    expect(s.tenant.paths.open()).toHaveLength(0);
  });

  it('adds IAM users marked credential_exposed as starts only under SEED_IAM_USERS', async () => {
    const user = node('User', 'ci-bot', { credential_exposed: true });
    const role = node('IAM_Role', 'deployer');
    const estate = envelope(
      [user, role, db],
      [edge('ASSUMES', user, role, 0.8), edge('HAS_PERMISSION', role, db, 0.8)],
    );
    const off = setup();
    off.write(estate);
    await off.pass();
    expect(off.tenant.paths.open()).toHaveLength(0);
    const on = setup({ seedIamUsers: true });
    on.write(estate);
    await on.pass();
    expect(on.tenant.paths.open().map((p) => p.startId)).toEqual([user.id]);
  });

  it('sets the critical-path gauge and counts passes', async () => {
    const s = setup();
    s.write(envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.9)]));
    await s.pass();
    const text = await s.metrics.registry.metrics();
    expect(text).toContain('service_analyzer_critical_paths{tenant="t"} 1');
    expect(text).toContain('service_analyzer_passes_total{tenant="t"} 1');
    expect(text).toMatch(/service_analyzer_pass_seconds_count\{tenant="t"\} 1/);
  });
});

describe('priorityOf', () => {
  it.each([
    [0.5, false, 'P1'],
    [0.49, false, 'P2'],
    [0.1, false, 'P2'],
    [0.099, false, 'P3'],
    [0.01, true, 'P1'],
  ] as const)('score %s direct %s -> %s', (score, direct, expected) => {
    expect(priorityOf(score, direct, { p1: 0.5, p2: 0.1 })).toBe(expected);
  });
});

describe('when a scheduled pass is due', () => {
  /** A tenant whose graph changed and that never had a pass. */
  function staleTenant(): TenantState {
    const tenant = testTenant({ parkedTtlMs: 1e9 });
    tenant.writer.apply(envelope([lb]), 0);
    return tenant;
  }

  it('waits for a quiet moment in the writes, but not longer than the maximum wait', () => {
    const tenant = staleTenant();
    tenant.lastWriteAt = 10_000;
    expect(tenant.due(10_500, 1000, 300_000)).toBe(false);
    expect(tenant.due(11_000, 1000, 300_000)).toBe(true);
    // Writes keep coming, always 10 ms ago: the pass still runs once the last pass is the maximum wait old.
    tenant.lastWriteAt = 199_990;
    expect(tenant.due(200_000, 1000, 300_000)).toBe(false);
    tenant.lastWriteAt = 299_990;
    expect(tenant.due(300_000, 1000, 300_000)).toBe(true);
  });

  it('counts an ingest request still being received as a write in progress', () => {
    const tenant = staleTenant();
    tenant.lastWriteAt = 10_000;
    // A report started arriving at 10.2 s and is still being parsed at 12 s: no pass yet.
    expect(tenant.due(12_000, 1000, 300_000, { receiving: 1, lastAt: 10_200 })).toBe(false);
    // It was answered at 12.5 s: quiet again from there.
    expect(tenant.due(13_000, 1000, 300_000, { receiving: 0, lastAt: 12_500 })).toBe(false);
    expect(tenant.due(13_500, 1000, 300_000, { receiving: 0, lastAt: 12_500 })).toBe(true);
    // The maximum wait still bounds it.
    expect(tenant.due(300_000, 1000, 300_000, { receiving: 3, lastAt: 299_999 })).toBe(true);
  });

  it('measures the maximum wait of a tenant that never had a pass from its first write', () => {
    const tenant = staleTenant();
    const t0 = Date.parse('2026-11-22T10:00:00Z');
    tenant.firstWriteAt = t0;
    tenant.lastWriteAt = t0 + 2_000;
    // A new estate still streaming in (epoch clock): no pass on its first part.
    expect(tenant.due(t0 + 2_010, 1000, 60_000, { receiving: 1, lastAt: t0 + 2_005 })).toBe(false);
    expect(tenant.due(t0 + 60_000, 1000, 60_000, { receiving: 1, lastAt: t0 + 59_990 })).toBe(true);
  });

  it('analyses a small change at the interval, quiet or not, once the live graph can patch it', async () => {
    const tenant = staleTenant();
    const patched = { everyMs: 250, seedIamUsers: false };
    // Never analysed: nothing to patch, so the quiet moment (or the maximum wait) decides.
    tenant.lastWriteAt = 10_000;
    expect(tenant.due(10_100, 1000, 300_000, { receiving: 1, lastAt: 10_050 }, patched)).toBe(false);
    await runPass(
      tenant,
      passDeps(finder, () => 11_000),
    );
    // One more write while a report is still streaming in: a patch, so the interval decides.
    tenant.writer.apply(envelope([node('Service', 'b')]), 11_100);
    tenant.lastWriteAt = 11_100;
    const busy = { receiving: 1, lastAt: 11_190 };
    expect(tenant.due(11_200, 1000, 300_000, busy, patched)).toBe(false);
    expect(tenant.due(11_250, 1000, 300_000, busy, patched)).toBe(true);
    // Without the rule, it waits for the quiet moment as before.
    expect(tenant.due(11_250, 1000, 300_000, busy)).toBe(false);
  });
});
