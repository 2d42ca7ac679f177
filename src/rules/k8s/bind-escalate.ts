// ROLE_BIND: the API server lets one bind a role only with the `bind` verb on it (or when holding its
// permissions already), and create or change a role beyond one's own only with `escalate`. So binding is
// writing bindings plus `bind` on roles; escalating is writing roles plus `escalate`.
import { both, grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ROLES = ['roles', 'clusterroles'];
const WRITE_BINDINGS = requests(
  RBAC_GROUP,
  ['rolebindings', 'clusterrolebindings'],
  ['create', 'update', 'patch'],
);
const BIND = requests(RBAC_GROUP, ROLES, ['bind']);
const WRITE_ROLES = requests(RBAC_GROUP, ROLES, ['create', 'update', 'patch']);
const ESCALATE = requests(RBAC_GROUP, ROLES, ['escalate']);

export const bindOrEscalate: RbacPrimitive = {
  name: 'bind-or-escalate',
  grants: (rules, _role, scope) => {
    const bind = both(grantOf(rules, WRITE_BINDINGS, scope), grantOf(rules, BIND, scope));
    const escalate = both(grantOf(rules, WRITE_ROLES, scope), grantOf(rules, ESCALATE, scope));
    return bind === 'any' || escalate === 'any' ? 'any' : (bind ?? escalate);
  },
};
