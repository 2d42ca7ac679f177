// iam:AttachUserPolicy on the caller's own user: it attaches or writes `*` on `*` for itself. On another
// user it makes that user powerful, not the caller (no finding).
import { onSelf } from '../primitive.js';

export const attachUserPolicy = onSelf(
  'AttachUserPolicy',
  'Rhino Security Labs, method "Attaching a policy to a user" (iam:AttachUserPolicy)',
  'user',
  'iam:AttachUserPolicy',
);
