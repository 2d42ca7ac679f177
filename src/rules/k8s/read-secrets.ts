// Reading secrets yields service-account tokens and credentials.
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const readSecrets: RbacPrimitive = {
  name: 'read-secrets',
  grants: (rules) => ['get', 'list', 'watch'].some((verb) => anyRule(rules, verb, 'secrets')),
};
