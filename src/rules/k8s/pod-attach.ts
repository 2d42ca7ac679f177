// POD_ATTACH: attaching to a running container's console (create on pods/attach) acts inside it.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

export const podAttach: RbacPrimitive = {
  name: 'pod-attach',
  grants: (rules) => grantOf(rules, requests('', ['pods/attach'], ['create'])),
};
