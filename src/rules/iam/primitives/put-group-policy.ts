// iam:PutGroupPolicy on a group the user is in: it attaches or writes `*` on `*` for the group, itself included.
import { onOwnGroup } from '../primitive.js';

export const putGroupPolicy = onOwnGroup(
  'PutGroupPolicy',
  'Rhino Security Labs, method "Creating/updating an inline policy for a group" (iam:PutGroupPolicy)',
  'iam:PutGroupPolicy',
);
