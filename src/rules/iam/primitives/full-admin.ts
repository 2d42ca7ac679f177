// Already an administrator: `*` on `*` without condition (AdministratorAccess). PMapper marks such a node
// `is_admin`; an unrelated Deny does not take it away, a Deny covering the IAM writes does (evaluator.ts).
import type { EscalationPrimitive } from '../primitive.js';

export const fullAdmin: EscalationPrimitive = {
  name: 'full-admin',
  method: 'PMapper: a principal allowed every action on every resource is an administrator',
  reach: 'admin',
  find(principal) {
    if (!principal.permissions.isAdmin()) return [];
    const until = principal.permissions.adminUntil();
    return [
      {
        primitive: 'full-admin',
        target: 'admin',
        strength: 'unconditional',
        ...(until !== Infinity && { until }),
      },
    ];
  },
};
