// The RBAC escalation primitives, one file each.
import { adminNamed } from './admin-named.js';
import { bindOrEscalate } from './bind-escalate.js';
import { createPods } from './create-pods.js';
import { impersonate } from './impersonate.js';
import { podExecOrPatch } from './pod-exec-patch.js';
import type { PolicyRule, RbacPrimitive } from './rbac-rule.js';
import { readSecrets } from './read-secrets.js';
import { tokenRequest } from './token-request.js';
import { wildcard } from './wildcard.js';

export const RBAC_PRIMITIVES: readonly RbacPrimitive[] = [
  wildcard,
  adminNamed,
  createPods,
  readSecrets,
  bindOrEscalate,
  impersonate,
  tokenRequest,
  podExecOrPatch,
];

export function rbacEscalation(rules: readonly PolicyRule[], roleName: string): string[] {
  return RBAC_PRIMITIVES.filter((p) => p.grants(rules, roleName)).map((p) => p.name);
}

export type { PolicyRule } from './rbac-rule.js';
