// Issue 31 item 5: an export's signature binds its context. The signed statement names the tenant, kind,
// format, scope, state, time and the body's digest, so an empty export of one tenant does not pass for
// another's (every empty export used to carry the same signature); verify-export prints the statement and
// checks it against its flags and the service's file name; a v1 signature (the digest alone) is refused; an
// applications-scoped OSCAL export says its scope in its titles; a caller's exports in flight are capped and
// a send nobody reads is cut off with its spool file removed.
import { sign } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExportCommand } from '../../app/verify-export.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const ACME = 'acme-viewer-token-0123456789abc';
const BETA = 'beta-viewer-token-0123456789abc';
const SHOP = 'acme-shop-viewer-token-0123456789';
let service: TestService;
let work: string;
let pubFile: string;

beforeAll(async () => {
  work = await tempDir('pathgate-export-context-');
  service = await makeService({
    API_TOKENS: `${ACME}:viewer:acme,${BETA}:viewer:beta,${SHOP}:viewer:acme:2030-01-01:shop`,
  });
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const shop = node('Service', 'shop-web', { app: 'shop' });
  const billing = node('Service', 'billing-api', { app: 'billing' });
  const orders = node('Database', 'orders', { crown_jewel: true });
  const ledger = node('Database', 'ledger', { crown_jewel: true });
  const answer = await service.ingest(
    envelope(
      [lb, shop, billing, orders, ledger],
      [
        edge('ROUTES_TO', lb, shop, 0.9),
        edge('ROUTES_TO', lb, billing, 0.9),
        edge('CONNECTS_TO', shop, orders, 0.9),
        edge('CONNECTS_TO', billing, ledger, 0.9),
      ],
    ),
    { tenant: 'acme' },
  );
  expect(answer.status).toBe(202);
  // beta exists, with no path at all: its exports are empty.
  expect((await service.ingest(envelope([node('Service', 'idle')]), { tenant: 'beta' })).status).toBe(202);
  await service.settle();
  pubFile = path.join(work, 'pubkey.json');
  writeFileSync(pubFile, (await get('/export/pubkey', ACME)).body);
});
afterAll(() => service.dispose());

async function get(url: string, token: string) {
  const r = await service.apiApp.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: r.statusCode, body: r.rawPayload, headers: r.headers };
}

async function verify(file: string, sig: string, ...flags: string[]) {
  const out: string[] = [];
  const code = await verifyExportCommand([file, sig, '-pubkey', pubFile, ...flags], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    env: {},
  });
  return { code, text: out.join('') };
}

describe('export signatures bind their context (issue 31 item 5)', () => {
  it("an empty export of beta saved as acme's file is refused, naming the tenant", async () => {
    const acme = await get('/export/ndjson', ACME);
    expect(acme.body.toString().trim().split('\n')).toHaveLength(2);
    const beta = await get('/export/ndjson', BETA);
    expect(beta.status).toBe(200);
    expect(beta.body.length).toBe(0);
    const betaSig = String(beta.headers['x-service-signature']);
    // Two empty exports of two tenants do not carry the same signature.
    const otherEmpty = await get('/export/ndjson?state=all', BETA);
    expect(String(otherEmpty.headers['x-service-signature'])).not.toBe(betaSig);
    // The attack: beta's empty export passed off as acme's.
    const forged = path.join(work, 'pathgate-acme-paths.ndjson');
    writeFileSync(forged, beta.body);
    const refused = await verify(forged, betaSig);
    expect(refused.code).toBe(1);
    expect(refused.text).toContain('NOT VALID: tenant');
    expect(refused.text).toMatch(/tenant\s+beta/);
    // Under any name, -tenant says whose export is expected.
    const renamed = path.join(work, 'paths.ndjson');
    writeFileSync(renamed, beta.body);
    const flagged = await verify(renamed, betaSig, '-tenant', 'acme');
    expect(flagged.code).toBe(1);
    expect(flagged.text).toContain('NOT VALID: tenant');
    // The twin: acme's own export, as acme's, verifies and its statement is printed.
    const genuine = path.join(work, 'pathgate-acme-paths.ndjson');
    writeFileSync(genuine, acme.body);
    const ok = await verify(
      genuine,
      String(acme.headers['x-service-signature']),
      '-tenant',
      'acme',
      '-kind',
      'paths',
    );
    expect(ok.text).toContain('signature valid');
    expect(ok.code).toBe(0);
    expect(ok.text).toMatch(/tenant\s+acme/);
    expect(ok.text).toMatch(/kind\s+paths/);
    expect(ok.text).toMatch(/scope\s+all/);
    expect(ok.text).toMatch(/state\s+open/);
    // An NDJSON export is not an OSCAL one.
    const kind = await verify(
      genuine,
      String(acme.headers['x-service-signature']),
      '-kind',
      'assessment-results',
    );
    expect(kind.code).toBe(1);
    expect(kind.text).toContain('NOT VALID: kind');
  });

  it('a scoped export states its scope; expecting the full export refuses it', async () => {
    const scoped = await get('/export/ndjson', SHOP);
    const file = path.join(work, 'scoped.ndjson');
    writeFileSync(file, scoped.body);
    const sig = String(scoped.headers['x-service-signature']);
    const shown = await verify(file, sig, '-tenant', 'acme');
    expect(shown.code).toBe(0);
    expect(shown.text).toMatch(/scope\s+applications:shop/);
    const full = await verify(file, sig, '-scope', 'all');
    expect(full.code).toBe(1);
    expect(full.text).toContain('NOT VALID: scope');
  });

  it('a v1 signature (the body digest alone) is refused, saying why', async () => {
    const key = readFileSync(path.join(service.dataDir, 'keys', 'export-ed25519.pem'), 'utf8');
    const { keyId } = JSON.parse(readFileSync(pubFile, 'utf8'));
    const file = path.join(work, 'empty-v1.ndjson');
    writeFileSync(file, '');
    const digest = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const v1 = sign(null, Buffer.from(`pathgate-export/v1 sha256:${digest}`), key).toString('base64');
    const refused = await verify(file, `ed25519=${v1}; keyid=${keyId}`);
    expect(refused.code).toBe(1);
    expect(refused.text).toContain('v1');
  });

  it("an applications-scoped OSCAL export's titles name its scope; the full one's do not", async () => {
    const scoped = JSON.parse((await get('/export/oscal', SHOP)).body.toString())['assessment-results'];
    expect(scoped.metadata.title).toBe('pathgate attack paths: acme, applications shop only');
    expect(scoped.results[0].title).toContain('applications shop only');
    const full = JSON.parse((await get('/export/oscal', ACME)).body.toString())['assessment-results'];
    expect(full.metadata.title).toBe('pathgate attack paths: acme');
  });
});

describe('export spool: per-caller cap, send timeout, files removed (issue 31 item 5)', () => {
  let big: TestService;
  let url: URL;
  const VIEW = 'spool-viewer-token-0123456789abc';
  const OTHER = 'spool-other-token-0123456789abcd';
  const spoolFiles = () => {
    const dir = path.join(big.dataDir, 'exports');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  beforeAll(async () => {
    big = await makeService({
      API_TOKENS: `${VIEW}:viewer,${OTHER}:viewer`,
      EXPORT_MAX_PER_CALLER: '2',
      EXPORT_SEND_TIMEOUT: '2s',
    });
    // 30 internet-facing load balancers and 30 crown jewels through one service, every name 2,000 characters:
    // 900 paths of about 6 KB, an export larger than what the sockets hold for a client that reads nothing.
    const long = (prefix: string, i: number) => `${prefix}-${i}-${'x'.repeat(2000)}`;
    const hub = node('Service', long('hub', 0));
    const lbs = Array.from({ length: 30 }, (_, i) =>
      node('LoadBalancer', long('lb', i), { internet_exposed: true }),
    );
    const dbs = Array.from({ length: 30 }, (_, i) => node('Database', long('db', i), { crown_jewel: true }));
    const answer = await big.ingest(
      envelope(
        [hub, ...lbs, ...dbs],
        [
          ...lbs.map((lb) => edge('ROUTES_TO', lb, hub, 0.9)),
          ...dbs.map((db) => edge('CONNECTS_TO', hub, db, 0.9)),
        ],
      ),
    );
    expect(answer.status).toBe(202);
    await big.settle();
    url = new URL(await big.apiApp.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    // This test's own keep-alive connections (fetch) would hold the listener's close.
    big.apiApp.server.closeAllConnections();
    await big.dispose();
  });

  /** A client that asks for an export and never reads the answer. */
  const unread = () => {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    socket.write(
      `GET /export/ndjson?state=all HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${VIEW}\r\n\r\n`,
    );
    socket.pause();
    return socket;
  };
  const until = async (check: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    return check();
  };

  it('a third export in flight for one caller is refused with 429; unread sends are cut off and their files go', async () => {
    const whole = await fetch(new URL('/export/ndjson?state=all', url), {
      headers: { authorization: `Bearer ${VIEW}` },
    });
    expect(whole.status).toBe(200);
    expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(4 * 1024 * 1024);
    const stalled = [unread(), unread()];
    expect(await until(() => spoolFiles().length === 2)).toBe(true);
    const third = await fetch(new URL('/export/ndjson', url), {
      headers: { authorization: `Bearer ${VIEW}` },
    });
    expect(third.status).toBe(429);
    expect(third.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await third.json()) as { detail: string }).detail).toContain('EXPORT_MAX_PER_CALLER');
    // Another credential is not held back by this one's stalled exports.
    const other = await fetch(new URL('/export/ndjson', url), {
      headers: { authorization: `Bearer ${OTHER}` },
    });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    // EXPORT_SEND_TIMEOUT (2 s): the stalled sends are cut off, their spool files removed, the slots free.
    expect(await until(() => spoolFiles().length === 0)).toBe(true);
    for (const socket of stalled) socket.destroy();
    const again = await fetch(new URL('/export/ndjson', url), {
      headers: { authorization: `Bearer ${VIEW}` },
    });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  });
});
