// Static API tokens (`API_TOKENS`): `<token>:<role>[:<tenant>[:<YYYY-MM-DD expiry>[:<apps>]]]`, comma
// separated; the token part may be `sha256$<hex>` so the live value is not at rest. Only digests are kept in
// memory; a presented token is hashed and compared with every entry in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { TENANT_NAME } from '../engine/tenant.js';
import { isRole, type Principal, type Role } from './principal.js';

export interface ApiToken {
  /** SHA-256 of the token */
  digest: Buffer;
  /** first 12 hex of the digest: names the token in `token:<id>` subjects and logs */
  id: string;
  role: Role;
  tenant?: string;
  /** epoch ms after which the token is refused (the end of the expiry day, UTC) */
  expiresAt?: number;
  apps?: string[];
}

export interface ParsedTokens {
  tokens: ApiToken[];
  /** one line per dropped entry, naming its position and why, never the token */
  dropped: string[];
}

/**
 * What an application name may look like (the `apps` field; GraphQL's `application` filter). Applications
 * in a token entry are separated by `|` (`:` and `,` already separate fields and entries).
 */
export const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

export function parseApiTokens(text: string | undefined): ParsedTokens {
  const out: ParsedTokens = { tokens: [], dropped: [] };
  if (!text) return out;
  text.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    if (!entry) return;
    const fields = entry.split(':');
    const why = check(fields);
    if (why) {
      out.dropped.push(`API_TOKENS entry ${index + 1} dropped: ${why}`);
      return;
    }
    const [secret, role, tenant, expiry, apps] = fields;
    const digest = secret.startsWith('sha256$')
      ? Buffer.from(secret.slice('sha256$'.length).toLowerCase(), 'hex')
      : createHash('sha256').update(secret).digest();
    out.tokens.push({
      digest,
      id: digest.toString('hex').slice(0, 12),
      role: role as Role,
      tenant: tenant || undefined,
      expiresAt: expiry ? Date.parse(`${expiry}T23:59:59.999Z`) : undefined,
      apps: apps ? apps.split('|') : undefined,
    });
  });
  return out;
}

function check(fields: string[]): string | undefined {
  if (fields.length < 2 || fields.length > 5) return 'not <token>:<role>[:<tenant>[:<expiry>[:<apps>]]]';
  const [secret, role, tenant, expiry, apps] = fields;
  if (secret.startsWith('sha256$')) {
    if (!/^sha256\$[0-9a-fA-F]{64}$/.test(secret)) return 'sha256$ must be followed by 64 hex digits';
  } else if (secret.length < 16) return 'the token is shorter than 16 characters';
  if (!isRole(role)) return `role ${JSON.stringify(role)} is not none, viewer, operator or admin`;
  if (tenant && !TENANT_NAME.test(tenant)) return `tenant ${JSON.stringify(tenant)} is not a tenant name`;
  if (expiry && (!/^\d{4}-\d{2}-\d{2}$/.test(expiry) || Number.isNaN(Date.parse(expiry))))
    return `expiry ${JSON.stringify(expiry)} is not YYYY-MM-DD`;
  if (apps !== undefined && !apps.split('|').every((a) => APP_NAME.test(a)))
    return 'apps must be names separated by |';
  return undefined;
}

export type TokenCheck = { principal: Principal } | { failure: 'unknown' | 'expired' };

/** Looks a presented bearer token up; compares against every entry so timing says nothing. */
export function checkToken(tokens: readonly ApiToken[], presented: string, nowMs: number): TokenCheck {
  const digest = createHash('sha256').update(presented).digest();
  let found: ApiToken | undefined;
  for (const token of tokens) {
    if (token.digest.length === digest.length && timingSafeEqual(token.digest, digest)) found ??= token;
  }
  if (!found) return { failure: 'unknown' };
  if (found.expiresAt !== undefined && nowMs > found.expiresAt) return { failure: 'expired' };
  return {
    principal: {
      subject: `token:${found.id}`,
      role: found.role,
      tenant: found.tenant,
      apps: found.apps,
      anonymous: false,
    },
  };
}
