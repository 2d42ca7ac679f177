// The RBAC escalation primitives, one file each.
import { adminNamed } from './admin-named.js';
import { admissionWebhooks } from './admission-webhooks.js';
import { bindOrEscalate } from './bind-escalate.js';
import { createPods } from './create-pods.js';
import { csrApproval } from './csr-approval.js';
import { ephemeralContainers } from './ephemeral-containers.js';
import { impersonate } from './impersonate.js';
import { nodesProxy } from './nodes-proxy.js';
import { podAttach } from './pod-attach.js';
import { podExec } from './pod-exec.js';
import { podPatch } from './pod-patch.js';
import type { Grant, GrantScope, PolicyRule, RbacPrimitive, RoleContext } from './rbac-rule.js';
import { readSecrets } from './read-secrets.js';
import { tokenAccounts, tokenRequest } from './token-request.js';
import { wildcard } from './wildcard.js';

export const RBAC_PRIMITIVES: readonly RbacPrimitive[] = [
  wildcard,
  adminNamed,
  createPods,
  readSecrets,
  bindOrEscalate,
  impersonate,
  tokenRequest,
  podExec,
  podAttach,
  podPatch,
  ephemeralContainers,
  nodesProxy,
  csrApproval,
  admissionWebhooks,
];

export interface Escalation {
  /** The primitives the rules grant. */
  primitives: string[];
  /** True when every one of them is limited to named objects (resourceNames). */
  named: boolean;
  /** Service accounts (by name) whose tokens a named `serviceaccounts/token` grant mints: escalation to them. */
  tokenAccounts?: string[];
}

/**
 * The escalation primitives a role's rules grant (rules undefined: a role known only by name), bound
 * cluster-wide or in one namespace (where cluster-scoped resources are out of reach).
 */
export function rbacEscalation(
  rules: readonly PolicyRule[] | undefined,
  roleName: string,
  scope: GrantScope = 'cluster',
  context?: RoleContext,
): Escalation {
  const primitives: string[] = [];
  let named = true;
  let accounts: string[] | undefined;
  for (const primitive of RBAC_PRIMITIVES) {
    const grant: Grant | undefined = primitive.grants(rules, roleName, scope, context);
    if (!grant) continue;
    // Tokens of named accounts: an escalation to those accounts, not to the cluster's administrator.
    if (primitive === tokenRequest && grant === 'named') {
      accounts = tokenAccounts(rules);
      continue;
    }
    primitives.push(primitive.name);
    if (grant === 'any') named = false;
  }
  return {
    primitives,
    named: primitives.length > 0 && named,
    ...(accounts?.length && { tokenAccounts: accounts }),
  };
}

export type { GrantScope, PolicyRule, RoleContext } from './rbac-rule.js';
