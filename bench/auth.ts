// Authentication overhead per request (BENCH_SUITES=auth): verifying a v2 ingest signature (HMAC over the
// six lines, SHA-256 of the body) at several body sizes, verifying an OIDC JWT (RS256, ES256; JWKS served on
// loopback and cached by jose), and a whole authenticated API request against an open one (fastify inject).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { pino } from 'pino';
import { ReplayCache, signV2, verify } from '../src/auth/ingest-signature.js';
import { createOidcVerifier } from '../src/auth/oidc.js';
import { loadSettings } from '../src/config/settings.js';
import { buildService } from '../app/service.js';

/** Mean microseconds per call over at least `minMs` (and 200 calls), after a warm-up. */
async function measure(run: (i: number) => unknown | Promise<unknown>, minMs = 1500): Promise<number> {
  for (let i = 0; i < 50; i++) await run(i);
  let calls = 0;
  const began = performance.now();
  while (calls < 200 || performance.now() - began < minMs) await run(calls++);
  return ((performance.now() - began) * 1000) / calls;
}

async function signatures(): Promise<void> {
  const secrets = { single: 'bench-secret', tenants: new Map<string, string>(), acceptV1: true };
  const now = Date.now();
  const timestamp = String(Math.floor(now / 1000));
  for (const size of [1024, 1024 * 1024, 12 * 1024 * 1024]) {
    const body = Buffer.alloc(size, 'x');
    const url = '/ingest/trivy?sha=4f2a9c1&slug=acme%2Fshop&pr=7';
    // A fresh signature per call would measure signing too; the replay cache is reset instead.
    const headers = {
      'x-service-timestamp': timestamp,
      'x-service-signature-v2': signV2('bench-secret', {
        timestamp,
        method: 'POST',
        path: '/ingest/trivy',
        rawQuery: 'sha=4f2a9c1&slug=acme%2Fshop&pr=7',
        body,
      }),
    };
    const us = await measure(
      () => verify(secrets, { method: 'POST', url, headers, body }, new ReplayCache(), now),
      1000,
    );
    const label = size >= 1048576 ? `${size / 1048576} MiB` : `${size / 1024} KiB`;
    console.log(`  v2 signature, ${label} body: ${us.toFixed(1)} µs/request`);
  }
}

async function jwts(): Promise<void> {
  const rsa = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec' },
  ];
  const server = http.createServer((_q, res) => res.end(JSON.stringify({ keys })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  const oidc = {
    jwksUrl,
    issuer: 'https://idp.bench/',
    audience: 'pathgate',
    roleClaim: 'role',
    tenantClaim: 'tenant',
    appsClaim: 'apps',
    groupsClaim: 'groups',
    groupRoles: new Map(),
  };
  const verifier = createOidcVerifier(oidc);
  const token = (alg: string, kid: string, key: Parameters<SignJWT['sign']>[0], jti: number) =>
    new SignJWT({ role: 'viewer' })
      .setProtectedHeader({ alg, kid })
      .setIssuer(oidc.issuer)
      .setAudience(oidc.audience)
      .setSubject('bench')
      .setJti(String(jti))
      .setExpirationTime('1h')
      .sign(key);
  let rsToken = '';
  for (const [name, alg, kid, key] of [
    ['RS256 (2048-bit)', 'RS256', 'rsa', rsa.privateKey],
    ['ES256', 'ES256', 'ec', ec.privateKey],
  ] as const) {
    // Distinct tokens, so each verification is a real signature check (a repeated token is remembered).
    const tokens = await Promise.all(Array.from({ length: 600 }, (_, i) => token(alg, kid, key, i)));
    rsToken ||= tokens[0];
    const check = async (t: string) => {
      const result = await verifier.verify(t, Date.now());
      if (!('principal' in result)) throw new Error(`bench: ${name} token refused`);
    };
    for (const t of tokens.slice(0, 50)) await check(t);
    const began = performance.now();
    for (const t of tokens.slice(50)) await check(t);
    const fresh = ((performance.now() - began) * 1000) / (tokens.length - 50);
    const remembered = await measure(() => check(tokens[0]), 500);
    console.log(
      `  OIDC JWT ${name}: ${fresh.toFixed(1)} µs/request first seen (JWKS cached), ${remembered.toFixed(1)} µs when seen before`,
    );
  }
  await runRequests(
    { OIDC_JWKS_URL: jwksUrl, OIDC_ISSUER: oidc.issuer, OIDC_AUDIENCE: oidc.audience },
    rsToken,
    'RS256 JWT',
  );
  server.close();
}

/** GET /auth/me through the whole API listener: open, then with the credential. */
async function runRequests(env: Record<string, string>, bearer: string, label: string): Promise<void> {
  const time = async (settingsEnv: Record<string, string>, headers: Record<string, string>) => {
    const service = await buildService({
      settings: loadSettings({
        DATA_DIR: 'bench-out/data-auth',
        API_RATE_RPS: '100000',
        ANALYZER_THREADS: '1',
        ...settingsEnv,
      }),
      logger: pino({ level: 'silent' }),
    });
    try {
      return await measure(async () => {
        const r = await service.apiApp.inject({ method: 'GET', url: '/auth/me', headers });
        if (r.statusCode !== 200) throw new Error(`bench: /auth/me answered ${r.statusCode}`);
      });
    } finally {
      await service.close();
    }
  };
  const open = await time({}, {});
  const authed = await time(env, { authorization: `Bearer ${bearer}` });
  console.log(
    `  whole API request (inject, GET /auth/me): open ${open.toFixed(1)} µs, with ${label} ${authed.toFixed(1)} µs (+${(authed - open).toFixed(1)} µs)`,
  );
}

export async function runAuthBench(): Promise<void> {
  console.log('authentication overhead');
  await signatures();
  await jwts();
  await runRequests(
    { API_TOKENS: 'bench-static-token-0123456789:viewer' },
    'bench-static-token-0123456789',
    'a static token',
  );
}
