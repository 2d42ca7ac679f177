// TOKEN_LIST: reading secrets (core group) yields service-account tokens and credentials. Limited to
// named secrets, the grant is resource-scoped.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['secrets'], ['get', 'list', 'watch']);

export const readSecrets: RbacPrimitive = {
  name: 'read-secrets',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
