// `*` verbs on `*` resources in every API group (`*`) is every permission there is. A wildcard held in one
// group (`monitoring.coreos.com`) is judged by the other primitives: it grants nothing of theirs.
import { grantOf, type PolicyRule, type RbacPrimitive } from './rbac-rule.js';

const EVERYTHING = [{ group: '*', resource: '*', verb: '*' }];
const everywhere = (r: PolicyRule) =>
  Array.isArray(r?.apiGroups) &&
  r.apiGroups.includes('*') &&
  Array.isArray(r.resources) &&
  r.resources.includes('*');

export const wildcard: RbacPrimitive = {
  name: 'wildcard',
  // Most roles hold no such rule: they are answered without the filtered copy.
  grants: (rules) => (rules?.some(everywhere) ? grantOf(rules.filter(everywhere), EVERYTHING) : undefined),
};
