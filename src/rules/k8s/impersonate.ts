// IDENTITY_IMPERSONATE: impersonating a user or a service account acts with its permissions (and with any
// groups, extras or uid impersonated beside it). The API server refuses a request that impersonates groups,
// extras or a uid without a user to impersonate (DECISIONS "Kubernetes, as the API server decides"), so a
// role that may impersonate only those grants nothing.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const WHO = [
  ...requests('', ['users', 'serviceaccounts'], ['impersonate']),
  // A uid identifies a user too (Kubernetes 1.22+), but only beside a username: not enough alone.
];

export const impersonate: RbacPrimitive = {
  name: 'impersonate',
  grants: (rules, _role, scope) => grantOf(rules, WHO, scope),
};
