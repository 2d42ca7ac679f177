// Who is asking, as every API route sees it: a subject (a fingerprint, never a credential), a role, and
// the tenant and applications the credential is scoped to, if any. docs/security.md.

export const ROLES = ['none', 'viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Readonly<Record<Role, number>> = { none: 0, viewer: 1, operator: 2, admin: 3 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function atLeast(role: Role, wanted: Role): boolean {
  return RANK[role] >= RANK[wanted];
}

/** The higher of two roles. */
export function higher(a: Role, b: Role): Role {
  return RANK[a] >= RANK[b] ? a : b;
}

export interface Principal {
  /** `token:<id>`, `jwt:<sub>`, `anonymous` or `open` (no auth configured) */
  subject: string;
  role: Role;
  /** set when the credential is bound to one tenant */
  tenant?: string;
  /** set when the credential is bound to some applications */
  apps?: string[];
  anonymous: boolean;
}

/** Writes (suppressions, tickets, verdicts, fix PRs) need admin. */
export function canWrite(principal: Principal): boolean {
  return principal.role === 'admin';
}

/** With no API auth configured everyone is an unscoped admin: the demo default, logged at start. */
export const OPEN_PRINCIPAL: Principal = Object.freeze({ subject: 'open', role: 'admin', anonymous: false });

export const ANONYMOUS_VIEWER: Principal = Object.freeze({
  subject: 'anonymous',
  role: 'viewer',
  anonymous: true,
});
