// POD_ATTACH: attaching to a running container's console (create on pods/attach) acts inside it.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['pods/attach'], ['create']);

export const podAttach: RbacPrimitive = {
  name: 'pod-attach',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};
