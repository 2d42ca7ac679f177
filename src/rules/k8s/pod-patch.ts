// POD_PATCH: changing a pod (its image, its command) runs attacker code with the pod's service account.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['pods'], ['patch', 'update']);

export const podPatch: RbacPrimitive = {
  name: 'pod-patch',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
