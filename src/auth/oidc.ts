// OIDC bearer tokens: a JWT signed RS256/384/512 or ES256/384/512, verified against the identity
// provider's JWKS (fetched and cached by jose), with the issuer and audience required. jose refuses a key of
// the wrong kind or curve for the token's algorithm, and HS*/none are never in the allowed list, so an
// attacker cannot pass the public key off as an HMAC secret. A token must say when it expires (`exp`), and
// one issued in the future (`iat` beyond the clock skew) is refused: a token that never expires is a
// credential that cannot be revoked. Claims map to a role, a tenant and apps.
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { TENANT_NAME } from '../engine/tenant.js';
import { higher, isRole, type Principal, type Role } from './principal.js';

const MAX_REMEMBERED = 10_000;

export const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

export interface OidcSettings {
  jwksUrl: string;
  issuer: string;
  audience: string;
  roleClaim: string;
  tenantClaim: string;
  appsClaim: string;
  groupsClaim: string;
  /** group -> role */
  groupRoles: ReadonlyMap<string, Role>;
  defaultRole?: Role;
}

/** Seconds a token's times may be off from our clock (exp, nbf and iat alike). */
export const CLOCK_SKEW_SECONDS = 30;

/** Why a JWT was refused: `no_expiry` (no `exp`), `issued_in_future` (`iat` ahead of the clock and skew). */
export type OidcFailure = 'expired' | 'invalid' | 'no_expiry' | 'issued_in_future';

export type OidcCheck = { principal: Principal } | { failure: OidcFailure };

export interface OidcVerifier {
  verify(token: string, nowMs: number): Promise<OidcCheck>;
}

export function createOidcVerifier(settings: OidcSettings): OidcVerifier {
  const jwks = createRemoteJWKSet(new URL(settings.jwksUrl), {
    timeoutDuration: 5000,
    cooldownDuration: 30_000,
  });
  // A verified token is remembered until it expires: the next request with it costs a map lookup, not a
  // signature check. Bounded; the oldest entries go first.
  const verified = new Map<string, { principal: Principal; expiresAt: number }>();
  return {
    async verify(token, nowMs) {
      const known = verified.get(token);
      if (known && nowMs < known.expiresAt) return { principal: known.principal };
      if (known) verified.delete(token);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: settings.issuer,
          audience: settings.audience,
          algorithms: OIDC_ALGORITHMS,
          currentDate: new Date(nowMs),
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        if (error instanceof errors.JWTExpired) return { failure: 'expired' };
        if (
          error instanceof errors.JWTClaimValidationFailed &&
          error.claim === 'exp' &&
          error.reason === 'missing'
        )
          return { failure: 'no_expiry' };
        return { failure: 'invalid' };
      }
      // jose checks `iat` only against a maximum age; one from the future says the issuer's clock (or the
      // token) is wrong.
      if (typeof payload.iat === 'number' && payload.iat > nowMs / 1000 + CLOCK_SKEW_SECONDS)
        return { failure: 'issued_in_future' };
      const principal = principalOf(payload, settings);
      if (verified.size >= MAX_REMEMBERED) verified.delete(verified.keys().next().value!);
      verified.set(token, { principal, expiresAt: payload.exp! * 1000 });
      return { principal };
    },
  };
}

/** The role is the highest of the role claim, the roles of the subject's groups and the default role. */
export function principalOf(payload: JWTPayload, settings: OidcSettings): Principal {
  let role: Role = settings.defaultRole ?? 'none';
  const claimed = payload[settings.roleClaim];
  if (isRole(claimed)) role = higher(role, claimed);
  for (const group of listClaim(payload[settings.groupsClaim])) {
    const mapped = settings.groupRoles.get(group);
    if (mapped) role = higher(role, mapped);
  }
  const tenant = payload[settings.tenantClaim];
  const apps = listClaim(payload[settings.appsClaim]);
  return {
    subject: `jwt:${typeof payload.sub === 'string' ? payload.sub : 'unknown'}`,
    role,
    // A tenant claim that is not a tenant name scopes to nothing rather than to everything.
    tenant: typeof tenant === 'string' ? (TENANT_NAME.test(tenant) ? tenant : '\u0000invalid') : undefined,
    apps: apps.length ? apps : undefined,
    anonymous: false,
  };
}

/** A claim given as a JSON array or a delimited string (comma, space or semicolon). */
export function listClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  if (typeof value === 'string') return value.split(/[,;\s]+/).filter(Boolean);
  return [];
}
