// API authentication and client guard settings (API_TOKENS, OIDC_*, TRUSTED_PROXY_CIDRS, rates, lockout, CORS),
// ingest secrets, the audit log and its store key: read by loadSettings (settings.ts).
import { readFileSync } from 'node:fs';
import { parseStoreKey } from '../audit/cipher.js';
import { parseApiTokens, type ApiToken } from '../auth/api-tokens.js';
import type { OidcSettings } from '../auth/oidc.js';
import { isRole, type Role } from '../auth/principal.js';
import { TrustedProxies } from '../auth/client-ip.js';
import { TENANT_NAME } from '../engine/tenant.js';
import {
  type Reader,
  parseAddress,
  parseBoolean,
  parseCount,
  parseEnum,
  parseList,
  parseRate,
  parseUrl,
} from './parsers.js';
import { type GraphqlLimits, readGraphqlLimits } from './graphql-settings.js';
import type { Env, ListenAddress } from './settings.js';

/** The audit log (docs/security.md). */
export interface AuditSettings {
  path?: string;
  /** AUDIT_RETENTION: records older than this are pruned (src/audit/retention.ts) */
  retentionMs?: number;
  /** STORE_ENCRYPTION_KEY: 32 bytes; the audit log's lines are sealed with AES-256-GCM */
  key?: Buffer;
  exfilThreshold?: number;
}

/** API authentication, limits and listener hardening (docs/security.md). */
export interface AuthSettings {
  apiTokens: ApiToken[];
  /** notes to log at start: dropped token entries, dropped group-role entries (never a secret) */
  notes: { level: 'warn' | 'error'; message: string }[];
  anonymousRole?: 'viewer';
  oidc?: OidcSettings;
  /** published by GET /auth/config for the SPA's PKCE login */
  oidcPublic: { clientId?: string; authorizeUrl?: string; tokenUrl?: string; logoutUrl?: string };
  /** AUTH_CONFIG_LEGACY_MODE: `GET /auth/config` answers the 0.x `mode` words (deprecated; docs/security.md) */
  legacyConfigMode?: boolean;
  ingestRateRps: number;
  apiRateRps: number;
  lockoutThreshold: number;
  trustedProxies: string[];
  corsOrigins: string[];
  metricsAddr?: ListenAddress;
  tls?: { cert: string; key: string };
  production: boolean;
  /** GRAPHQL_*: what one GraphQL request may ask for and one answer may carry (app/graphql/limits.ts) */
  graphql?: GraphqlLimits;
}

export function apiAuthEnabled(auth: AuthSettings): boolean {
  return auth.apiTokens.length > 0 || auth.oidc !== undefined;
}

/**
 * A secret-bearing setting: from `NAME`, or from the file `NAME_FILE` names (one trailing newline
 * stripped). Problems name the variable and the file, never the secret.
 */
export function readSecret(env: Env, name: string, problems: string[]): string | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  const hasDirect = direct !== undefined && direct !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasDirect && hasFile) {
    problems.push(`${name} and ${name}_FILE are both set; set one`);
    return undefined;
  }
  if (hasFile) {
    try {
      const text = readFileSync(file.trim(), 'utf8').replace(/\r?\n$/, '');
      if (!text) problems.push(`${name}_FILE=${JSON.stringify(file)} is empty`);
      return text || undefined;
    } catch (error) {
      problems.push(
        `${name}_FILE=${JSON.stringify(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return undefined;
    }
  }
  return hasDirect ? direct : undefined;
}

/** `INGEST_HMAC_SECRETS`: `<tenant>:<secret>,...`; a bad entry is named by its position, never echoed. */
export function parseTenantSecrets(text: string | undefined, problems: string[]): Map<string, string> {
  const tenants = new Map<string, string>();
  if (text === undefined) return tenants;
  text.split(',').forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const tenant = colon < 0 ? '' : entry.slice(0, colon).trim();
    const secret = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!TENANT_NAME.test(tenant) || !secret) {
      problems.push(
        `INGEST_HMAC_SECRETS entry ${index + 1} is not <tenant>:<secret> (tenant: lowercase letters, digits, - and _)`,
      );
    } else if (tenants.has(tenant)) {
      problems.push(`INGEST_HMAC_SECRETS names tenant ${JSON.stringify(tenant)} twice`);
    } else tenants.set(tenant, secret);
  });
  return tenants;
}

export function readAuth(env: Env, problems: string[], read: Reader): AuthSettings {
  const notes: AuthSettings['notes'] = [];
  const tokenText = readSecret(env, 'API_TOKENS', problems);
  const tokens = parseApiTokens(tokenText);
  for (const message of tokens.dropped) notes.push({ level: 'error', message });
  // Present but unusable would leave the API open, as admin, to everyone: refuse instead. The reasons name
  // entries by position, never a token.
  if (tokenText !== undefined && tokenText.trim() !== '' && !tokens.tokens.length) {
    const name = env.API_TOKENS_FILE?.trim() ? 'API_TOKENS_FILE' : 'API_TOKENS';
    const why = tokens.dropped.map((d) => d.replace(/^API_TOKENS /, '')).join('; ');
    problems.push(
      `${name} is set but yields no valid token (${why || 'no entries'}); refusing to start with the API open`,
    );
  }
  const anonymous = read<string | undefined>('API_ANONYMOUS_ROLE', (t) => t.trim(), undefined);
  if (anonymous !== undefined && anonymous !== 'viewer')
    problems.push(`API_ANONYMOUS_ROLE=${JSON.stringify(anonymous)} is not accepted; only viewer is`);
  const jwksUrl = read<string | undefined>('OIDC_JWKS_URL', parseUrl, undefined);
  const issuer = read<string | undefined>('OIDC_ISSUER', (t) => t.trim(), undefined);
  const audience = read<string | undefined>('OIDC_AUDIENCE', (t) => t.trim(), undefined);
  // Every OIDC setting is read (and checked) whether or not OIDC is on, so a typo never waits for the day
  // it is switched on.
  const groupRoles = new Map<string, Role>();
  for (const entry of parseList(env.OIDC_GROUP_ROLES ?? '')) {
    const eq = entry.lastIndexOf('=');
    const group = entry.slice(0, eq).trim();
    const role = entry.slice(eq + 1).trim();
    if (eq <= 0 || !isRole(role))
      notes.push({
        level: 'error',
        message: `OIDC_GROUP_ROLES entry ${JSON.stringify(entry)} dropped: not <group>=<role>`,
      });
    else groupRoles.set(group, role);
  }
  const defaultRole = read<Role | undefined>(
    'OIDC_DEFAULT_ROLE',
    parseEnum<Role>(['none', 'viewer', 'operator', 'admin']),
    undefined,
  );
  const claims = {
    roleClaim: read('OIDC_ROLE_CLAIM', (t) => t.trim(), 'role'),
    tenantClaim: read('OIDC_TENANT_CLAIM', (t) => t.trim(), 'tenant'),
    appsClaim: read('OIDC_APPS_CLAIM', (t) => t.trim(), 'apps'),
    groupsClaim: read('OIDC_GROUPS_CLAIM', (t) => t.trim(), 'groups'),
  };
  let oidc: OidcSettings | undefined;
  if (jwksUrl !== undefined) {
    if (!issuer || !audience) {
      problems.push(
        `OIDC_JWKS_URL is set without ${[!issuer && 'OIDC_ISSUER', !audience && 'OIDC_AUDIENCE'].filter(Boolean).join(' and ')}; both are required`,
      );
    } else {
      if (defaultRole && defaultRole !== 'none')
        notes.push({
          level: 'warn',
          message: `OIDC_DEFAULT_ROLE=${defaultRole}: everyone the identity provider authenticates gets it`,
        });
      oidc = { jwksUrl, issuer, audience, ...claims, groupRoles, defaultRole };
    }
  }
  const trustedProxies = read('TRUSTED_PROXY_CIDRS', parseList, [] as string[]);
  try {
    new TrustedProxies(trustedProxies);
  } catch (error) {
    problems.push(`TRUSTED_PROXY_CIDRS: ${(error as Error).message}`);
  }
  const certFile = read<string | undefined>('TLS_CERT_FILE', (t) => t.trim(), undefined);
  const keyFile = read<string | undefined>('TLS_KEY_FILE', (t) => t.trim(), undefined);
  let tls: AuthSettings['tls'];
  if (certFile || keyFile) {
    if (!certFile || !keyFile) problems.push('TLS_CERT_FILE and TLS_KEY_FILE go together; set both');
    else {
      try {
        tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
      } catch (error) {
        problems.push(
          `TLS_CERT_FILE/TLS_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    }
  }
  const production =
    read<string | undefined>('PG_ENV', (t) => t.trim().toLowerCase(), undefined) === 'production';
  return {
    apiTokens: tokens.tokens,
    notes,
    anonymousRole: anonymous === 'viewer' ? 'viewer' : undefined,
    oidc,
    oidcPublic: {
      clientId: read<string | undefined>('OIDC_CLIENT_ID', (t) => t.trim(), undefined),
      authorizeUrl: read<string | undefined>('OIDC_AUTHORIZE_URL', parseUrl, undefined),
      tokenUrl: read<string | undefined>('OIDC_TOKEN_URL', parseUrl, undefined),
      logoutUrl: read<string | undefined>('OIDC_LOGOUT_URL', parseUrl, undefined),
    },
    legacyConfigMode: read('AUTH_CONFIG_LEGACY_MODE', parseBoolean, false),
    ingestRateRps: read('INGEST_RATE_RPS', parseRate, 50),
    apiRateRps: read('API_RATE_RPS', parseRate, 20),
    lockoutThreshold: read('AUTH_LOCKOUT_THRESHOLD', parseCount, 10),
    trustedProxies,
    corsOrigins: read('CORS_ALLOWED_ORIGINS', parseList, [] as string[]),
    metricsAddr: read<ListenAddress | undefined>('METRICS_ADDR', parseAddress, undefined),
    tls,
    production,
    graphql: readGraphqlLimits(read),
  };
}

export function readStoreKey(env: Env, problems: string[]): Buffer | undefined {
  const text = readSecret(env, 'STORE_ENCRYPTION_KEY', problems);
  if (text === undefined) return undefined;
  try {
    return parseStoreKey(text);
  } catch (error) {
    problems.push(`STORE_ENCRYPTION_KEY ${(error as Error).message}`);
    return undefined;
  }
}
