// A role the dump does not hold, only named by a binding: judged by its name alone. An administrator's
// name (cluster-admin, admin, *-admin) is treated as one, and so is the built-in `edit` ClusterRole (it
// creates pods, execs into them and reads secrets). A role whose rules are known is judged by them.
import type { RbacPrimitive } from './rbac-rule.js';

const BUILT_IN_ESCALATING = new Set(['edit']);

export const adminNamed: RbacPrimitive = {
  name: 'admin-named',
  grants: (rules, roleName) =>
    rules === undefined && (/(^|[-_:])admin$/i.test(roleName) || BUILT_IN_ESCALATING.has(roleName))
      ? 'any'
      : undefined,
};
