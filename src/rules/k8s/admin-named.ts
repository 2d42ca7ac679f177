// A role the dump does not hold, only named by a binding: judged by its name alone, an administrator's
// name (cluster-admin, admin, *-admin) is treated as one. A role whose rules are known is judged by them.
import type { RbacPrimitive } from './rbac-rule.js';

export const adminNamed: RbacPrimitive = {
  name: 'admin-named',
  grants: (rules, roleName) => (rules === undefined && /(^|[-_:])admin$/i.test(roleName) ? 'any' : undefined),
};
