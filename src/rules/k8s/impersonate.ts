// IDENTITY_IMPERSONATE: impersonating users, groups or service accounts acts with their permissions.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = [
  ...requests('', ['users', 'groups', 'serviceaccounts'], ['impersonate']),
  ...requests('authentication.k8s.io', ['userextras/scopes', 'uids'], ['impersonate']),
];

export const impersonate: RbacPrimitive = {
  name: 'impersonate',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
