// ROLE_BIND: the API server lets one bind a role only with the `bind` verb on it (or when holding its
// permissions already), and create or change a role beyond one's own only with `escalate`. So binding is
// writing bindings plus `bind` on a role that binding can name (a RoleBinding names a Role or a ClusterRole,
// a ClusterRoleBinding only a ClusterRole: KubeHound's `crb-r` case fails); escalating is writing roles plus
// `escalate` on that same kind of role. `bind` limited by resourceNames binds only those roles: with the dump's
// roles known (`context`), it escalates only when one of them grants an escalation itself (DECISIONS
// "Kubernetes, as the API server decides": binding a harmless named role is nothing).
import {
  both,
  grantOf,
  requests,
  ruleGrant,
  type Grant,
  type GrantScope,
  type PolicyRule,
  type RbacPrimitive,
  type RoleContext,
} from './rbac-rule.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const WRITE = ['create', 'update', 'patch'];

/** Each way to gain a role: the write it needs and the verb on roles that must come with it. */
const PAIRS = [
  {
    write: requests(RBAC_GROUP, ['rolebindings'], WRITE),
    with: requests(RBAC_GROUP, ['roles', 'clusterroles'], ['bind']),
  },
  {
    write: requests(RBAC_GROUP, ['clusterrolebindings'], WRITE),
    with: requests(RBAC_GROUP, ['clusterroles'], ['bind']),
  },
  ...(['roles', 'clusterroles'] as const).map((kind) => ({
    write: requests(RBAC_GROUP, [kind], WRITE),
    with: requests(RBAC_GROUP, [kind], ['escalate']),
  })),
];

export const bindOrEscalate: RbacPrimitive = {
  name: 'bind-or-escalate',
  grants: (rules, _role, scope: GrantScope, context?: RoleContext) => {
    let best: Grant | undefined;
    for (const [i, pair] of PAIRS.entries()) {
      const withGrant = grantOf(rules, pair.with, scope);
      let grant = both(grantOf(rules, pair.write, scope), withGrant);
      // `bind` on named roles only (the first two pairs): as strong as the roles it may bind.
      if (grant === 'named' && i < 2 && context && !bindsEscalating(rules!, pair.with, context))
        grant = undefined;
      if (grant === 'any') return 'any';
      best ??= grant;
    }
    return best;
  },
};

/** Whether a role named by a `bind` grant limited to names would escalate once bound. */
function bindsEscalating(
  rules: readonly PolicyRule[],
  bind: ReturnType<typeof requests>,
  context: RoleContext,
): boolean {
  for (const rule of rules)
    for (const request of bind) {
      if (ruleGrant(rule, request) !== 'named') continue;
      const kind = request.resource === 'clusterroles' ? 'ClusterRole' : 'Role';
      for (const name of rule.resourceNames ?? [])
        if (typeof name === 'string' && context.escalates(kind, name)) return true;
    }
  return false;
}
