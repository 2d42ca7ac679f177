// iam:AttachGroupPolicy on a group the user is in: it attaches or writes `*` on `*` for the group, itself included.
import { onOwnGroup } from '../primitive.js';

export const attachGroupPolicy = onOwnGroup(
  'AttachGroupPolicy',
  'Rhino Security Labs, method "Attaching a policy to a group" (iam:AttachGroupPolicy)',
  'iam:AttachGroupPolicy',
);
