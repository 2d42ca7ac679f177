// The access and tenancy attacks of the outside review (issue 13), each tried through the real listeners:
// cross-tenant reads by unbound callers, tenant names on the open /metrics, API_TOKENS that leave the API
// open, the percent-encoded /ai/* bypass, a viewer's gate verdicts, who the audit log names, probes under
// lockout and rate limits, the ingest source list, unbounded tenants, the v1 warning and app-scoped counts.
// docs/security.md ("Tested attacks") lists them.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS } from '../../src/audit/audit-log.js';
import { signV1, signV2 } from '../../src/auth/ingest-signature.js';
import { Lockout } from '../../src/auth/rate-limit.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import { startupRefusal } from '../helpers/settings.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));

const VIEWER = 'review-viewer-token-0123456789';
const OPERATOR = 'review-operator-token-0123456789';
const ACME = 'review-acme-token-0123456789';
const SHOP = 'review-shop-token-0123456789';
const TOKENS = [
  `${VIEWER}:viewer`,
  `${OPERATOR}:operator`,
  `${ACME}:viewer:acme`,
  `${SHOP}:viewer::2030-12-31:shop`,
].join(',');
const SECRET = 'review-ingest-secret-7f3a';
const NOW = Date.parse('2026-11-22T12:00:00Z');
const SHA = '4f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39';

let service: TestService | undefined;
let logs: string[] = [];
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  logs = [];
});

async function start(env: Record<string, string>, now = () => NOW): Promise<TestService> {
  const sink = new Writable({
    write(chunk, _e, done) {
      logs.push(String(chunk));
      done();
    },
  });
  service = await makeService(env, { now, logger: pino({ level: 'debug' }, sink) });
  return service;
}

async function api(
  s: TestService,
  url: string,
  o: { token?: string; tenant?: string; query?: string; body?: unknown; method?: string; ip?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.tenant) headers['x-tenant'] = o.tenant;
  if (o.ip) headers['x-forwarded-for'] = o.ip;
  const payload: string | undefined = o.query
    ? JSON.stringify({ query: o.query })
    : o.body === undefined
      ? undefined
      : JSON.stringify(o.body);
  const response = await s.apiApp.inject({
    method: (o.method ?? (payload ? 'POST' : 'GET')) as 'GET',
    url,
    headers,
    ...(payload !== undefined && { payload }),
  });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, json, body: response.body };
}

/** An internet-exposed route to a crown jewel, in `tenant`. */
async function estate(s: TestService, tenant: string, app?: string) {
  const lb = node('LoadBalancer', `${tenant}-edge`, { internet_exposed: true });
  const web = node('Service', `${tenant}-web`, app ? { app } : {});
  const db = node('Database', `${tenant}-orders`, { crown_jewel: true });
  const response = await s.ingest(
    envelope([lb, web, db], [edge('ROUTES_TO', lb, web, 0.5), edge('CONNECTS_TO', web, db, 0.5)]),
    { tenant },
  );
  expect(response.status).toBe(202);
}

const PATHS = '{ attackPaths { id nodes { name } } }';

describe('cross-tenant reads', () => {
  it('keeps anonymous callers, unbound tokens and the open /metrics to the default tenant', async () => {
    const s = await start({ API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer' });
    await estate(s, 'default');
    await estate(s, 'acme');
    await s.settle();
    // The review's repro: an anonymous viewer asking for acme.
    const anonymous = await api(s, '/graphql', { query: PATHS, tenant: 'acme' });
    expect(anonymous.status).toBe(403);
    expect(anonymous.json).toMatchObject({ type: 'urn:pathgate:problem:forbidden', reason: 'tenant' });
    expect(anonymous.json.detail).toContain('"acme"');
    const unbound = await api(s, '/graphql', { query: PATHS, token: VIEWER, tenant: 'acme' });
    expect(unbound.status).toBe(403);
    // Unbound callers still read the default tenant, with or without naming it.
    for (const o of [{}, { tenant: 'default' }, { token: VIEWER }]) {
      const own = await api(s, '/graphql', { query: PATHS, ...o });
      expect(own.json.data.attackPaths.map((p: any) => p.nodes[0].name)).toEqual(['default-edge']);
    }
    // A credential bound to acme reads acme.
    const bound = await api(s, '/graphql', { query: PATHS, token: ACME });
    expect(bound.json.data.attackPaths.map((p: any) => p.nodes[0].name)).toEqual(['acme-edge']);

    // /metrics on the API is open and unthrottled, and names no tenant: series are summed over tenants.
    const open = await api(s, '/metrics');
    expect(open.status).toBe(200);
    expect(open.body).not.toMatch(/tenant=/);
    expect(open.body).not.toContain('acme');
    expect(open.body).toMatch(/^service_graph_nodes 6$/m);
    expect(open.body).toMatch(/^service_analyzer_open_paths 2$/m);
    expect(open.body).toMatch(/^service_analyzer_pass_seconds_count 2$/m);
    // The METRICS_ADDR listener keeps the per-tenant series.
    const scraped = await s.tenantMetrics();
    expect(scraped.body).toContain('service_graph_nodes{tenant="acme"} 3');
    expect(scraped.body).toContain('service_graph_nodes{tenant="default"} 3');
  });
});

describe('settings that would leave the API open', () => {
  it('refuses API_TOKENS (or API_TOKENS_FILE) that yields no valid token, naming the setting, never a token', async () => {
    const tiny = 'tiny-secret';
    const refusal = startupRefusal({ API_TOKENS: `${tiny}:viewer,${VIEWER}:superuser` });
    expect(refusal).toMatch(
      /^API_TOKENS is set but yields no valid token \(entry 1 dropped: .*entry 2 dropped: role "superuser"/,
    );
    for (const secret of [tiny, VIEWER]) expect(refusal).not.toContain(secret);
    const dir = await tempDir('pathgate-tokens-');
    const file = path.join(dir, 'tokens');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, `${VIEWER}:root\n`);
    expect(startupRefusal({ API_TOKENS_FILE: file })).toMatch(
      /^API_TOKENS_FILE is set but yields no valid token/,
    );
    // One valid entry among bad ones starts (the bad ones are logged).
    expect(startupRefusal({ API_TOKENS: `${tiny}:viewer,${VIEWER}:viewer` })).toBe('started');
    // Blank is unset, as for every setting.
    expect(startupRefusal({ API_TOKENS: '  ' })).toBe('started');

    // The process itself: exit 78 (EX_CONFIG), one line naming the setting.
    let exit: { code: number; stderr: string } = { code: 0, stderr: '' };
    try {
      await run(process.execPath, ['--import', 'tsx', cli, 'serve'], {
        env: { ...process.env, API_TOKENS: `${VIEWER}:superuser`, DATA_DIR: path.join(dir, 'data') },
      });
    } catch (error) {
      exit = error as { code: number; stderr: string };
    }
    expect(exit.code).toBe(78);
    const lines = exit.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^pathgate: API_TOKENS is set but yields no valid token/);
    expect(exit.stderr).not.toContain(VIEWER);
  });
});

describe('the anonymous /ai/* guard', () => {
  it('judges the route, not the raw URL: a percent-encoded path is refused to anonymous callers', async () => {
    const s = await start({ API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer' });
    // A route that forgot to declare `ai`, and a parametric one: both are /ai/* routes.
    s.apiApp.get('/ai/explain', async () => ({ text: 'explained' }));
    s.apiApp.get('/ai/:topic/summary', async () => ({ text: 'summed up' }));
    for (const url of ['/ai/explain', '/%61i/explain', '/%61%69/explain', '/%61i/paths/summary']) {
      const anonymous = await api(s, url);
      expect({ url, status: anonymous.status, reason: anonymous.json?.reason }).toEqual({
        url,
        status: 403,
        reason: 'anonymous_ai',
      });
    }
    expect((await api(s, '/%61i/explain', { token: VIEWER })).json).toEqual({ text: 'explained' });
  });
});

describe("a viewer's merge gate", () => {
  it('evaluates for a viewer without recording the verdict; an operator records it and the PR hears of it', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    expect((await s.ingest(gateEstate())).status).toBe(202);
    expect((await s.ingest(trivyReport([LOW_CVE]), { source: 'trivy' })).status).toBe(202);
    await s.settle();
    const heard: string[] = [];
    s.engine.onVerdict(async ({ sha }) => {
      heard.push(sha ?? '');
    });
    const query = `source=trivy&slug=acme/checkout&pr=7&sha=${SHA}`;
    const prVerdict = async () =>
      (await api(s, '/graphql', { token: VIEWER, query: `{ prVerdict(sha: "${SHA}") { verdict } }` })).json
        .data.prVerdict;
    const asViewer = await api(s, `/gate/impact?${query}`, {
      token: VIEWER,
      body: trivyReport([LOW_CVE, KEV_CVE]),
    });
    expect(asViewer.status).toBe(200);
    expect(asViewer.json).toMatchObject({ verdict: 'blocked', recorded: false });
    expect(await prVerdict()).toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([]);
    const asOperator = await api(s, `/gate/impact?${query}`, {
      token: OPERATOR,
      body: trivyReport([LOW_CVE, KEV_CVE]),
    });
    expect(asOperator.json).toMatchObject({ verdict: 'blocked', recorded: true });
    expect(await prVerdict()).toEqual({ verdict: 'blocked' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([SHA]);
  });
});

describe('the audit log', () => {
  function records(file: string) {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  it('names the principal it refused, records accepted ingest, and writes views once per request', async () => {
    const file = path.join(await tempDir('pathgate-review-audit-'), 'audit.log');
    const s = await start({ API_TOKENS: TOKENS, AUDIT_LOG_PATH: file, INGEST_HMAC_SECRET: SECRET });
    // A viewer trying a write, and a viewer naming another tenant: refused, and named.
    s.apiApp.post('/test/write', { config: { access: 'write' } }, async () => ({ ok: true }));
    expect((await api(s, '/test/write', { token: VIEWER, body: {} })).status).toBe(403);
    expect((await api(s, '/graphql', { token: VIEWER, tenant: 'acme', query: PATHS })).status).toBe(403);
    const denied = records(file).filter((r) => r.event === 'auth.deny');
    expect(denied.map((r) => [r.subject, r.fields.reason, r.fields.role, r.fields.tenant_asked])).toEqual([
      [expect.stringMatching(/^token:[0-9a-f]{12}$/), 'not_admin', 'viewer', undefined],
      [expect.stringMatching(/^token:[0-9a-f]{12}$/), 'tenant', 'viewer', 'acme'],
    ]);

    // An accepted (signed) report.
    const body = JSON.stringify(
      envelope(
        [
          node('LoadBalancer', 'edge', { internet_exposed: true }),
          node('Database', 'db', { crown_jewel: true }),
        ],
        [edge('ROUTES_TO', node('LoadBalancer', 'edge'), node('Database', 'db'), 0.5)],
      ),
    );
    const timestamp = String(Math.floor(NOW / 1000));
    const ingest = await s.ingestApp.inject({
      method: 'POST',
      url: '/ingest/events',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'ingest7',
        'x-service-timestamp': timestamp,
        'x-service-signature-v2': signV2(SECRET, {
          timestamp,
          method: 'POST',
          path: '/ingest/events',
          rawQuery: '',
          body: Buffer.from(body),
        }),
      },
      payload: body,
    });
    expect(ingest.statusCode).toBe(202);
    const accepted = records(file).find((r) => r.event === 'ingest.accepted');
    expect(accepted).toMatchObject({
      subject: 'hmac:default',
      tenant: 'default',
      fields: {
        request_id: 'ingest7',
        surface: 'ingest',
        source: 'events',
        signature: 'v2',
        batch_id: ingest.json().batchId,
        nodes: 2,
        edges: 1,
      },
    });
    await s.settle();

    // Listing ids is a view of paths; reading their routes is a view of the graph. Aliases make one record.
    const before = records(file).length;
    const ids = await api(s, '/graphql', {
      token: VIEWER,
      query: '{ a: attackPaths { id } b: attackPaths { id } }',
    });
    const pathId = ids.json.data.a[0].id;
    const routes = await api(s, '/graphql', {
      token: VIEWER,
      query: '{ attackPath(id: "' + pathId + '") { nodes { name } steps { type } } }',
    });
    expect(routes.status).toBe(200);
    const written = records(file).slice(before);
    expect(written.map((r) => r.event)).toEqual([
      'view.attack_paths',
      'request',
      'view.attack_paths',
      'view.graph',
      'request',
    ]);
    expect(written[0].fields.path_ids).toEqual([pathId]);
    expect(written[3]).toMatchObject({ tenant: 'default', fields: { path_ids: [pathId] } });
  });

  it('lists in docs/security.md exactly the events the code writes', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Audit log'),
      doc.indexOf('\n## ', doc.indexOf('## Audit log') + 1),
    );
    const listed = section.slice(section.indexOf('Events:'), section.indexOf('With `STORE_ENCRYPTION_KEY`'));
    // Each bullet names its events before the colon: "- `export.oscal`, `export.ndjson`: ...".
    const named = [...listed.matchAll(/^- ([^:]+):/gm)].flatMap((m) =>
      [...m[1].matchAll(/`([a-z_.]+)`/g)].map((n) => n[1]),
    );
    expect(named.sort()).toEqual([...AUDIT_EVENTS].sort());
  });
});

describe('probes, lockout and rate limits', () => {
  it('answers /healthz and /metrics to a client that is locked out or over its rate', async () => {
    const s = await start({
      API_TOKENS: TOKENS,
      AUTH_LOCKOUT_THRESHOLD: '2',
      API_RATE_RPS: '1',
      INGEST_RATE_RPS: '1',
    });
    for (let i = 0; i < 2; i++)
      expect((await api(s, '/auth/me', { token: `wrong-guess-${i}-xxxxxxxx` })).status).toBe(401);
    expect((await api(s, '/auth/me', { token: VIEWER })).status).toBe(429);
    for (let i = 0; i < 5; i++) {
      expect((await api(s, '/healthz')).status).toBe(200);
      expect((await api(s, '/metrics')).status).toBe(200);
      expect((await s.ingestApp.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    }
    // Everything else from that client is still refused.
    expect((await api(s, '/graphql', { token: VIEWER, query: PATHS })).status).toBe(429);
  });

  it('bounds the lockout tables: at the cap, expired lockouts and then the oldest go', () => {
    const lockout = new Lockout({ threshold: 1, windowMs: 60_000, lockMs: 60_000, maxClients: 3 });
    for (let i = 0; i < 10; i++) expect(lockout.fail(`198.51.100.${i}`, NOW + i)).toBe(true);
    expect(lockout.size.locked).toBe(3);
    // The three most recent are still locked; the first seven made room.
    expect(lockout.lockedFor('198.51.100.9', NOW + 10)).toBeGreaterThan(0);
    expect(lockout.lockedFor('198.51.100.0', NOW + 10)).toBe(0);
    const failing = new Lockout({ threshold: 5, windowMs: 60_000, lockMs: 60_000, maxClients: 3 });
    for (let i = 0; i < 10; i++) failing.fail(`203.0.113.${i}`, NOW);
    expect(failing.size.failing).toBe(3);
  });
});

describe('ingest sources and tenants', () => {
  it('answers an unknown source 404 without listing the sources, and only after authentication', async () => {
    const open = await start({});
    const unknown = await open.ingest({}, { source: 'nosuch' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.type).toBe('urn:pathgate:problem:unknown-source');
    for (const source of ['trivy', 'semgrep', 'events', 'k8s'])
      expect(JSON.stringify(unknown.json)).not.toContain(source);
    await open.dispose();
    service = undefined;
    const signed = await start({ INGEST_HMAC_SECRET: SECRET });
    const stranger = await signed.ingest({}, { source: 'nosuch' });
    expect(stranger.status).toBe(401);
    const body = Buffer.from('{}');
    const known = await signed.ingestApp.inject({
      method: 'POST',
      url: '/ingest/nosuch',
      headers: { 'content-type': 'application/json', 'x-service-signature': signV1(SECRET, body) },
      payload: body,
    });
    expect(known.statusCode).toBe(404);
  });

  it('caps the tenants open ingest may create (MAX_TENANTS) and checks X-Tenant names', async () => {
    const s = await start({ MAX_TENANTS: '2' });
    const report = envelope([node('Service', 'web')]);
    expect((await s.ingest(report)).status).toBe(202);
    // Refused reports for new tenants hold no seat.
    for (const tenant of ['junk-1', 'junk-2', 'junk-3'])
      expect((await s.ingest({ junk: 1 }, { tenant })).status).toBe(400);
    expect((await s.ingest(report, { tenant: 'acme' })).status).toBe(202);
    const third = await s.ingest(report, { tenant: 'globex' });
    expect(third.status).toBe(403);
    expect(third.json).toMatchObject({ type: 'urn:pathgate:problem:tenant-limit', limit: 2 });
    expect(third.json.detail).toMatch(/"globex" would be tenant 3, and MAX_TENANTS allows 2/);
    // Existing tenants still take reports; nothing was created for globex.
    expect((await s.ingest(report, { tenant: 'acme' })).status).toBe(202);
    await s.settle();
    expect([...s.engine.tenants()].map((t) => t.name).sort()).toEqual(['acme', 'default']);
    const badName = await s.ingest(report, { tenant: '../Etc' });
    expect(badName.status).toBe(400);
    expect(badName.json.errors[0]).toMatchObject({ pointer: '/headers/x-tenant', value: '../Etc' });
    expect(startupRefusal({ MAX_TENANTS: '0' })).toMatch(
      /MAX_TENANTS="0" is not a whole number from 1 to 10000/,
    );
  });

  it('warns at start that v1 signatures can be replayed while they are accepted', async () => {
    await start({ INGEST_HMAC_SECRET: SECRET });
    const warned = logs.map((l) => JSON.parse(l)).filter((l) => /v1 signatures/.test(l.msg));
    expect(warned).toHaveLength(1);
    expect(warned[0].level).toBe(40);
    expect(warned[0].msg).toMatch(/replay/);
    expect(warned[0].msg).toContain('INGEST_HMAC_ACCEPT_V1=false');
    await service!.dispose();
    service = undefined;
    logs = [];
    await start({ INGEST_HMAC_SECRET: SECRET, INGEST_HMAC_ACCEPT_V1: 'false' });
    expect(logs.join('')).not.toMatch(/v1 signatures/);
  });
});

describe('app-scoped status', () => {
  it("counts only the graph of a token's applications in status.graph", async () => {
    const s = await start({ API_TOKENS: TOKENS });
    const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
    const shop = node('Service', 'shop-web', { app: 'shop' });
    const billing = node('Service', 'billing-api', { apps: ['billing'] });
    const orders = node('Database', 'orders', { crown_jewel: true, app: 'shop' });
    const ledger = node('Database', 'ledger', { crown_jewel: true });
    expect(
      (
        await s.ingest(
          envelope(
            [lb, shop, billing, orders, ledger],
            [
              edge('ROUTES_TO', lb, shop, 0.5),
              edge('ROUTES_TO', lb, billing, 0.5),
              edge('CONNECTS_TO', shop, orders, 0.5),
              edge('CONNECTS_TO', billing, ledger, 0.5),
            ],
          ),
        )
      ).status,
    ).toBe(202);
    await s.settle();
    const status = async (token: string) =>
      (await api(s, '/graphql', { token, query: '{ status { graph { nodes edges pendingEdges } } }' })).json
        .data.status.graph;
    expect(await status(VIEWER)).toEqual({ nodes: 5, edges: 4, pendingEdges: 0 });
    // shop-web and orders; the edges touching them: edge -> shop-web, shop-web -> orders.
    expect(await status(SHOP)).toEqual({ nodes: 2, edges: 2, pendingEdges: 0 });
  });
});
