// API authentication and authorization through the listener: static tokens (plain, hashed, expired,
// tenant- and app-bound), OIDC against a JWKS server on loopback (RSA and EC keys, algorithm and key
// confusion refused), anonymous viewers, the policy on future routes, lockout and rate limits on an
// injected clock, CORS, /auth/config and /auth/me, and the settings that stop start-up.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { startupRefusal } from '../helpers/settings.js';
import { makeService, type TestService } from '../helpers/service.js';

const VIEWER = 'viewer-token-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';
const NOROLE = 'none-token-0123456789abcdef';
const ACME = 'acme-token-0123456789abcdef';
const SHOP = 'shop-token-0123456789abcdef';
const HASHED = 'hashed-token-0123456789abcdef';
const EXPIRING = 'expiring-token-0123456789abcdef';
type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
type SigningKey = Parameters<SignJWT['sign']>[0];
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

const TOKENS = [
  `${VIEWER}:viewer`,
  `${ADMIN}:admin`,
  `${NOROLE}:none`,
  `${ACME}:viewer:acme`,
  `${SHOP}:viewer::2030-12-31:shop`,
  `sha256$${sha(HASHED)}:operator`,
  `${EXPIRING}:viewer::2026-11-30`,
].join(',');

let now = Date.parse('2026-11-22T12:00:00Z');
const clock = () => now;
let service: TestService | undefined;
let logs: string[] = [];
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  logs = [];
  now = Date.parse('2026-11-22T12:00:00Z');
});

async function start(env: Record<string, string>): Promise<TestService> {
  const sink = new Writable({
    write(chunk, _e, done) {
      logs.push(String(chunk));
      done();
    },
  });
  service = await makeService(env, { now: clock, logger: pino({ level: 'debug' }, sink) });
  return service;
}

async function api(
  s: TestService,
  url: string,
  o: { token?: string; tenant?: string; query?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.tenant) headers['x-tenant'] = o.tenant;
  const response = await s.apiApp.inject({
    method: o.query ? 'POST' : 'GET',
    url,
    headers,
    ...(o.query && { payload: JSON.stringify({ query: o.query }) }),
  });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = response.body;
  }
  return { status: response.statusCode, json, headers: response.headers };
}

/** The log's messages (pino writes JSON lines; quotes inside are escaped there). */
const messages = () => logs.map((l) => JSON.parse(l).msg as string).join('\n');

const PATHS = '{ attackPaths { id nodes { name } } posture { openPaths } }';

/** Two routes to two crown jewels, one through the shop app, one through billing. */
async function twoAppEstate(s: TestService, tenant?: string) {
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const shop = node('Service', 'shop-web', { app: 'shop' });
  const billing = node('Service', 'billing-api', { apps: ['billing'] });
  const orders = node('Database', 'orders', { crown_jewel: true });
  const ledger = node('Database', 'ledger', { crown_jewel: true });
  const body = envelope(
    [lb, shop, billing, orders, ledger],
    [
      edge('ROUTES_TO', lb, shop, 0.5),
      edge('ROUTES_TO', lb, billing, 0.5),
      edge('CONNECTS_TO', shop, orders, 0.5),
      edge('CONNECTS_TO', billing, ledger, 0.5),
    ],
  );
  expect((await s.ingest(body, { tenant })).status).toBe(202);
  await s.settle();
}

describe('static API tokens', () => {
  it('needs a bearer token once tokens are set; a wrong or missing one is 401', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    const missing = await api(s, '/graphql', { query: PATHS });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.json).toMatchObject({ type: 'urn:pathgate:problem:unauthorized', reason: 'missing' });
    expect((await api(s, '/graphql', { query: PATHS, token: 'not-a-token-at-all-xx' })).json.reason).toBe(
      'unknown',
    );
    expect(
      (await api(s, '/graphql', { query: PATHS, headers: { authorization: `Basic ${VIEWER}` } })).json.reason,
    ).toBe('malformed');
    expect((await api(s, '/graphql', { query: PATHS, token: VIEWER })).status).toBe(200);
    expect((await api(s, '/graphql', { query: PATHS, token: HASHED })).status).toBe(200);
    // Probes are open (spec): /metrics names no tenant on this listener (test/app/security-review.test.ts).
    expect((await api(s, '/metrics', { token: VIEWER })).status).toBe(200);
    expect((await api(s, '/metrics')).status).toBe(200);
    expect((await api(s, '/healthz')).status).toBe(200);
  });

  it('refuses an expired token from the day after its expiry', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    now = Date.parse('2026-11-30T23:59:00Z');
    expect((await api(s, '/auth/me', { token: EXPIRING })).status).toBe(200);
    now = Date.parse('2026-12-01T00:00:01Z');
    const expired = await api(s, '/auth/me', { token: EXPIRING });
    expect(expired.status).toBe(401);
    expect(expired.json.reason).toBe('expired');
  });

  it('answers /auth/me with a fingerprint, the role and what the principal may do, never the token', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    const admin = await api(s, '/auth/me', { token: ADMIN });
    expect(admin.json).toEqual({
      subject: `token:${sha(ADMIN).slice(0, 12)}`,
      role: 'admin',
      tenant: null,
      anonymous: false,
      canWrite: true,
    });
    expect(JSON.stringify(admin.json)).not.toContain(ADMIN);
    expect((await api(s, '/auth/me', { token: VIEWER })).json).toMatchObject({
      role: 'viewer',
      canWrite: false,
    });
    expect((await api(s, '/auth/me', { token: SHOP })).json).toMatchObject({ apps: ['shop'] });
    // A principal with no role may ask who it is, and sees nothing else.
    expect((await api(s, '/auth/me', { token: NOROLE })).json).toMatchObject({ role: 'none' });
    const none = await api(s, '/graphql', { query: PATHS, token: NOROLE });
    expect(none.status).toBe(403);
    expect(none.json.reason).toBe('no_role');
  });

  it('drops malformed entries at start and logs them without the secret', async () => {
    await start({
      API_TOKENS: `${VIEWER}:viewer,tiny9:viewer,${ADMIN}:superuser,${HASHED}:viewer:Bad Tenant`,
    });
    const logged = messages();
    expect(logs.join('')).not.toContain(VIEWER);
    expect(logged).toMatch(/API_TOKENS entry 2 dropped: the token is shorter than 16 characters/);
    expect(logged).toMatch(/API_TOKENS entry 3 dropped: role "superuser"/);
    expect(logged).toMatch(/API_TOKENS entry 4 dropped: tenant "Bad Tenant"/);
    for (const secret of [VIEWER, ADMIN, HASHED, 'tiny9']) expect(logged).not.toContain(secret);
  });

  it('binds a tenant-scoped token to its tenant: another tenant is 403, its own is the default', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    await twoAppEstate(s, 'acme');
    await twoAppEstate(s, 'globex');
    const own = await api(s, '/graphql', { query: PATHS, token: ACME });
    expect(own.json.data.attackPaths).toHaveLength(2);
    const other = await api(s, '/graphql', { query: PATHS, token: ACME, tenant: 'globex' });
    expect(other.status).toBe(403);
    expect(other.json.reason).toBe('tenant');
    expect((await api(s, '/graphql', { query: PATHS, token: ACME, tenant: 'acme' })).status).toBe(200);
    // An unbound token belongs to the default tenant: it cannot choose another with X-Tenant.
    const unbound = await api(s, '/graphql', { query: PATHS, token: VIEWER, tenant: 'globex' });
    expect(unbound.status).toBe(403);
    expect(unbound.json.detail).toContain('"globex"');
  });

  it('scopes an app-bound token to the paths through its applications', async () => {
    const s = await start({ API_TOKENS: TOKENS });
    await twoAppEstate(s);
    const all = (await api(s, '/graphql', { query: PATHS, token: VIEWER })).json.data;
    expect(all.attackPaths).toHaveLength(2);
    const scoped = (await api(s, '/graphql', { query: PATHS, token: SHOP })).json.data;
    expect(scoped.attackPaths.map((p: { nodes: { name: string }[] }) => p.nodes.map((n) => n.name))).toEqual([
      ['edge', 'shop-web', 'orders'],
    ]);
    expect(scoped.posture.openPaths).toBe(1);
    const billingId = all.attackPaths.find(
      (p: { nodes: { name: string }[] }) => p.nodes[1].name === 'billing-api',
    ).id;
    const hidden = await api(s, '/graphql', {
      query: `{ attackPath(id: "${billingId}") { id } }`,
      token: SHOP,
    });
    expect(hidden.json.data.attackPath).toBeNull();
  });
});

describe('the policy on every route, present and future', () => {
  it('write needs admin; ai and gate are never anonymous', async () => {
    const s = await start({ API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer' });
    s.apiApp.post('/test/write', { config: { access: 'write' } }, async () => ({ ok: true }));
    s.apiApp.get('/ai/explain', async () => ({ text: 'x' }));
    const post = (url: string, token?: string) =>
      s.apiApp.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        payload: '{}',
      });
    expect((await post('/test/write', ADMIN)).statusCode).toBe(200);
    const viewerWrite = await post('/test/write', VIEWER);
    expect(viewerWrite.statusCode).toBe(403);
    expect(viewerWrite.json().reason).toBe('not_admin');
    expect((await post('/test/write')).json().reason).toBe('anonymous_write');
    expect((await post('/gate/impact', VIEWER)).statusCode).toBe(200);
    const anonymousGate = await post('/gate/impact');
    expect(anonymousGate.statusCode).toBe(403);
    expect(anonymousGate.json().reason).toBe('anonymous_gate');
    expect((await api(s, '/ai/explain')).json.reason).toBe('anonymous_ai');
    expect((await api(s, '/ai/explain', { token: VIEWER })).status).toBe(200);
    const metrics = await s.apiApp.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${VIEWER}` },
    });
    expect(metrics.body).toContain('service_auth_denied_total{surface="api",reason="anonymous_gate"} 1');
    expect(metrics.body).toContain('service_auth_denied_total{surface="api",reason="anonymous_ai"} 1');
  });

  it('lets anonymous callers read as viewers, but a presented wrong token is still 401', async () => {
    const s = await start({ API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer' });
    expect((await api(s, '/graphql', { query: PATHS })).status).toBe(200);
    expect((await api(s, '/auth/me')).json).toEqual({
      subject: 'anonymous',
      role: 'viewer',
      tenant: null,
      anonymous: true,
      canWrite: false,
    });
    expect((await api(s, '/graphql', { query: PATHS, token: 'wrong-token-wrong-token' })).status).toBe(401);
  });

  it('publishes the auth configuration; the GraphiQL page is served either way and holds no data', async () => {
    const open = await start({});
    // The spec's words: none | token | both.
    expect((await api(open, '/auth/config')).json).toEqual({ authRequired: false, mode: 'none' });
    expect((await open.apiApp.inject({ method: 'GET', url: '/graphiql' })).statusCode).toBe(200);
    expect((await api(open, '/auth/me')).json).toMatchObject({ subject: 'open', role: 'admin' });
    await open.dispose();
    const locked = await start({ API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer' });
    expect((await api(locked, '/auth/config')).json).toEqual({
      authRequired: true,
      mode: 'token',
      anonymousRole: 'viewer',
    });
    // Under auth the page is static (its queries carry the token from its headers editor; test/app/graphiql-offline.test.ts).
    const page = await locked.apiApp.inject({ method: 'GET', url: '/graphiql' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('paste your API token');
    expect(page.body).not.toContain(VIEWER);
    await locked.dispose();
  });
});

describe('OIDC', () => {
  const ISSUER = 'https://idp.example.test/';
  const AUDIENCE = 'pathgate';
  let jwks: http.Server;
  let jwksUrl: string;
  let rsa: KeyPair;
  let ec256: KeyPair;
  let ec384: KeyPair;

  beforeAll(async () => {
    rsa = await generateKeyPair('RS256', { extractable: true });
    ec256 = await generateKeyPair('ES256', { extractable: true });
    ec384 = await generateKeyPair('ES384', { extractable: true });
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', use: 'sig' },
      { ...(await exportJWK(ec256.publicKey)), kid: 'ec256', use: 'sig' },
      { ...(await exportJWK(ec384.publicKey)), kid: 'ec384', use: 'sig' },
    ];
    jwks = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => jwks.close(() => resolve())));

  const oidcEnv = (extra: Record<string, string> = {}) => ({
    OIDC_JWKS_URL: jwksUrl,
    OIDC_ISSUER: ISSUER,
    OIDC_AUDIENCE: AUDIENCE,
    OIDC_GROUP_ROLES: 'sec-leads=admin,engineers=viewer,broken-entry',
    ...extra,
  });

  async function jwt(
    claims: JWTPayload,
    o: {
      alg?: string;
      kid?: string;
      key?: SigningKey;
      iss?: string;
      aud?: string;
      exp?: number;
    } = {},
  ): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? 'rsa' })
      .setSubject('alice@example.test')
      .setIssuer(o.iss ?? ISSUER)
      .setAudience(o.aud ?? AUDIENCE)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(o.exp ?? Math.floor(now / 1000) + 3600)
      .sign(o.key ?? rsa.privateKey);
  }

  it('accepts RS256, ES256 and ES384 tokens from the identity provider, mapping claims to a principal', async () => {
    const s = await start(oidcEnv());
    const me = async (token: string) => api(s, '/auth/me', { token });
    expect((await me(await jwt({ role: 'viewer' }))).json).toEqual({
      subject: 'jwt:alice@example.test',
      role: 'viewer',
      tenant: null,
      anonymous: false,
      canWrite: false,
    });
    expect(
      (await me(await jwt({ role: 'operator' }, { alg: 'ES256', kid: 'ec256', key: ec256.privateKey }))).json
        .role,
    ).toBe('operator');
    expect(
      (await me(await jwt({ role: 'viewer' }, { alg: 'ES384', kid: 'ec384', key: ec384.privateKey }))).json
        .role,
    ).toBe('viewer');
    // Groups as an array or a delimited string; the highest role wins.
    expect((await me(await jwt({ role: 'viewer', groups: ['engineers', 'sec-leads'] }))).json).toMatchObject({
      role: 'admin',
      canWrite: true,
    });
    expect((await me(await jwt({ groups: 'engineers, other' }))).json.role).toBe('viewer');
    expect(
      (await me(await jwt({ role: 'viewer', tenant: 'acme', apps: 'shop;billing' }))).json,
    ).toMatchObject({
      tenant: 'acme',
      apps: ['shop', 'billing'],
    });
    // No role and no group: authenticated, but sees nothing.
    expect((await me(await jwt({}))).json.role).toBe('none');
    expect((await api(s, '/graphql', { query: PATHS, token: await jwt({}) })).status).toBe(403);
    expect(messages()).toMatch(/OIDC_GROUP_ROLES entry "broken-entry" dropped/);
  });

  it('refuses wrong issuer, wrong audience, expiry, and algorithm or key confusion', async () => {
    const s = await start(oidcEnv());
    const reason = async (token: string) => {
      const r = await api(s, '/auth/me', { token });
      expect(r.status).toBe(401);
      return r.json.reason;
    };
    expect(await reason(await jwt({ role: 'admin' }, { iss: 'https://evil.example.test/' }))).toBe('invalid');
    expect(await reason(await jwt({ role: 'admin' }, { aud: 'someone-else' }))).toBe('invalid');
    expect(await reason(await jwt({ role: 'admin' }, { exp: Math.floor(now / 1000) - 120 }))).toBe('expired');
    // HS256 keyed with the RSA public key (the classic confusion): HS* is never accepted.
    const pem = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    expect(await reason(await jwt({ role: 'admin' }, { alg: 'HS256', kid: 'rsa', key: pem }))).toBe(
      'invalid',
    );
    // ES256 claimed, signed with the P-384 key and pointing at it: wrong curve for the algorithm.
    expect(
      await reason(await jwt({ role: 'admin' }, { alg: 'ES384', kid: 'ec256', key: ec384.privateKey })),
    ).toBe('invalid');
    // RS256 claimed against an EC key id.
    expect(await reason(await jwt({ role: 'admin' }, { alg: 'RS256', kid: 'ec256' }))).toBe('invalid');
    // A forged signature.
    const genuine = await jwt({ role: 'viewer' });
    const forged = genuine.split('.');
    forged[1] = Buffer.from(
      JSON.stringify({
        role: 'admin',
        sub: 'mallory',
        iss: ISSUER,
        aud: AUDIENCE,
        exp: Math.floor(now / 1000) + 60,
      }),
    ).toString('base64url');
    expect(await reason(forged.join('.'))).toBe('invalid');
  });

  it('refuses a JWT without exp, and one issued in the future beyond the clock skew', async () => {
    const s = await start(oidcEnv());
    const signed = (claims: JWTPayload) =>
      new SignJWT({ role: 'admin', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
        .setSubject('alice@example.test')
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .sign(rsa.privateKey);
    const seconds = Math.floor(now / 1000);
    const forever = await api(s, '/auth/me', { token: await signed({ iat: seconds }) });
    expect(forever.status).toBe(401);
    expect(forever.json).toMatchObject({ reason: 'no_expiry', detail: expect.stringMatching(/no expiry/) });
    const future = await api(s, '/auth/me', {
      token: await signed({ iat: seconds + 600, exp: seconds + 3600 }),
    });
    expect(future.status).toBe(401);
    expect(future.json.reason).toBe('issued_in_future');
    // Within the skew (a provider's clock a few seconds ahead), and without iat at all: accepted.
    expect(
      (await api(s, '/auth/me', { token: await signed({ iat: seconds + 20, exp: seconds + 3600 }) })).status,
    ).toBe(200);
    expect((await api(s, '/auth/me', { token: await signed({ exp: seconds + 3600 }) })).status).toBe(200);
  });

  it('keeps a JWT without a tenant claim to the default tenant', async () => {
    const s = await start(oidcEnv());
    await twoAppEstate(s, 'acme');
    const unbound = await jwt({ role: 'admin' });
    const other = await api(s, '/graphql', { query: PATHS, token: unbound, tenant: 'acme' });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ reason: 'tenant', detail: expect.stringContaining('"acme"') });
    expect((await api(s, '/graphql', { query: PATHS, token: unbound })).json.data.attackPaths).toEqual([]);
    const bound = await jwt({ role: 'viewer', tenant: 'acme' });
    expect((await api(s, '/graphql', { query: PATHS, token: bound })).json.data.attackPaths).toHaveLength(2);
  });

  it('gives OIDC_DEFAULT_ROLE to everyone the provider authenticates, with a warning at start', async () => {
    const s = await start(
      oidcEnv({
        OIDC_DEFAULT_ROLE: 'viewer',
        OIDC_CLIENT_ID: 'pathgate-web',
        OIDC_AUTHORIZE_URL: 'https://idp.example.test/authorize',
        OIDC_TOKEN_URL: 'https://idp.example.test/token',
      }),
    );
    expect((await api(s, '/auth/me', { token: await jwt({}) })).json.role).toBe('viewer');
    expect(logs.join('')).toMatch(/OIDC_DEFAULT_ROLE=viewer/);
    // Bearer credentials and the published SSO sign-in: `both`.
    expect((await api(s, '/auth/config')).json).toEqual({
      authRequired: true,
      mode: 'both',
      oidc: {
        clientId: 'pathgate-web',
        authorizeUrl: 'https://idp.example.test/authorize',
        tokenUrl: 'https://idp.example.test/token',
        logoutUrl: null,
        issuer: ISSUER,
      },
    });
  });
  it('/auth/config mode is token for OIDC bearer JWTs without a published sign-in, both once OIDC_CLIENT_ID and OIDC_AUTHORIZE_URL are set', async () => {
    const bearerOnly = await start(oidcEnv({}));
    expect((await api(bearerOnly, '/auth/config')).json.mode).toBe('token');
    await bearerOnly.dispose();
    const withClientOnly = await start(oidcEnv({ OIDC_CLIENT_ID: 'pathgate-web' }));
    expect((await api(withClientOnly, '/auth/config')).json.mode).toBe('token');
    await withClientOnly.dispose();
    const tokensAndSso = await start(
      oidcEnv({
        API_TOKENS: TOKENS,
        OIDC_CLIENT_ID: 'pathgate-web',
        OIDC_AUTHORIZE_URL: 'https://idp.example.test/authorize',
      }),
    );
    expect((await api(tokensAndSso, '/auth/config')).json.mode).toBe('both');
  });

  it('/auth/config answers the 0.x words behind AUTH_CONFIG_LEGACY_MODE=true (deprecated)', async () => {
    const open = await start({ AUTH_CONFIG_LEGACY_MODE: 'true' });
    expect((await api(open, '/auth/config')).json.mode).toBe('open');
    await open.dispose();
    const tokens = await start({ API_TOKENS: TOKENS, AUTH_CONFIG_LEGACY_MODE: 'true' });
    expect((await api(tokens, '/auth/config')).json.mode).toBe('token');
    await tokens.dispose();
    const both = await start(oidcEnv({ API_TOKENS: TOKENS, AUTH_CONFIG_LEGACY_MODE: 'true' }));
    expect((await api(both, '/auth/config')).json.mode).toBe('token+oidc');
  });
});

describe('lockout and rate limits', () => {
  it('locks a client out after repeated failures, for 15 minutes, on both listeners', async () => {
    const s = await start({
      API_TOKENS: TOKENS,
      AUTH_LOCKOUT_THRESHOLD: '3',
      INGEST_HMAC_SECRET: 'ingest-secret-xyz',
    });
    for (let i = 0; i < 3; i++)
      expect((await api(s, '/auth/me', { token: `guess-number-${i}-xxxxxxxx` })).status).toBe(401);
    const locked = await api(s, '/auth/me', { token: VIEWER });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(logs.join('')).toMatch(/auth\.lockout\.alert/);
    // The same client is locked out of ingest too.
    const ingest = await s.ingestApp.inject({
      method: 'POST',
      url: '/ingest/events',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(ingest.statusCode).toBe(429);
    now += 15 * 60_000;
    expect((await api(s, '/auth/me', { token: VIEWER })).status).toBe(200);
  });

  it('counts failed ingest signatures towards the lockout', async () => {
    const s = await start({ INGEST_HMAC_SECRET: 'ingest-secret-xyz', AUTH_LOCKOUT_THRESHOLD: '2' });
    const bad = () =>
      s.ingestApp.inject({
        method: 'POST',
        url: '/ingest/events',
        headers: { 'content-type': 'application/json', 'x-service-signature': 'sha256=00' },
        payload: '{}',
      });
    expect((await bad()).statusCode).toBe(401);
    expect((await bad()).statusCode).toBe(401);
    expect((await bad()).statusCode).toBe(429);
  });

  it('limits each client to its rate with a burst of twice that, per client behind a trusted proxy', async () => {
    const s = await start({ API_RATE_RPS: '1', TRUSTED_PROXY_CIDRS: '127.0.0.1/32' });
    const from = (ip?: string) => api(s, '/auth/config', ip ? { headers: { 'x-forwarded-for': ip } } : {});
    expect((await from('198.51.100.7')).status).toBe(200);
    expect((await from('198.51.100.7')).status).toBe(200);
    const limited = await from('198.51.100.7');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    // Another client behind the same proxy has its own bucket.
    expect((await from('203.0.113.9')).status).toBe(200);
    now += 1000;
    expect((await from('198.51.100.7')).status).toBe(200);
  });

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    const s = await start({ API_RATE_RPS: '1' });
    const from = (ip: string) => api(s, '/auth/config', { headers: { 'x-forwarded-for': ip } });
    expect((await from('198.51.100.1')).status).toBe(200);
    expect((await from('198.51.100.2')).status).toBe(200);
    expect((await from('198.51.100.3')).status).toBe(429);
  });
});

describe('CORS', () => {
  it('echoes an allowed origin, never *, and answers its preflight', async () => {
    const s = await start({ CORS_ALLOWED_ORIGINS: 'https://dash.example.test' });
    const allowed = await api(s, '/healthz', { headers: { origin: 'https://dash.example.test' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://dash.example.test');
    const other = await api(s, '/healthz', { headers: { origin: 'https://evil.example.test' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await s.apiApp.inject({
      method: 'OPTIONS',
      url: '/graphql',
      headers: { origin: 'https://dash.example.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
  });
});

describe('settings that stop start-up', () => {
  it('refuses an anonymous role other than viewer, OIDC without issuer and audience, and production without auth', () => {
    expect(startupRefusal({ API_ANONYMOUS_ROLE: 'admin' })).toMatch(
      /API_ANONYMOUS_ROLE="admin" is not accepted; only viewer/,
    );
    expect(startupRefusal({ OIDC_JWKS_URL: 'https://idp.example.test/jwks' })).toMatch(
      /OIDC_JWKS_URL is set without OIDC_ISSUER and OIDC_AUDIENCE/,
    );
    expect(startupRefusal({ PG_ENV: 'production', API_TOKENS: `${VIEWER}:viewer` })).toMatch(
      /PG_ENV=production .* missing: ingest/,
    );
    expect(startupRefusal({ PG_ENV: 'production', INGEST_HMAC_SECRET: 'x' })).toMatch(/missing: API/);
    // The spec: production also refuses to start without the graph store (DB_DSN).
    expect(
      startupRefusal({ PG_ENV: 'production', INGEST_HMAC_SECRET: 'x', API_TOKENS: `${VIEWER}:viewer` }),
    ).toMatch(/PG_ENV=production needs the graph store: set DB_DSN/);
    expect(
      startupRefusal({
        PG_ENV: 'production',
        INGEST_HMAC_SECRET: 'x',
        API_TOKENS: `${VIEWER}:viewer`,
        DB_DSN: 'postgres://postgres@127.0.0.1:5432/test',
      }),
    ).toBe('started');
    expect(startupRefusal({ API_TOKENS_FILE: '/nonexistent/tokens' })).toMatch(
      /API_TOKENS_FILE="\/nonexistent\/tokens" cannot be read/,
    );
    expect(startupRefusal({ TRUSTED_PROXY_CIDRS: '10.0.0.0/33' })).toMatch(/TRUSTED_PROXY_CIDRS/);
    expect(startupRefusal({ TLS_CERT_FILE: '/etc/hostname' })).toMatch(
      /TLS_CERT_FILE and TLS_KEY_FILE go together/,
    );
  });
});
