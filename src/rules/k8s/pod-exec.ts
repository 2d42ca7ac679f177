// POD_EXEC: exec into a pod (create on pods/exec) runs code with that pod's service account.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['pods/exec'], ['create']);

export const podExec: RbacPrimitive = {
  name: 'pod-exec',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
