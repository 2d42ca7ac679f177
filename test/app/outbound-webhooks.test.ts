// Issue 31 item 8: drift and ticket webhooks are signed (X-Pathgate-Signature: t=<unix>,v1=<HMAC-SHA256 of
// "<t>.<body>">, checked here as docs/security.md tells a receiver to), follow no redirect (a 3xx is a failure,
// and the place it points to hears nothing), and go one URL per tenant: the single-URL settings are the
// default tenant's, a tenant with its own URL gets only its own paths, a tenant without one sends nothing.
// The receiver is a loopback HTTP server.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const SECRET = 'outbound-webhook-secret-0123456789';
const DRIFT_SECRET = 'drift-webhook-secret-0123456789ab';
const tokens = {
  default: 'outbound-default-admin-0123456789',
  acme: 'outbound-acme-admin-0123456789ab',
  beta: 'outbound-beta-admin-0123456789ab',
  gamma: 'outbound-gamma-admin-0123456789a',
};
type Tenant = keyof typeof tokens;
interface Heard {
  path: string;
  signature: string | undefined;
  raw: string;
  body: any;
}
const heard: Heard[] = [];
let receiver: http.Server;
let service: TestService;

/** The receiver's check, as docs/security.md describes it. */
function signedWith(secret: string, h: Heard): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(h.signature ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${h.raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}

const estate = (tag: string) => {
  const lb = node('LoadBalancer', `${tag}-edge`, { internet_exposed: true });
  const web = node('Service', `${tag}-web`);
  const db = node('Database', `${tag}-orders`, { crown_jewel: true });
  return envelope([lb, web, db], [edge('ROUTES_TO', lb, web, 0.9), edge('CONNECTS_TO', web, db, 0.9)]);
};
const newJewel = (tag: string) => {
  const web = node('Service', `${tag}-web`);
  const ledger = node('Database', `${tag}-ledger`, { crown_jewel: true });
  return envelope([web, ledger], [edge('CONNECTS_TO', web, ledger, 0.95)]);
};

async function heardAt(path: string, count = 1): Promise<Heard[]> {
  for (let i = 0; i < 100 && heard.filter((h) => h.path === path).length < count; i++)
    await new Promise((r) => setTimeout(r, 20));
  return heard.filter((h) => h.path === path);
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const signature = req.headers['x-pathgate-signature'];
      heard.push({
        path: req.url!,
        signature: typeof signature === 'string' ? signature : undefined,
        raw,
        body: raw ? JSON.parse(raw) : undefined,
      });
      if (req.url?.startsWith('/redirect')) {
        res.writeHead(307, { location: '/sink' });
        return res.end();
      }
      res.statusCode = 202;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  service = await makeService({
    API_TOKENS: Object.entries(tokens)
      .map(([tenant, token]) => (tenant === 'default' ? `${token}:admin` : `${token}:admin:${tenant}`))
      .join(','),
    TICKET_WEBHOOK_URL: `${base}/default-tickets`,
    TICKET_WEBHOOK_URLS: `acme=${base}/acme-tickets,gamma=${base}/redirect-tickets`,
    TICKET_WEBHOOK_SECRET: SECRET,
    DRIFT_WEBHOOK_URL: `${base}/redirect-drift`,
    DRIFT_WEBHOOK_URLS: `acme=${base}/acme-drift`,
    DRIFT_WEBHOOK_SECRET: DRIFT_SECRET,
  });
  for (const tenant of Object.keys(tokens))
    expect((await service.ingest(estate(tenant), { tenant })).status).toBe(202);
  await service.settle();
  // Each tenant's first check sets its baseline (sends nothing).
  for (const tenant of Object.keys(tokens)) await service.drift.check(tenant);
});
afterAll(async () => {
  await service.dispose();
  await new Promise<void>((r) => receiver.close(() => r()));
});

async function openTicket(tenant: Tenant) {
  const pathId = service.engine.tenant(tenant)!.paths.open()[0].id;
  const r = await service.apiApp.inject({
    method: 'POST',
    url: '/tickets',
    headers: { authorization: `Bearer ${tokens[tenant]}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ pathId, owner: `team-${tenant}` }),
  });
  expect(r.statusCode).toBe(201);
  return r.json();
}

describe('outbound webhooks (issue 31 item 8)', () => {
  it("tickets: each tenant's to its own URL, signed; a tenant without a URL sends nothing", async () => {
    const acme = await openTicket('acme');
    const [atAcme] = await heardAt('/acme-tickets');
    expect(atAcme.body).toMatchObject({ event: 'ticket.opened', tenant: 'acme', ticket: { id: acme.id } });
    expect(signedWith(SECRET, atAcme)).toBe(true);
    // Negative twin: another key, or a changed body, does not verify.
    expect(signedWith('another-secret', atAcme)).toBe(false);
    expect(signedWith(SECRET, { ...atAcme, raw: atAcme.raw.replace('acme', 'beta') })).toBe(false);
    expect(acme.dispatch).toMatchObject({ status: 202, error: null });
    const own = await openTicket('default');
    const [atDefault] = await heardAt('/default-tickets');
    expect(atDefault.body).toMatchObject({ tenant: 'default', ticket: { id: own.id } });
    expect(signedWith(SECRET, atDefault)).toBe(true);
    // beta has no URL: its ticket goes nowhere (not to the default tenant's URL).
    const beta = await openTicket('beta');
    expect(beta.dispatch).toBeNull();
    await new Promise((r) => setTimeout(r, 100));
    expect(heard.filter((h) => h.body?.tenant === 'beta')).toEqual([]);
    expect(heard.filter((h) => h.path === '/default-tickets').map((h) => h.body.tenant)).toEqual(['default']);
  });

  it('tickets: a redirect is not followed; the dispatch records it as a failure', async () => {
    const gamma = await openTicket('gamma');
    expect(gamma.dispatch).toMatchObject({ status: 307, error: expect.stringContaining('redirect') });
    expect(await heardAt('/redirect-tickets')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(heard.filter((h) => h.path === '/sink')).toEqual([]);
  });

  it("drift: acme's to acme's URL, signed; beta's nowhere; the default tenant's redirect is not followed", async () => {
    for (const tenant of ['acme', 'beta', 'default'] as const)
      expect((await service.ingest(newJewel(tenant), { tenant })).status).toBe(202);
    await service.settle();
    for (const tenant of ['acme', 'beta', 'default'] as const) await service.drift.check(tenant);
    const [acme] = await heardAt('/acme-drift');
    expect(acme.body).toMatchObject({ event: 'posture.drift', tenant: 'acme' });
    expect(acme.body.opened[0]).toMatchObject({ target: 'acme-ledger' });
    expect(signedWith(DRIFT_SECRET, acme)).toBe(true);
    const [redirected] = await heardAt('/redirect-drift');
    expect(redirected.body).toMatchObject({ tenant: 'default' });
    await new Promise((r) => setTimeout(r, 150));
    expect(heard.filter((h) => h.path === '/sink')).toEqual([]);
    expect(heard.filter((h) => h.body?.event === 'posture.drift' && h.body.tenant === 'beta')).toEqual([]);
    expect(heard.filter((h) => h.path === '/acme-drift').every((h) => h.body.tenant === 'acme')).toBe(true);
  });
});
