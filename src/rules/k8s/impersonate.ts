// IDENTITY_IMPERSONATE: impersonating users, groups or service accounts acts with their permissions.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

export const impersonate: RbacPrimitive = {
  name: 'impersonate',
  grants: (rules) =>
    grantOf(rules, [
      ...requests('', ['users', 'groups', 'serviceaccounts'], ['impersonate']),
      ...requests('authentication.k8s.io', ['userextras/scopes', 'uids'], ['impersonate']),
    ]),
};
