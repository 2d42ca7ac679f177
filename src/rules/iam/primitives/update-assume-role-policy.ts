// iam:UpdateAssumeRolePolicy with sts:AssumeRole on a role: the caller rewrites the role's trust to name
// itself, then assumes it.
import { onOthers } from '../primitive.js';

export const updateAssumeRolePolicy = onOthers(
  'UpdateAssumeRolePolicy',
  'Rhino Security Labs, method "Updating the AssumeRolePolicyDocument of a role" (iam:UpdateAssumeRolePolicy + sts:AssumeRole)',
  'role',
  ['iam:UpdateAssumeRolePolicy', 'sts:AssumeRole'],
);
