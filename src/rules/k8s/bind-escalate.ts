// ROLE_BIND: the API server lets one bind a role only with the `bind` verb on it (or when holding its
// permissions already), and create or change a role beyond one's own only with `escalate`. So binding is
// writing bindings plus `bind` on a role that binding can name (a RoleBinding names a Role or a ClusterRole,
// a ClusterRoleBinding only a ClusterRole: KubeHound's `crb-r` case fails); escalating is writing roles plus
// `escalate` on that same kind of role.
import { both, grantOf, requests, type Grant, type GrantScope, type RbacPrimitive } from './rbac-rule.js';

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
  ...['roles', 'clusterroles'].map((kind) => ({
    write: requests(RBAC_GROUP, [kind], WRITE),
    with: requests(RBAC_GROUP, [kind], ['escalate']),
  })),
];

export const bindOrEscalate: RbacPrimitive = {
  name: 'bind-or-escalate',
  grants: (rules, _role, scope: GrantScope) => {
    let best: Grant | undefined;
    for (const pair of PAIRS) {
      const grant = both(grantOf(rules, pair.write, scope), grantOf(rules, pair.with, scope));
      if (grant === 'any') return 'any';
      best ??= grant;
    }
    return best;
  },
};
