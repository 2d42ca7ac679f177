// Exec into a pod, or patch one (its image or command), runs code with that pod's service account.
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const podExecOrPatch: RbacPrimitive = {
  name: 'exec-or-patch-pods',
  grants: (rules) =>
    anyRule(rules, 'create', 'pods/exec') ||
    anyRule(rules, 'patch', 'pods') ||
    anyRule(rules, 'update', 'pods'),
};
