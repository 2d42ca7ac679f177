// Creating pods lets one run a pod with any service account of the namespace (and a privileged one).
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const createPods: RbacPrimitive = {
  name: 'create-pods',
  grants: (rules) => anyRule(rules, 'create', 'pods'),
};
