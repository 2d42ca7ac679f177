// Minting a service-account token (serviceaccounts/token) acts as that service account.
import { anyRule, type RbacPrimitive } from './rbac-rule.js';

export const tokenRequest: RbacPrimitive = {
  name: 'create-serviceaccount-token',
  grants: (rules) => anyRule(rules, 'create', 'serviceaccounts/token'),
};
