// iam:CreateLoginProfile on another user: the caller signs in as that user (CAN_ESCALATE_TO the user, and onward
// from there). On itself (`user/${aws:username}`, the self-service policies) it gains nothing.
import { onOthers } from '../primitive.js';

export const createLoginProfile = onOthers(
  'CreateLoginProfile',
  'Rhino Security Labs, method "Creating a new login profile" (iam:CreateLoginProfile)',
  'user',
  ['iam:CreateLoginProfile'],
);
