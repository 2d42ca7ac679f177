// A role named like an administrator (cluster-admin, admin, *-admin) is treated as one.
import type { RbacPrimitive } from './rbac-rule.js';

export const adminNamed: RbacPrimitive = {
  name: 'admin-named',
  grants: (_rules, roleName) => /(^|[-_:])admin$/i.test(roleName),
};
