// Minting a service-account token (create on serviceaccounts/token) acts as that service account.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['serviceaccounts/token'], ['create']);

export const tokenRequest: RbacPrimitive = {
  name: 'create-serviceaccount-token',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
