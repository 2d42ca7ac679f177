// iam:PutUserPolicy on the caller's own user: it attaches or writes `*` on `*` for itself. On another
// user it makes that user powerful, not the caller (no finding).
import { onSelf } from '../primitive.js';

export const putUserPolicy = onSelf(
  'PutUserPolicy',
  'Rhino Security Labs, method "Creating/updating an inline policy for a user" (iam:PutUserPolicy)',
  'user',
  'iam:PutUserPolicy',
);
