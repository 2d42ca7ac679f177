// Ingest signatures (spec "Authentication / Ingest"): HMAC-SHA256 keyed by the tenant's secret.
// v2 signs six lines (`v2`, unix time, method, path, query sorted by name as sent, SHA-256 of the body), is
// accepted within ±5 minutes of its time and only once; v1 signs the body alone. The secret never travels
// and never appears in a log, an error or a response. docs/security.md has the threat model.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TENANT } from '../engine/tenant.js';

export const SIGNATURE_WINDOW_MS = 5 * 60_000;

export const HEADER_TIMESTAMP = 'x-service-timestamp';
export const HEADER_V2 = 'x-service-signature-v2';
export const HEADER_V1 = 'x-service-signature';

export interface IngestSecrets {
  /** `INGEST_HMAC_SECRET`: the default tenant's secret */
  single?: string;
  /** `INGEST_HMAC_SECRETS`: tenant -> secret */
  tenants: ReadonlyMap<string, string>;
  /** `INGEST_HMAC_ACCEPT_V1` (default true) */
  acceptV1: boolean;
}

export type SignatureVersion = 'v1' | 'v2';

/** Why a request was refused; the metric label and the problem's detail come from it. */
export type SignatureFailure =
  'missing' | 'malformed' | 'unknown_tenant' | 'expired' | 'bad_signature' | 'replayed' | 'v1_disabled';

export class SignatureError extends Error {
  constructor(
    readonly reason: SignatureFailure,
    detail: string,
  ) {
    super(detail);
  }
}

export function signingEnabled(secrets: IngestSecrets): boolean {
  return secrets.single !== undefined || secrets.tenants.size > 0;
}

/** The query string with its parameters sorted by name (stable), each kept exactly as sent. */
export function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  const parameters = rawQuery.split('&').filter((p) => p.length > 0);
  const name = (p: string) => {
    const eq = p.indexOf('=');
    return eq < 0 ? p : p.slice(0, eq);
  };
  return parameters
    .map((p, i) => ({ p, i, n: name(p) }))
    .sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : a.i - b.i))
    .map((x) => x.p)
    .join('&');
}

export function bodyDigest(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The six signed lines of v2, joined by `\n`, no trailing newline. */
export function v2Payload(
  timestamp: string,
  method: string,
  path: string,
  rawQuery: string,
  body: Buffer | string,
) {
  return ['v2', timestamp, method.toUpperCase(), path, canonicalQuery(rawQuery), bodyDigest(body)].join('\n');
}

/** What a client sends in `X-Service-Signature-V2` (`v2=<hex>`). */
export function signV2(
  secret: string,
  request: { timestamp: string; method: string; path: string; rawQuery: string; body: Buffer | string },
): string {
  const payload = v2Payload(request.timestamp, request.method, request.path, request.rawQuery, request.body);
  return `v2=${createHmac('sha256', secret).update(payload).digest('hex')}`;
}

/** The v2 headers a client adds to a signed POST of `body` to `url` (the CLIs' reports and catalogs). */
export function signedPostHeaders(
  secret: string,
  url: URL,
  body: Buffer | string,
  now = Date.now(),
): { 'x-service-timestamp': string; 'x-service-signature-v2': string } {
  const timestamp = String(Math.floor(now / 1000));
  return {
    'x-service-timestamp': timestamp,
    'x-service-signature-v2': signV2(secret, {
      timestamp,
      method: 'POST',
      path: url.pathname,
      rawQuery: url.search.slice(1),
      body,
    }),
  };
}

/** What a client sends in `X-Service-Signature` (`sha256=<hex>`). */
export function signV1(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * v2 signatures seen within the window, so each is accepted once. Bounded: when full, the oldest entry is
 * forgotten and its timestamp becomes a floor below which every signature is refused as expired, so a
 * forgotten signature can never be replayed.
 */
export class ReplayCache {
  private readonly seen = new Map<string, number>();
  private floorMs = -Infinity;

  constructor(
    private readonly capacity = 100_000,
    private readonly windowMs = SIGNATURE_WINDOW_MS,
  ) {}

  /** Records the signature; false when it was already used (or is at or below the floor). */
  use(signature: string, timestampMs: number, nowMs: number): boolean {
    this.evictExpired(nowMs);
    if (timestampMs <= this.floorMs || this.seen.has(signature)) return false;
    if (this.seen.size >= this.capacity) {
      const [oldest, at] = this.seen.entries().next().value as [string, number];
      this.seen.delete(oldest);
      this.floorMs = Math.max(this.floorMs, at);
      if (timestampMs <= this.floorMs) return false;
    }
    this.seen.set(signature, timestampMs);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }

  /** Entries leave once their timestamp is out of the window. Insertion order approximates time order. */
  private evictExpired(nowMs: number): void {
    for (const [signature, at] of this.seen) {
      if (at >= nowMs - this.windowMs) break;
      this.seen.delete(signature);
    }
  }
}

export interface SignedRequest {
  method: string;
  /** the URL as sent: path and raw query */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The tenant a request speaks for, and the secret that must have signed it. */
export function tenantSecret(
  secrets: IngestSecrets,
  tenantHeader: string | undefined,
): { tenant: string; secret: string } {
  const tenant = tenantHeader || DEFAULT_TENANT;
  const perTenant = secrets.tenants.get(tenant);
  if (perTenant !== undefined) return { tenant, secret: perTenant };
  if (tenant === DEFAULT_TENANT && secrets.single !== undefined) return { tenant, secret: secrets.single };
  throw new SignatureError('unknown_tenant', `tenant ${JSON.stringify(tenant)} has no ingest secret`);
}

/** The checks that need no body: run before a large report is read. */
export function precheck(secrets: IngestSecrets, request: Omit<SignedRequest, 'body'>, nowMs: number): void {
  tenantSecret(secrets, header(request.headers, 'x-tenant'));
  const v2 = header(request.headers, HEADER_V2);
  if (v2 !== undefined) {
    timestampOf(request.headers, nowMs);
    return;
  }
  if (header(request.headers, HEADER_V1) !== undefined) {
    if (!secrets.acceptV1)
      throw new SignatureError(
        'v1_disabled',
        'v1 signatures are not accepted here (INGEST_HMAC_ACCEPT_V1=false); sign with v2',
      );
    return;
  }
  throw new SignatureError(
    'missing',
    'ingest requests must be signed: X-Service-Timestamp and X-Service-Signature-V2 (or X-Service-Signature)',
  );
}

/** Verifies a request's signature; returns the authenticated tenant and the version used. */
export function verify(
  secrets: IngestSecrets,
  request: SignedRequest,
  replay: ReplayCache,
  nowMs: number,
): { tenant: string; version: SignatureVersion } {
  precheck(secrets, request, nowMs);
  const { tenant, secret } = tenantSecret(secrets, header(request.headers, 'x-tenant'));
  const query = request.url.indexOf('?');
  const path = query < 0 ? request.url : request.url.slice(0, query);
  const rawQuery = query < 0 ? '' : request.url.slice(query + 1);
  const v2 = header(request.headers, HEADER_V2);
  if (v2 !== undefined) {
    const timestamp = header(request.headers, HEADER_TIMESTAMP)!;
    const expected = signV2(secret, {
      timestamp,
      method: request.method,
      path,
      rawQuery,
      body: request.body,
    });
    if (!sameSignature(v2, expected))
      throw new SignatureError('bad_signature', 'the v2 signature does not match the request');
    if (!replay.use(expected, timestampOf(request.headers, nowMs), nowMs))
      throw new SignatureError('replayed', 'this v2 signature was already used; sign each request afresh');
    return { tenant, version: 'v2' };
  }
  const v1 = header(request.headers, HEADER_V1)!;
  if (!sameSignature(v1, signV1(secret, request.body)))
    throw new SignatureError('bad_signature', 'the v1 signature does not match the body');
  return { tenant, version: 'v1' };
}

function timestampOf(headers: SignedRequest['headers'], nowMs: number): number {
  const raw = header(headers, HEADER_TIMESTAMP);
  if (raw === undefined || !/^\d{1,12}$/.test(raw))
    throw new SignatureError('malformed', 'X-Service-Timestamp must be the unix time in seconds');
  const ms = Number(raw) * 1000;
  if (Math.abs(nowMs - ms) > SIGNATURE_WINDOW_MS)
    throw new SignatureError('expired', 'X-Service-Timestamp is more than 5 minutes from the server clock');
  return ms;
}

/** Constant-time comparison of what was sent with what was expected (lengths compared first). */
function sameSignature(sent: string, expected: string): boolean {
  const a = Buffer.from(sent.trim().toLowerCase());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function header(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}
