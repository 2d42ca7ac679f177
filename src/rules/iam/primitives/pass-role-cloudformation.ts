// iam:PassRole with cloudformation:CreateStack: the stack creates whatever the template says as the
// passed role.
import { passRole } from '../primitive.js';

export const passRoleCloudFormation = passRole(
  'PassRole+CloudFormation',
  'Rhino Security Labs, method "Passing a role to CloudFormation" (iam:PassRole + cloudformation:CreateStack); PMapper CloudFormation edges',
  'cloudformation.amazonaws.com',
  ['cloudformation:CreateStack'],
);
