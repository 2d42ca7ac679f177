// Ingest signatures, as pure functions: the v2 payload, query canonicalization, v1 and v2 verification,
// the ±5 minute window, replays, rewritten parameters, per-tenant secrets, and the bounded replay cache.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalQuery,
  ReplayCache,
  SignatureError,
  signV1,
  signV2,
  verify,
  type IngestSecrets,
} from '../../src/auth/ingest-signature.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const T = String(NOW / 1000);
const body = Buffer.from('{"SchemaVersion":2}');
const secrets: IngestSecrets = {
  single: 'default-secret',
  tenants: new Map([['acme', 'acme-secret']]),
  acceptV1: true,
};

function v2Headers(secret: string, url: string, options: { timestamp?: string; tenant?: string } = {}) {
  const timestamp = options.timestamp ?? T;
  const [path, rawQuery = ''] = url.split('?');
  return {
    'x-service-timestamp': timestamp,
    'x-service-signature-v2': signV2(secret, { timestamp, method: 'POST', path, rawQuery, body }),
    ...(options.tenant ? { 'x-tenant': options.tenant } : {}),
  };
}

const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof SignatureError) return error.reason;
    throw error;
  }
  return 'accepted';
};

describe('the v2 signature', () => {
  it('is HMAC-SHA256 over six lines: v2, time, method, path, sorted query, body digest', () => {
    const payload = [
      'v2',
      T,
      'POST',
      '/ingest/trivy',
      'pr=7&sha=abc&slug=acme%2Fshop',
      createHash('sha256').update(body).digest('hex'),
    ].join('\n');
    const expected = `v2=${createHmac('sha256', 'default-secret').update(payload).digest('hex')}`;
    expect(
      signV2('default-secret', {
        timestamp: T,
        method: 'post',
        path: '/ingest/trivy',
        rawQuery: 'slug=acme%2Fshop&sha=abc&pr=7',
        body,
      }),
    ).toBe(expected);
  });

  it('sorts parameters by name, stably, keeping each as sent', () => {
    expect(canonicalQuery('b=2&a=1&b=1&a%20b=3')).toBe('a=1&a%20b=3&b=2&b=1');
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('flag&a=1')).toBe('a=1&flag');
  });

  it('is accepted once within five minutes, either side', () => {
    const cache = new ReplayCache();
    const url = '/ingest/trivy?sha=abc';
    const headers = v2Headers('default-secret', url);
    expect(verify(secrets, { method: 'POST', url, headers, body }, cache, NOW)).toEqual({
      tenant: 'default',
      version: 'v2',
    });
    expect(failure(() => verify(secrets, { method: 'POST', url, headers, body }, cache, NOW + 1000))).toBe(
      'replayed',
    );
    for (const skew of [-299, 299]) {
      const h = v2Headers('default-secret', url, { timestamp: String(NOW / 1000 + skew) });
      expect(failure(() => verify(secrets, { method: 'POST', url, headers: h, body }, cache, NOW))).toBe(
        'accepted',
      );
    }
    for (const skew of [-301, 301]) {
      const h = v2Headers('default-secret', url, { timestamp: String(NOW / 1000 + skew) });
      expect(failure(() => verify(secrets, { method: 'POST', url, headers: h, body }, cache, NOW))).toBe(
        'expired',
      );
    }
  });

  it('fails when a parameter, the path, the body or the time is rewritten', () => {
    const url = '/ingest/trivy?sha=abc&pr=7';
    const headers = v2Headers('default-secret', url);
    const attempt = (u: string, b: Buffer, h: Record<string, string> = headers) =>
      failure(() => verify(secrets, { method: 'POST', url: u, headers: h, body: b }, new ReplayCache(), NOW));
    expect(attempt('/ingest/trivy?sha=def&pr=7', body)).toBe('bad_signature');
    expect(attempt('/ingest/semgrep?sha=abc&pr=7', body)).toBe('bad_signature');
    expect(attempt(url, Buffer.from('{"SchemaVersion":3}'))).toBe('bad_signature');
    expect(attempt(url, body, { ...headers, 'x-service-timestamp': String(NOW / 1000 - 1) })).toBe(
      'bad_signature',
    );
    // The same parameters in another order are the same request.
    expect(attempt('/ingest/trivy?pr=7&sha=abc', body)).toBe('accepted');
    expect(attempt(url, body, { ...headers, 'x-service-timestamp': 'yesterday' })).toBe('malformed');
  });

  it('uses the secret of the tenant the request names, and no other', () => {
    const url = '/ingest/trivy';
    const run = (headers: Record<string, string>) =>
      failure(() => verify(secrets, { method: 'POST', url, headers, body }, new ReplayCache(), NOW));
    expect(run(v2Headers('acme-secret', url, { tenant: 'acme' }))).toBe('accepted');
    expect(run(v2Headers('default-secret', url, { tenant: 'acme' }))).toBe('bad_signature');
    expect(run(v2Headers('acme-secret', url))).toBe('bad_signature');
    expect(run(v2Headers('default-secret', url, { tenant: 'globex' }))).toBe('unknown_tenant');
    expect(run({})).toBe('missing');
  });
});

describe('the v1 signature', () => {
  it('signs the body alone, unless v1 is turned off', () => {
    const url = '/ingest/trivy';
    const headers = { 'x-service-signature': signV1('default-secret', body) };
    expect(verify(secrets, { method: 'POST', url, headers, body }, new ReplayCache(), NOW)).toEqual({
      tenant: 'default',
      version: 'v1',
    });
    expect(headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', 'default-secret').update(body).digest('hex')}`,
    );
    const other = Buffer.from('{}');
    expect(
      failure(() => verify(secrets, { method: 'POST', url, headers, body: other }, new ReplayCache(), NOW)),
    ).toBe('bad_signature');
    const strict = { ...secrets, acceptV1: false };
    expect(
      failure(() => verify(strict, { method: 'POST', url, headers, body }, new ReplayCache(), NOW)),
    ).toBe('v1_disabled');
  });
});

describe('the replay cache', () => {
  it('forgets signatures once out of the window', () => {
    const cache = new ReplayCache(10, 300_000);
    expect(cache.use('a', NOW, NOW)).toBe(true);
    expect(cache.use('a', NOW, NOW + 299_000)).toBe(false);
    expect(cache.use('b', NOW + 301_000, NOW + 301_000)).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('when full, refuses anything no newer than what it forgot, so nothing forgotten can be replayed', () => {
    const cache = new ReplayCache(2, 300_000);
    expect(cache.use('a', NOW, NOW)).toBe(true);
    expect(cache.use('b', NOW + 1000, NOW)).toBe(true);
    expect(cache.use('c', NOW + 2000, NOW)).toBe(true); // forgets a; floor = NOW
    expect(cache.size).toBe(2);
    expect(cache.use('a', NOW, NOW)).toBe(false); // the forgotten one stays refused
    expect(cache.use('d', NOW + 3000, NOW)).toBe(true);
  });
});
