// Binding roles (creating bindings, or the `bind`/`escalate` verbs) grants oneself any role.
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const bindOrEscalate: RbacPrimitive = {
  name: 'bind-or-escalate',
  grants: (rules) =>
    ['rolebindings', 'clusterrolebindings'].some(
      (r) => anyRule(rules, 'create', r) || anyRule(rules, 'patch', r),
    ) || ['roles', 'clusterroles'].some((r) => anyRule(rules, 'bind', r) || anyRule(rules, 'escalate', r)),
};
