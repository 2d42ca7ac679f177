// `*` verbs on `*` resources is every permission there is.
import type { RbacPrimitive } from './rbac-rule.js';

export const wildcard: RbacPrimitive = {
  name: 'wildcard',
  grants: (rules) => rules.some((r) => (r.verbs ?? []).includes('*') && (r.resources ?? []).includes('*')),
};
