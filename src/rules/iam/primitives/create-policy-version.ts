// iam:CreatePolicyVersion on a customer managed policy attached to the caller (directly or through a
// group): a new default version may say `*` on `*`.
import type { EscalationPrimitive } from '../primitive.js';

export const createPolicyVersion: EscalationPrimitive = {
  name: 'CreatePolicyVersion',
  method: 'Rhino Security Labs, method "Creating a new policy version" (iam:CreatePolicyVersion)',
  reach: 'admin',
  requires: ['iam'],
  find(principal) {
    for (const policy of principal.attachedPolicies) {
      const access = principal.permissions.access('iam:CreatePolicyVersion', policy);
      if (access) return [{ primitive: this.name, target: 'admin', strength: access.strength }];
    }
    return [];
  },
};
