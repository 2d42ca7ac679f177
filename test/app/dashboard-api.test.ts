// The API the dashboard's last pages read (issue 33): a path's applications and the application filter,
// the gate verdicts listing, a node's neighbourhood, and the audit log for admins; each tenant- and
// scope-checked, each bad value answered with the value named.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathFilter } from '../../src/auth/scope.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const ADMIN = 'admin-token-0123456789abcdef';
const VIEWER = 'viewer-token-0123456789abcdef';
const SHOP = 'shop-token-0123456789abcdef';
const SHOP_ADMIN = 'shop-admin-token-0123456789ab';
const OTHER = 'other-tenant-token-0123456789';

let svc: TestService;
let clock = Date.parse('2026-11-20T10:00:00Z');

const lb = (n: number) => node('LoadBalancer', `lb-${n}`, { internet_exposed: true });
const db = (n: number) => node('Database', `db-${n}`, { crown_jewel: true });
const shopWeb = node('Service', 'shop-web', { app: 'shop' });
const billingApi = node('Service', 'billing-api', { app: 'billing' });
const shared = node('Service', 'shared-gw', { apps: ['shop', 'billing'] });
const orphan = node('Service', 'orphan');

async function gql(query: string, token: string | null = ADMIN, variables: Record<string, unknown> = {}) {
  const response = await svc.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    payload: JSON.stringify({ query, variables }),
  });
  return response.json() as { data?: any; errors?: { message: string }[] };
}

async function get(url: string, token: string | null) {
  const response = await svc.apiApp.inject({
    method: 'GET',
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.statusCode, json: response.json() as any };
}

beforeAll(async () => {
  // AUDIT_LOG_PATH inside the service's own DATA_DIR
  const dataDir = await tempDir();
  svc = await makeService(
    {
      API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer,${SHOP}:viewer::2099-12-31:shop,${SHOP_ADMIN}:admin::2099-12-31:shop,${OTHER}:admin:other`,
      AUDIT_LOG_PATH: path.join(dataDir, 'audit.log'),
    },
    { dataDir, now: () => clock },
  );
  const nodes = [lb(1), lb(2), lb(3), lb(4), db(1), db(2), db(3), db(4), shopWeb, billingApi, shared, orphan];
  const repos = [
    node('Repository', 'github.com/acme/shop', { app: 'shop' }),
    node('Repository', 'github.com/acme/billing', { app: 'billing' }),
  ];
  const status = await svc.ingest(
    envelope(
      [...nodes, ...repos],
      [
        edge('ROUTES_TO', lb(1), shopWeb, 0.9),
        edge('HAS_PERMISSION', shopWeb, db(1), 0.9),
        edge('ROUTES_TO', lb(2), billingApi, 0.9),
        edge('HAS_PERMISSION', billingApi, db(2), 0.9),
        edge('ROUTES_TO', lb(3), shared, 0.9),
        edge('HAS_PERMISSION', shared, db(3), 0.9),
        edge('ROUTES_TO', lb(4), orphan, 0.9),
        edge('HAS_PERMISSION', orphan, db(4), 0.9),
      ],
    ),
  );
  expect(status.status).toBe(202);
  await svc.settle();
});

afterAll(async () => {
  await svc.dispose();
});

describe('AttackPath.applications and the application filter', () => {
  it('names the applications of each route, and filters exactly as a credential scoped to one sees', async () => {
    const all = await gql('{ attackPaths { id start { name } applications } }');
    const byStart = Object.fromEntries(
      (all.data.attackPaths as any[]).map((p) => [p.start.name, p.applications]),
    );
    expect(byStart).toEqual({
      'lb-1': ['shop'],
      'lb-2': ['billing'],
      'lb-3': ['billing', 'shop'],
      'lb-4': [],
    });
    const filtered = await gql(
      '{ attackPathsConnection(application: "shop") { totalCount edges { node { id start { name } } } } }',
    );
    const names = filtered.data.attackPathsConnection.edges.map((e: any) => e.node.start.name).sort();
    expect(names).toEqual(['lb-1', 'lb-3']);
    expect(filtered.data.attackPathsConnection.totalCount).toBe(2);
    // the same answer as the token scoped to shop, and as the scope module's own filter
    const scoped = await gql('{ attackPaths { id } }', SHOP);
    expect(scoped.data.attackPaths.map((p: any) => p.id).sort()).toEqual(
      filtered.data.attackPathsConnection.edges.map((e: any) => e.node.id).sort(),
    );
    const tenant = svc.engine.tenant('default')!;
    const visible = pathFilter(
      { subject: 't', role: 'viewer', anonymous: false, apps: ['shop'] },
      tenant.graph,
    );
    expect(tenant.paths.open().filter(visible).length).toBe(2);
    const list = await gql('{ attackPaths(application: "billing") { start { name } } }');
    expect(list.data.attackPaths.map((p: any) => p.start.name).sort()).toEqual(['lb-2', 'lb-3']);
    // an application nobody names: nothing, not an error
    expect((await gql('{ attackPaths(application: "nobody") { id } }')).data.attackPaths).toEqual([]);
  });

  it('refuses an application that is no application name, naming it', async () => {
    const bad = await gql('{ attackPaths(application: "shop;drop") { id } }');
    expect(bad.errors?.[0].message).toMatch(/application must be an application name.*"shop;drop"/);
  });
});

describe('gateVerdicts', () => {
  const SHAS = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40), 'd'.repeat(40)];
  beforeAll(async () => {
    const record = async (sha: string, slug: string | undefined, at: string) => {
      clock = Date.parse(at);
      await svc.engine.gateImpact(
        { tenant: 'default', body: {}, query: { sha, ...(slug && { slug }) }, attribution: 'report' },
        { persist: true },
      );
    };
    await record(SHAS[0], 'acme/shop', '2026-11-20T11:00:00Z');
    await record(SHAS[1], 'acme/billing', '2026-11-20T12:00:00Z');
    await record(SHAS[2], 'acme/shop', '2026-11-20T13:00:00Z');
    await record(SHAS[3], undefined, '2026-11-20T14:00:00Z');
  });

  it('lists every commit newest first and pages with first/after', async () => {
    const q = `query($after: String) { gateVerdicts(first: 3, after: $after) {
      totalCount edges { cursor node { sha slug verdict decidedAt } } pageInfo { hasNextPage endCursor } } }`;
    const one = (await gql(q)).data.gateVerdicts;
    expect(one.totalCount).toBe(4);
    expect(one.edges.map((e: any) => e.node.sha)).toEqual([SHAS[3], SHAS[2], SHAS[1]]);
    expect(one.pageInfo).toEqual({ hasNextPage: true, endCursor: SHAS[1] });
    const two = (await gql(q, ADMIN, { after: one.pageInfo.endCursor })).data.gateVerdicts;
    expect(two.edges.map((e: any) => e.node.sha)).toEqual([SHAS[0]]);
    expect(two.pageInfo.hasNextPage).toBe(false);
  });

  it('filters by repository and keeps the latest of each', async () => {
    const shop = await gql('{ gateVerdicts(repository: "ACME/shop") { edges { node { sha } } } }');
    expect(shop.data.gateVerdicts.edges.map((e: any) => e.node.sha)).toEqual([SHAS[2], SHAS[0]]);
    const latest = await gql('{ gateVerdicts(latestPerRepository: true) { edges { node { sha slug } } } }');
    expect(latest.data.gateVerdicts.edges.map((e: any) => e.node.slug)).toEqual([
      'acme/shop',
      'acme/billing',
    ]);
    expect(latest.data.gateVerdicts.edges[0].node.sha).toBe(SHAS[2]);
  });

  it('shows a scoped credential its applications’ repositories only, and another tenant nothing', async () => {
    const shop = await gql('{ gateVerdicts { edges { node { slug } } } }', SHOP);
    expect(shop.data.gateVerdicts.edges.map((e: any) => e.node.slug)).toEqual(['acme/shop', 'acme/shop']);
    const other = await gql('{ gateVerdicts { totalCount } }', OTHER);
    expect(other.data.gateVerdicts.totalCount).toBe(0);
  });

  it('answers prVerdict to a scoped credential for its applications’ repositories only, as gateVerdicts lists', async () => {
    const one = (sha: string, token: string) =>
      gql(`{ prVerdict(sha: "${sha}") { sha slug } }`, token).then((r) => r.data.prVerdict);
    expect(await one(SHAS[2], SHOP)).toEqual({ sha: SHAS[2], slug: 'acme/shop' });
    // another application's repository, and a verdict naming no repository: as unknown as a commit never gated
    expect(await one(SHAS[1], SHOP)).toBeNull();
    expect(await one(SHAS[3], SHOP)).toBeNull();
    expect(await one(SHAS[1], ADMIN)).toEqual({ sha: SHAS[1], slug: 'acme/billing' });
  });

  it('names a bad page size, repository or cursor', async () => {
    expect((await gql('{ gateVerdicts(first: 0) { totalCount } }')).errors?.[0].message).toMatch(
      /first must be 1 to 500, got 0/,
    );
    expect((await gql('{ gateVerdicts(first: 501) { totalCount } }')).errors?.[0].message).toMatch(/got 501/);
    expect(
      (await gql('{ gateVerdicts(repository: "no slash") { totalCount } }')).errors?.[0].message,
    ).toMatch(/repository must be owner\/name, got "no slash"/);
    expect((await gql('{ gateVerdicts(after: "feedface") { totalCount } }')).errors?.[0].message).toMatch(
      /cursor "feedface" names no verdict/,
    );
  });
});

describe('neighbourhood', () => {
  it('answers the nodes within depth hops and the edges between them, bounded by the limit', async () => {
    const q = `query($id: ID!, $depth: Int, $limit: Int) { neighbourhood(nodeId: $id, depth: $depth, limit: $limit) {
      center { name } depth truncated nodes { name distance degree } edges { from to type } } }`;
    const one = (await gql(q, ADMIN, { id: shared.id, depth: 1 })).data.neighbourhood;
    expect(one.center.name).toBe('shared-gw');
    expect(one.nodes[0]).toMatchObject({ name: 'shared-gw', distance: 0, degree: 2 });
    expect(one.nodes.slice(1).every((n: any) => n.distance === 1)).toBe(true);
    expect(
      one.nodes
        .slice(1)
        .map((n: any) => n.name)
        .sort(),
    ).toEqual(['db-3', 'lb-3']);
    expect(one.edges.map((e: any) => e.type).sort()).toEqual(['HAS_PERMISSION', 'ROUTES_TO']);
    expect(one.truncated).toBe(false);
    const capped = (await gql(q, ADMIN, { id: shared.id, depth: 1, limit: 2 })).data.neighbourhood;
    expect(capped.nodes).toHaveLength(2);
    expect(capped.truncated).toBe(true);
    expect(capped.nodes.find((n: any) => n.name === 'shared-gw').degree).toBe(2);
  });

  it('walks only a scoped credential’s applications, and null for a node it cannot see', async () => {
    const q = `query($id: ID!) { neighbourhood(nodeId: $id, depth: 3) { nodes { name } } }`;
    // the shop token reaches shop-web, but lb-1 and db-1 name no application: fail closed
    expect((await gql(q, SHOP, { id: shopWeb.id })).data.neighbourhood.nodes).toEqual([{ name: 'shop-web' }]);
    expect((await gql(q, SHOP, { id: billingApi.id })).data.neighbourhood).toBeNull();
    expect((await gql(q, OTHER, { id: shopWeb.id })).data.neighbourhood).toBeNull();
    expect((await gql(q, ADMIN, { id: 'Service:0000000000000000' })).data.neighbourhood).toBeNull();
  });

  it('refuses a depth or a limit out of bounds, naming it', async () => {
    const q = (args: string) => gql(`{ neighbourhood(nodeId: "${shared.id}", ${args}) { depth } }`);
    expect((await q('depth: 0')).errors?.[0].message).toMatch(/depth must be 1 to 6, got 0/);
    expect((await q('depth: 7')).errors?.[0].message).toMatch(/depth must be 1 to 6, got 7/);
    expect((await q('limit: 5001')).errors?.[0].message).toMatch(/limit must be 1 to 5000, got 5001/);
  });
});

describe('GET /audit', () => {
  it('shows an admin the chain newest first, filtered by action, with its verification', async () => {
    await gql('{ attackPaths { id } }', ADMIN);
    const all = await get('/audit?first=5', ADMIN);
    expect(all.status).toBe(200);
    expect(all.json.chain).toMatchObject({ ok: true });
    expect(all.json.backend).toBe('file');
    const seqs = all.json.entries.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(all.json.entries).toHaveLength(5);
    expect(all.json.pageInfo.hasNextPage).toBe(true);
    const next = await get(`/audit?first=5&after=${all.json.pageInfo.endCursor}`, ADMIN);
    expect(next.json.entries[0].seq).toBeLessThan(all.json.pageInfo.endCursor);
    const views = await get('/audit?action=view.attack_paths', ADMIN);
    expect(views.json.entries.length).toBeGreaterThan(0);
    for (const e of views.json.entries) {
      expect(e.action).toBe('view.attack_paths');
      expect(e.actor).toMatch(/^token:/);
      expect(e.target).toMatch(/^\d+ paths?: ap-/);
      expect(Date.parse(e.at)).not.toBeNaN();
    }
  });

  it('keeps each tenant to its own records', async () => {
    await gql('{ attackPaths { id } }', OTHER);
    const other = await get('/audit', OTHER);
    expect(other.status).toBe(200);
    expect(other.json.entries.length).toBeGreaterThan(0);
    expect(other.json.entries.every((e: any) => e.tenant === 'other')).toBe(true);
    // the chain's verdict, without the count of every tenant's records
    expect(other.json.chain).toEqual({ ok: true });
    expect((await get('/audit', ADMIN)).json.chain.records).toBeGreaterThan(0);
    const mine = await get('/audit?first=500', ADMIN);
    expect(mine.json.entries.some((e: any) => e.tenant === 'other')).toBe(false);
  });

  it('refuses viewers, anonymous callers and application-scoped admins; names a bad action or page', async () => {
    expect((await get('/audit', VIEWER)).status).toBe(403);
    expect((await get('/audit', VIEWER)).json.detail).toMatch(/needs the admin role/);
    expect((await get('/audit', null)).status).toBe(401);
    const scoped = await get('/audit', SHOP_ADMIN);
    expect(scoped.status).toBe(403);
    expect(scoped.json.detail).toMatch(/not divided by application.*shop/);
    const bad = await get('/audit?action=view.everything', ADMIN);
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/"view.everything"/);
    expect((await get('/audit?first=0', ADMIN)).json.detail).toMatch(
      /first must be a whole number 1 to 500, got "0"/,
    );
  });
  it('says when the chain is broken', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const file = path.join(svc.dataDir, 'audit.log');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1].replace(/"ts":"[^"]+"/, '"ts":"2000-01-01T00:00:00.000Z"');
    writeFileSync(file, lines.join('\n'));
    const broken = await get('/audit', ADMIN);
    expect(broken.json.chain).toMatchObject({ ok: false, line: 2, problem: expect.stringMatching(/edited/) });
  });
});
