// Signed ingest through the listener: v2 and v1 signatures computed here, routing by the authenticated
// tenant, refusals (unsigned, wrong tenant's secret, replay, stale time, rewritten sha) that store nothing,
// the metrics, the _FILE settings, and secrets kept out of answers and logs.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { signV1, signV2 } from '../../src/auth/ingest-signature.js';
import { loadSettings } from '../../src/config/settings.js';
import { envelope, node } from '../helpers/envelope.js';
import { startupRefusal } from '../helpers/settings.js';
import { makeService, type TestService } from '../helpers/service.js';

const DEFAULT_SECRET = 'd3fault-signing-secret-5b1e';
const ACME_SECRET = 'acme-signing-secret-93f0c2';
const NOW = Date.parse('2026-11-22T12:00:00Z');
const ENV = {
  INGEST_HMAC_SECRET: DEFAULT_SECRET,
  INGEST_HMAC_SECRETS: `acme:${ACME_SECRET}`,
};

let service: TestService | undefined;
let logs: string[] = [];
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  logs = [];
});

async function start(env: Record<string, string> = ENV, now = () => NOW): Promise<TestService> {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  service = await makeService(env, { now, logger: pino({ level: 'debug' }, sink) });
  return service;
}

const report = JSON.stringify(envelope([node('LoadBalancer', 'edge-lb', { internet_exposed: true })]));

interface Send {
  url?: string;
  body?: string;
  tenant?: string;
  sign?: 'v1' | 'v2' | 'none';
  secret?: string;
  timestamp?: number;
  /** send to this URL but sign another (a rewritten parameter) */
  signedUrl?: string;
}

async function send(s: TestService, o: Send = {}) {
  const url = o.url ?? '/ingest/events?sha=4f2a9c1&slug=acme/shop';
  const body = o.body ?? report;
  const secret = o.secret ?? DEFAULT_SECRET;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.tenant) headers['x-tenant'] = o.tenant;
  if ((o.sign ?? 'v2') === 'v2') {
    const timestamp = String(Math.floor((o.timestamp ?? NOW) / 1000));
    const [signedPath, rawQuery = ''] = (o.signedUrl ?? url).split('?');
    headers['x-service-timestamp'] = timestamp;
    headers['x-service-signature-v2'] = signV2(secret, {
      timestamp,
      method: 'POST',
      path: signedPath,
      rawQuery,
      body: Buffer.from(body),
    });
  } else if (o.sign === 'v1') headers['x-service-signature'] = signV1(secret, Buffer.from(body));
  const response = await s.ingestApp.inject({ method: 'POST', url, headers, payload: body });
  return { status: response.statusCode, json: response.json(), text: response.body };
}

async function metricLines(s: TestService, name: string): Promise<string[]> {
  const response = await s.apiApp.inject({ method: 'GET', url: '/metrics' });
  return response.body.split('\n').filter((l) => l.startsWith(name));
}

const graphOrder = (s: TestService, tenant: string) => s.engine.tenant(tenant)?.graph.order ?? 0;

describe('signed ingest', () => {
  it('accepts a v2-signed report and routes it to the tenant whose secret signed it', async () => {
    const s = await start();
    expect((await send(s)).status).toBe(202);
    expect((await send(s, { tenant: 'acme', secret: ACME_SECRET, timestamp: NOW + 1000 })).status).toBe(202);
    await s.settle();
    expect(graphOrder(s, 'default')).toBe(1);
    expect(graphOrder(s, 'acme')).toBe(1);
    expect(await metricLines(s, 'service_ingest_signatures_total')).toEqual([
      'service_ingest_signatures_total{version="v2"} 2',
    ]);
  });

  it('refuses unsigned, wrongly signed, replayed, stale and rewritten requests with 401, storing nothing', async () => {
    const s = await start();
    const refused = [
      await send(s, { sign: 'none' }),
      await send(s, { tenant: 'acme' }), // the default tenant's secret for acme
      await send(s, { tenant: 'globex' }), // a tenant with no secret
      await send(s, { timestamp: NOW - 6 * 60_000 }),
      await send(s, {
        url: '/ingest/events?sha=0000000&slug=acme/shop',
        signedUrl: '/ingest/events?sha=4f2a9c1&slug=acme/shop',
      }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(r.json.type).toBe('urn:pathgate:problem:unauthorized');
    }
    expect(refused.map((r) => r.json.reason)).toEqual([
      'missing',
      'bad_signature',
      'unknown_tenant',
      'expired',
      'bad_signature',
    ]);
    const first = await send(s, { timestamp: NOW + 2000 });
    const replay = await send(s, { timestamp: NOW + 2000 });
    expect(first.status).toBe(202);
    expect(replay.status).toBe(401);
    expect(replay.json.reason).toBe('replayed');
    await s.settle();
    expect(graphOrder(s, 'default')).toBe(1);
    expect(graphOrder(s, 'acme')).toBe(0);
    expect(graphOrder(s, 'globex')).toBe(0);
    const denied = await metricLines(s, 'service_auth_denied_total');
    expect(denied).toContain('service_auth_denied_total{surface="ingest",reason="bad_signature"} 2');
    expect(denied).toContain('service_auth_denied_total{surface="ingest",reason="replayed"} 1');
    // No answer and no log line carries a secret.
    for (const r of [...refused, replay]) {
      expect(r.text).not.toContain(DEFAULT_SECRET);
      expect(r.text).not.toContain(ACME_SECRET);
    }
    const logged = logs.join('');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toContain(DEFAULT_SECRET);
    expect(logged).not.toContain(ACME_SECRET);
  });

  it('refuses an unsigned report before reading it, even one that is not JSON', async () => {
    const s = await start();
    const response = await send(s, { sign: 'none', body: 'not json at all' });
    expect(response.status).toBe(401);
    // An unknown source is not revealed before authentication (test/app/security-review.test.ts).
    expect((await send(s, { url: '/ingest/nosuch', sign: 'none' })).status).toBe(401);
  });

  it('accepts v1 (body only) unless INGEST_HMAC_ACCEPT_V1=false', async () => {
    const s = await start();
    expect((await send(s, { sign: 'v1' })).status).toBe(202);
    expect((await send(s, { sign: 'v1', secret: ACME_SECRET })).status).toBe(401);
    expect(await metricLines(s, 'service_ingest_signatures_total')).toEqual([
      'service_ingest_signatures_total{version="v1"} 1',
    ]);
    await s.dispose();
    const strict = await start({ ...ENV, INGEST_HMAC_ACCEPT_V1: 'false' });
    const refused = await send(strict, { sign: 'v1' });
    expect(refused.status).toBe(401);
    expect(refused.json.reason).toBe('v1_disabled');
  });

  it('is open without secrets, and says so in the log', async () => {
    const s = await start({});
    expect((await send(s, { sign: 'none', tenant: 'anyone' })).status).toBe(202);
    expect(logs.join('')).toMatch(/ingest is open/);
  });
});

describe('ingest secret settings', () => {
  it('reads secrets from _FILE variables, one trailing newline stripped', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pathgate-secret-'));
    await writeFile(path.join(dir, 'one'), `${DEFAULT_SECRET}\n`);
    await writeFile(path.join(dir, 'many'), `acme:${ACME_SECRET}\n`);
    const settings = loadSettings({
      INGEST_HMAC_SECRET_FILE: path.join(dir, 'one'),
      INGEST_HMAC_SECRETS_FILE: path.join(dir, 'many'),
    });
    expect(settings.ingestSecrets.single).toBe(DEFAULT_SECRET);
    expect(settings.ingestSecrets.tenants.get('acme')).toBe(ACME_SECRET);
  });

  it('stops start-up on an unreadable file or a bad entry, never echoing a secret', () => {
    expect(startupRefusal({ INGEST_HMAC_SECRET_FILE: '/nonexistent/secret' })).toMatch(
      /INGEST_HMAC_SECRET_FILE="\/nonexistent\/secret" cannot be read \(ENOENT\)/,
    );
    const bad = startupRefusal({
      INGEST_HMAC_SECRETS: `acme:${ACME_SECRET},Bad Tenant:${DEFAULT_SECRET},acme:x`,
    });
    expect(bad).toMatch(/entry 2 is not <tenant>:<secret>/);
    expect(bad).toMatch(/names tenant "acme" twice/);
    expect(bad).not.toContain(ACME_SECRET);
    expect(bad).not.toContain(DEFAULT_SECRET);
    expect(startupRefusal({ INGEST_HMAC_SECRET: 'x', INGEST_HMAC_SECRET_FILE: '/etc/hostname' })).toMatch(
      /both set/,
    );
  });
});
