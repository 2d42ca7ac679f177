// iam:AttachRolePolicy on the caller's own role: it attaches or writes `*` on `*` for itself. On another
// role it makes that role powerful, not the caller (no finding).
import { onSelf } from '../primitive.js';

export const attachRolePolicy = onSelf(
  'AttachRolePolicy',
  'Rhino Security Labs, method "Attaching a policy to a role" (iam:AttachRolePolicy)',
  'role',
  'iam:AttachRolePolicy',
);
