// Impersonating users, groups or service accounts acts with their permissions.
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const impersonate: RbacPrimitive = {
  name: 'impersonate',
  grants: (rules) => ['users', 'groups', 'serviceaccounts'].some((r) => anyRule(rules, 'impersonate', r)),
};
