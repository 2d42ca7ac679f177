// `*` verbs on `*` resources in every API group (`*`) is every permission there is. A wildcard held in one
// group (`monitoring.coreos.com`) is judged by the other primitives: it grants nothing of theirs.
import { grantOf, type RbacPrimitive } from './rbac-rule.js';

export const wildcard: RbacPrimitive = {
  name: 'wildcard',
  grants: (rules) =>
    grantOf(
      rules?.filter(
        (r) =>
          Array.isArray(r?.apiGroups) &&
          r.apiGroups.includes('*') &&
          Array.isArray(r.resources) &&
          r.resources.includes('*'),
      ),
      [{ group: '*', resource: '*', verb: '*' }],
    ),
};
