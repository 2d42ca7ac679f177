// Adding an ephemeral (debug) container to a running pod (pods/ephemeralcontainers) runs any image inside
// it, with its service account and its volumes: `kubectl debug`.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['pods/ephemeralcontainers'], ['patch', 'update']);

export const ephemeralContainers: RbacPrimitive = {
  name: 'ephemeral-containers',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
