// The API listener's one policy layer: every route passes through it. A route declares what it needs in
// `config.access` (default `read`): `public` (no credential: /healthz, /auth/config), `self` (any
// authenticated principal, even one without a role: /auth/me), `read` (viewer or above), `write` (admin),
// `admin` (an admin reading what only admins read: GET /audit),
// `ai` and `gate` (viewer or above, never anonymous). The principal comes from a static token or an OIDC
// JWT; the tenant a request reads is the one its credential is bound to, and a credential bound to none
// (anonymous callers, unbound tokens, JWTs without a tenant claim) reads the default tenant only. Every
// decision is taken on the route's pattern (`routeOptions.url`), never on the raw URL, which a client may
// percent-encode. docs/security.md.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkToken } from '../../src/auth/api-tokens.js';
import type { OidcFailure, OidcVerifier } from '../../src/auth/oidc.js';
import { ANONYMOUS_VIEWER, atLeast, OPEN_PRINCIPAL, type Principal } from '../../src/auth/principal.js';
import type { Lockout } from '../../src/auth/rate-limit.js';
import { apiAuthEnabled, type AuthSettings } from '../../src/config/settings.js';
import { DEFAULT_TENANT, TENANT_NAME } from '../../src/engine/tenant.js';
import { problem, type ProblemCode } from '../../src/http/problems.js';
import type { Log } from '../../src/log/logger.js';
import type { Metrics } from '../../src/metrics/metrics.js';
import { sendProblem } from './http-base.js';

export type Access = 'public' | 'self' | 'read' | 'write' | 'admin' | 'ai' | 'gate';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** the tenant this request reads or writes, after the credential's binding */
    tenant: string;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** the setting behind the route's own body limit, named in its 413 (app/plugins/http-base.ts) */
    bodyLimitSetting?: string;
  }
}

export interface ApiAuthDeps {
  auth: AuthSettings;
  oidc?: OidcVerifier;
  lockout: Lockout;
  metrics: Metrics;
  log: Log;
  now: () => number;
  /** called when a failure locks a client out (the audit log records `auth.lockout.alert`) */
  onLockout?: (request: FastifyRequest) => void;
  /** called for every refusal (the audit log records `auth.deny`, naming `request.principal` when known) */
  onDeny?: (request: FastifyRequest, reason: string) => void;
}

// The requests whose tenant the policy layer settled (the audit log's `tenant`; null for the others).
const settled = new WeakSet<FastifyRequest>();

/** The tenant a request was admitted to, or null when it was refused before (or public, or not seen). */
export function admittedTenant(request: FastifyRequest): string | null {
  return settled.has(request) ? request.tenant : null;
}

/** Route patterns under `/ai/` are never for anonymous callers, whatever a route declares. */
const AI_ROUTE = /^\/ai(?:\/|$)/;

/** A route's pattern as the router matches it: a pattern registered percent-encoded is judged decoded. */
function routePattern(request: FastifyRequest): string {
  const pattern = request.routeOptions.url ?? request.url.split('?')[0];
  try {
    return decodeURIComponent(pattern);
  } catch {
    return pattern;
  }
}

const JWT_REFUSALS: Readonly<Record<OidcFailure, string>> = {
  expired: 'the token has expired',
  invalid: 'the token is not valid here',
  no_expiry: 'the token has no expiry (exp claim): tokens that never expire are not accepted',
  issued_in_future: 'the token is issued in the future (iat claim ahead of the server clock)',
};

class Refusal {
  constructor(
    readonly code: ProblemCode,
    readonly reason: string,
    readonly detail: string,
  ) {}
}

export function registerApiAuth(app: FastifyInstance, deps: ApiAuthDeps): void {
  const enabled = apiAuthEnabled(deps.auth);
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('tenant', DEFAULT_TENANT);

  async function authenticate(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    if (!enabled) return OPEN_PRINCIPAL;
    if (header === undefined || header === '') {
      if (deps.auth.anonymousRole === 'viewer') return ANONYMOUS_VIEWER;
      throw new Refusal('unauthorized', 'missing', 'send Authorization: Bearer <token>');
    }
    const match = /^Bearer +([^\s]+)$/i.exec(header);
    if (!match)
      throw new Refusal('unauthorized', 'malformed', 'the Authorization header is not Bearer <token>');
    const token = match[1];
    const now = deps.now();
    const fromList = checkToken(deps.auth.apiTokens, token, now);
    if ('principal' in fromList) return fromList.principal;
    if (fromList.failure === 'expired') throw new Refusal('unauthorized', 'expired', 'the token has expired');
    if (deps.oidc && token.split('.').length === 3) {
      const fromJwt = await deps.oidc.verify(token, now);
      if ('principal' in fromJwt) return fromJwt.principal;
      throw new Refusal('unauthorized', fromJwt.failure, JWT_REFUSALS[fromJwt.failure]);
    }
    throw new Refusal('unauthorized', 'unknown', 'the token is not valid here');
  }

  function authorize(principal: Principal, access: Access, path: string): void {
    // `/ai/*` is never for anonymous callers, whatever a future route declares. `path` is the route's
    // pattern: `/%61i/explain` matched the route `/ai/explain`, and that is what is judged.
    const effective: Access = AI_ROUTE.test(path) && access !== 'public' ? 'ai' : access;
    if (effective === 'public' || effective === 'self') return;
    if (
      (effective === 'ai' || effective === 'gate' || effective === 'write' || effective === 'admin') &&
      principal.anonymous
    )
      throw new Refusal('forbidden', `anonymous_${effective}`, `anonymous callers may not use ${path}`);
    if (effective === 'write' && principal.role !== 'admin')
      throw new Refusal('forbidden', 'not_admin', 'writes need the admin role');
    if (effective === 'admin' && principal.role !== 'admin')
      throw new Refusal('forbidden', 'not_admin', `${path} needs the admin role`);
    if (!atLeast(principal.role, 'viewer'))
      throw new Refusal('forbidden', 'no_role', 'this credential has no role: it sees nothing');
  }

  /**
   * The tenant a request reads: the credential's. An unbound credential (anonymous, a token without a
   * tenant, a JWT without the tenant claim) belongs to the default tenant; only the open API (no auth
   * configured, everyone an admin, warned at start) chooses with X-Tenant.
   */
  function tenantOf(request: FastifyRequest, principal: Principal): string {
    const header = request.headers['x-tenant'];
    const asked = typeof header === 'string' && header !== '' ? header : undefined;
    if (asked !== undefined && !TENANT_NAME.test(asked))
      throw new Refusal('forbidden', 'tenant', `${JSON.stringify(asked)} is not a tenant name`);
    if (!enabled) return asked ?? DEFAULT_TENANT;
    const bound = principal.tenant ?? DEFAULT_TENANT;
    if (asked !== undefined && asked !== bound)
      throw new Refusal(
        'forbidden',
        'tenant',
        principal.tenant === undefined
          ? `tenant ${JSON.stringify(asked)} is not readable with this credential: it is bound to no tenant, so it reads the default tenant only`
          : `tenant ${JSON.stringify(asked)} is not readable with this credential: it is bound to another tenant`,
      );
    return bound;
  }

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const access: Access = request.routeOptions.config?.access ?? 'read';
    try {
      if (access === 'public') {
        request.principal = enabled ? ANONYMOUS_VIEWER : OPEN_PRINCIPAL;
        return;
      }
      const principal = await authenticate(request);
      // Known from here on, so a refusal below is recorded against the principal that was refused.
      request.principal = principal;
      authorize(principal, access, routePattern(request));
      request.tenant = tenantOf(request, principal);
      settled.add(request);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      deps.metrics.authDenied.inc({ surface: 'api', reason: error.reason });
      deps.onDeny?.(request, error.reason);
      if (error.code === 'unauthorized') {
        reply.header('www-authenticate', 'Bearer');
        // Only presented credentials count towards a lockout: a missing one is not a guess.
        if (error.reason !== 'missing' && deps.lockout.fail(request.clientIp, deps.now())) {
          deps.log.warn(
            { event: 'auth.lockout.alert', client: request.clientIp },
            'client locked out after repeated failed authentication',
          );
          deps.onLockout?.(request);
        }
      }
      return sendProblem(reply, { ...problem(error.code, error.detail), reason: error.reason });
    }
  });
}
