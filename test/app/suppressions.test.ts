// Suppressions through the service: a suppressed critical route no longer blocks the gate nor turns the
// pull request's status red, and does again once its TTL has passed (clock injected); posture, the
// critical-path metric and the path's own record follow the same one definition; viewers cannot suppress
// (403); a credential bound to an application sees and suppresses only that application's paths; every
// bad input is a problem naming the value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../app/github/pull-request.js';
import { recordingForge } from '../helpers/recording-forge.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { IMAGE, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { makeService, type TestService } from '../helpers/service.js';

const ADMIN = 'suppress-admin-token-0123456789';
const VIEWER = 'suppress-viewer-token-0123456789';
const SHOP_ADMIN = 'suppress-shop-admin-token-01234';
const DAY = 86_400_000;
let clock = Date.parse('2026-11-20T10:00:00Z');
let service: TestService;
let shopPath: string;
let billingPath: string;
/** Critical Attack Path events heard */
const events: string[] = [];

beforeAll(async () => {
  service = await makeService(
    { API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer,${SHOP_ADMIN}:admin::2030-01-01:shop` },
    { now: () => clock },
  );
  // shop-alb → checkout (runs the scanned image; app shop) → orders; shop-alb → billing-api (app billing) → ledger
  const lb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
  const web = node('Service', 'checkout', { app: 'shop' });
  const img = node('Image', 'acme/checkout:1.0', { resolve_ref: IMAGE });
  const db = node('Database', 'orders', { crown_jewel: true });
  const billing = node('Service', 'billing-api', { app: 'billing' });
  const ledger = node('Database', 'ledger', { crown_jewel: true });
  await service.ingest(
    envelope(
      [lb, web, img, db, billing, ledger, node('CVE', 'CVE-2021-44228', { kev: true })],
      [
        edge('ROUTES_TO', lb, web),
        edge('DEPENDS_ON', web, img),
        edge('HAS_PERMISSION', web, db, 0.9),
        edge('ROUTES_TO', lb, billing, 0.9),
        edge('CONNECTS_TO', billing, ledger, 0.9),
      ],
    ),
  );
  expect((await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' })).status).toBe(202);
  await service.settle();
  service.engine.onCriticalPath((event) => events.push(event.pathId));
  const state = service.engine.tenant('default')!;
  const byTarget = (name: string) =>
    state.paths.open().find((p) => state.graph.getNodeAttribute(p.targetId, 'name') === name)!.id;
  shopPath = byTarget('orders');
  billingPath = byTarget('ledger');
});
afterAll(() => service.dispose());

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) {
  const r = await service.apiApp.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, json: r.json(), type: r.headers['content-type'] };
}

/** The pull request's report: the image now ships log4shell, so the route to orders becomes critical. */
const gateKev = () =>
  call(
    'POST',
    '/gate/impact?sha=4f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
    ADMIN,
    trivyReport([LOW_CVE, KEV_CVE]),
  );

const target = {
  repo: { owner: 'acme', repo: 'checkout' },
  number: 7,
  sha: '4f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39',
};

async function gql(query: string) {
  const r = await call('POST', '/graphql', VIEWER, { query });
  expect(r.json.errors).toBeUndefined();
  return r.json.data;
}

async function criticalMetric(): Promise<number> {
  const text = (await service.tenantMetrics()).body;
  return Number(/service_analyzer_critical_paths\{tenant="default"\} (\d+)/.exec(text)?.[1]);
}

describe('suppressions', () => {
  it('a critical route blocks the gate and turns the status red before any suppression', async () => {
    const before = await gateKev();
    expect(before.json.verdict).toBe('blocked');
    expect(before.json.worsened.map((p: any) => p.id)).toContain(shopPath);
    const forge = recordingForge();
    expect((await reconcile(forge, target, before.json)).status).toBe('failure');
  });

  it('an admin suppresses it: the gate is clean, names the suppressed route, and the status is green', async () => {
    const made = await call('POST', '/suppressions', ADMIN, {
      pathId: shopPath,
      reason: 'accept-risk',
      owner: 'team-shop',
      note: 'WAF rule 942 in front of checkout',
      ttlDays: 7,
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      pathId: shopPath,
      reason: 'accept-risk',
      owner: 'team-shop',
      ttlDays: 7,
      state: 'active',
      expiresAt: new Date(clock + 7 * DAY).toISOString(),
      route: { start: 'shop-alb', target: 'orders' },
    });
    const after = await gateKev();
    expect(after.json.verdict).toBe('clean');
    expect(after.json.worsened.find((p: any) => p.id === shopPath)).toMatchObject({
      priority: 'P1',
      critical: false,
    });
    expect(after.json.suppressed).toEqual([
      expect.objectContaining({
        id: shopPath,
        start: 'shop-alb',
        target: 'orders',
        reason: 'accept-risk',
        owner: 'team-shop',
      }),
    ]);
    expect(after.json.reason).toContain('suppressed critical route');
    const forge = recordingForge();
    expect((await reconcile(forge, target, after.json)).status).toBe('success');
    expect(forge.statuses.at(-1)!.state).toBe('success');
  });

  it('the path keeps its record with its suppression state; posture and the metric leave it out', async () => {
    // Make the live route critical too (the report reaches the estate), so posture has something to count.
    await service.ingest(trivyReport([LOW_CVE, KEV_CVE]), { source: 'trivy' });
    await service.settle();
    // The route became P1 while suppressed: no Critical Attack Path event for it.
    expect(service.engine.tenant('default')!.paths.get(shopPath)!.priority).toBe('P1');
    expect(events).not.toContain(shopPath);
    const data = await gql(
      `{ attackPath(id: "${shopPath}") { id priority critical suppression { reason owner state expiresAt } } posture { criticalPaths suppressedCriticalPaths } }`,
    );
    expect(data.attackPath).toMatchObject({
      id: shopPath,
      priority: 'P1',
      critical: false,
      suppression: { reason: 'accept-risk', owner: 'team-shop', state: 'active' },
    });
    const p1 = service.engine
      .tenant('default')!
      .paths.open()
      .filter((p) => p.priority === 'P1').length;
    expect(data.posture.suppressedCriticalPaths).toBe(1);
    expect(data.posture.criticalPaths).toBe(p1 - 1);
    expect(await criticalMetric()).toBe(p1 - 1);
    // The pass's trend point (GraphQL history) counts critical paths the same way.
    const { history } = await gql('{ history { trend { criticalPaths } } }');
    expect(history.trend.at(-1).criticalPaths).toBe(p1 - 1);
  });

  it('after its TTL the suppression is expired: still on the board, and the route counts again everywhere', async () => {
    clock += 7 * DAY;
    const board = await call('GET', '/suppressions', VIEWER);
    expect(board.json.suppressions).toEqual([
      expect.objectContaining({ pathId: shopPath, state: 'expired' }),
    ]);
    const gated = await gateKev();
    // The live route already carries the CVE now: the report changes nothing, so assert on the live state.
    const data = await gql(
      `{ attackPath(id: "${shopPath}") { critical suppression { state } } posture { criticalPaths suppressedCriticalPaths } }`,
    );
    expect(data.attackPath).toEqual({ critical: true, suppression: { state: 'expired' } });
    expect(data.posture.suppressedCriticalPaths).toBe(0);
    expect(await criticalMetric()).toBe(data.posture.criticalPaths);
    expect(gated.json.suppressed).toBeUndefined();
  });

  it('and an expired suppression no longer spares a route the gate sees worsened', async () => {
    // Back to the low-CVE image live; suppress for one day; let it lapse; the KEV report blocks again.
    await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' });
    await service.settle();
    expect(
      (
        await call('POST', '/suppressions', ADMIN, {
          pathId: shopPath,
          reason: 'mitigating-control',
          owner: 'team-shop',
          ttlDays: 1,
        })
      ).status,
    ).toBe(200);
    expect((await gateKev()).json.verdict).toBe('clean');
    clock += DAY - 1;
    expect((await gateKev()).json.verdict).toBe('clean');
    clock += 1;
    const lapsed = await gateKev();
    expect(lapsed.json.verdict).toBe('blocked');
    const forge = recordingForge();
    expect((await reconcile(forge, target, lapsed.json)).status).toBe('failure');
  });

  it('a viewer cannot suppress nor delete (403), and nothing is stored', async () => {
    const denied = await call('POST', '/suppressions', VIEWER, {
      pathId: billingPath,
      reason: 'accept-risk',
      owner: 'me',
    });
    expect(denied.status).toBe(403);
    expect(denied.type).toContain('application/problem+json');
    expect((await call('DELETE', `/suppressions/${shopPath}`, VIEWER)).status).toBe(403);
    const board = await call('GET', '/suppressions', ADMIN);
    expect(board.json.suppressions.map((s: any) => s.pathId)).toEqual([shopPath]);
  });

  it('an app-scoped admin sees and suppresses only its application’s paths', async () => {
    const other = await call('POST', '/suppressions', SHOP_ADMIN, {
      pathId: billingPath,
      reason: 'duplicate',
      owner: 'shop',
    });
    expect(other.status).toBe(404);
    expect(other.json.errors[0]).toMatchObject({ pointer: '/pathId', value: billingPath });
    const unscoped = await call('POST', '/suppressions', ADMIN, {
      pathId: billingPath,
      reason: 'false-positive',
      owner: 'team-billing',
    });
    expect(unscoped.status).toBe(201);
    const board = await call('GET', '/suppressions', SHOP_ADMIN);
    expect(board.json.suppressions.map((s: any) => s.pathId)).toEqual([shopPath]);
    expect((await call('DELETE', `/suppressions/${billingPath}`, SHOP_ADMIN)).status).toBe(404);
    const mine = await call('POST', '/suppressions', SHOP_ADMIN, {
      pathId: shopPath,
      reason: 'accept-risk',
      owner: 'shop',
      ttlDays: 3,
    });
    expect(mine.status).toBe(200);
    expect(mine.json.replaced).toBe(true);
  });

  it('bad input is a problem naming the value: unknown path 404, bad reason 400, missing owner, bad ttl', async () => {
    const unknown = await call('POST', '/suppressions', ADMIN, {
      pathId: 'ap-0000000000000000',
      reason: 'accept-risk',
      owner: 'x',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toContain('ap-0000000000000000');
    const reason = await call('POST', '/suppressions', ADMIN, {
      pathId: shopPath,
      reason: 'wont-fix',
      owner: 'x',
    });
    expect(reason.status).toBe(400);
    expect(reason.type).toContain('application/problem+json');
    expect(reason.json.errors[0]).toMatchObject({ pointer: '/reason', value: 'wont-fix' });
    expect(reason.json.detail).toContain('"wont-fix"');
    const owner = await call('POST', '/suppressions', ADMIN, { pathId: shopPath, reason: 'accept-risk' });
    expect(owner.status).toBe(400);
    expect(owner.json.errors[0].pointer).toBe('/owner');
    const ttl = await call('POST', '/suppressions', ADMIN, {
      pathId: shopPath,
      reason: 'accept-risk',
      owner: 'x',
      ttlDays: 0,
    });
    expect(ttl.status).toBe(400);
    expect(ttl.json.errors[0]).toMatchObject({ pointer: '/ttlDays', value: 0 });
    const state = await call('GET', '/suppressions?state=lapsed', ADMIN);
    expect(state.status).toBe(400);
    expect(state.json.errors[0].value).toBe('lapsed');
    expect((await call('DELETE', '/suppressions/ap-0000000000000000', ADMIN)).status).toBe(404);
    // Nothing stored was lost by the refusals.
    expect((await call('GET', '/suppressions', ADMIN)).json.suppressions).toHaveLength(2);
  });

  it('delete un-suppresses; the board survives a restart (file backend, loaded on start)', async () => {
    const removed = await call('DELETE', `/suppressions/${billingPath}`, ADMIN);
    expect(removed.status).toBe(200);
    expect(removed.json.removed.pathId).toBe(billingPath);
    await service.close();
    const again = await makeService(
      { API_TOKENS: `${ADMIN}:admin` },
      { dataDir: service.dataDir, now: () => clock },
    );
    try {
      const board = await again.apiApp.inject({
        method: 'GET',
        url: '/suppressions',
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(board.json().suppressions.map((s: any) => s.pathId)).toEqual([shopPath]);
      expect(again.governance.suppression('default', shopPath, clock)).toMatchObject({
        reason: 'accept-risk',
      });
    } finally {
      await again.dispose({ keepData: true });
    }
  });
});
