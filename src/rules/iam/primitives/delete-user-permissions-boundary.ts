// iam:DeleteUserPermissionsBoundary on the caller's own user, when a permissions boundary holds it back: without the boundary
// its identity policies apply in full, so it escalates when they make it an administrator.
import type { PermissionSet } from '../evaluator.js';
import type { EscalationPrimitive } from '../primitive.js';
import { ADMIN_PRIMITIVES_UNBOUNDED } from './unbounded.js';

export const deleteUserPermissionsBoundary: EscalationPrimitive = {
  name: 'DeleteUserPermissionsBoundary',
  method:
    'PMapper IAM edge checks / Rhino Security Labs part 2: removing a permissions boundary (iam:DeleteUserPermissionsBoundary)',
  reach: 'admin',
  requires: ['iam'],
  find(principal, directory) {
    if (principal.kind !== 'user' || !principal.unbounded || !principal.arn) return [];
    const access = principal.permissions.access('iam:DeleteUserPermissionsBoundary', principal.arn);
    if (!access) return [];
    const free = { ...principal, permissions: principal.unbounded as PermissionSet, unbounded: undefined };
    const admin = ADMIN_PRIMITIVES_UNBOUNDED().some((p) => p.find(free, directory).length > 0);
    return admin ? [{ primitive: this.name, target: 'admin', strength: access.strength }] : [];
  },
};
