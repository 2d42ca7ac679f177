// iam:SetDefaultPolicyVersion on a customer managed policy attached to the caller that has another
// version to switch to (the document lists its versions).
import type { EscalationPrimitive } from '../primitive.js';

export const setDefaultPolicyVersion: EscalationPrimitive = {
  name: 'SetDefaultPolicyVersion',
  method:
    'Rhino Security Labs, method "Setting the default policy version to an existing version" (iam:SetDefaultPolicyVersion)',
  reach: 'admin',
  requires: ['iam'],
  find(principal, directory) {
    if (!principal.permissions.access('iam:SetDefaultPolicyVersion')) return [];
    for (const policy of principal.attachedPolicies) {
      if ((directory.policies.get(policy)?.versions ?? 0) < 2) continue;
      const access = principal.permissions.access('iam:SetDefaultPolicyVersion', policy);
      if (access) return [{ primitive: this.name, target: 'admin', strength: access.strength }];
    }
    return [];
  },
};
