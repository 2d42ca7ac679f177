// iam:PutRolePolicy on the caller's own role: it attaches or writes `*` on `*` for itself. On another
// role it makes that role powerful, not the caller (no finding).
import { onSelf } from '../primitive.js';

export const putRolePolicy = onSelf(
  'PutRolePolicy',
  'Rhino Security Labs, method "Creating/updating an inline policy for a role" (iam:PutRolePolicy)',
  'role',
  'iam:PutRolePolicy',
);
