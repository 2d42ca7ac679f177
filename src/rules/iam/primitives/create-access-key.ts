// iam:CreateAccessKey on another user: the caller signs in as that user (CAN_ESCALATE_TO the user, and onward
// from there). On itself (`user/${aws:username}`, the self-service policies) it gains nothing.
import { onOthers } from '../primitive.js';

export const createAccessKey = onOthers(
  'CreateAccessKey',
  'Rhino Security Labs, method "Creating a new user access key" (iam:CreateAccessKey)',
  'user',
  ['iam:CreateAccessKey'],
);
