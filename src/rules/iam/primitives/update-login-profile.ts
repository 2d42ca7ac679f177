// iam:UpdateLoginProfile on another user: the caller signs in as that user (CAN_ESCALATE_TO the user, and onward
// from there). On itself (`user/${aws:username}`, the self-service policies) it gains nothing.
import { onOthers } from '../primitive.js';

export const updateLoginProfile = onOthers(
  'UpdateLoginProfile',
  'Rhino Security Labs, method "Updating an existing login profile" (iam:UpdateLoginProfile)',
  'user',
  ['iam:UpdateLoginProfile'],
);
