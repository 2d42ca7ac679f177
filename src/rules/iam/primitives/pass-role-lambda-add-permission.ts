// iam:PassRole with lambda:CreateFunction and lambda:AddPermission: the new function's resource policy lets
// the caller's own account invoke it from outside, so no lambda:InvokeFunction is needed.
// Method: Rhino Security Labs #16 "Passing a role to a new Lambda function, then invoking it cross-account";
// Pacu iam__privesc_scan PassExistingRoleToNewLambdaThenInvokeCrossAccount.
import { passRole } from '../primitive.js';

export const passRoleLambdaAddPermission = passRole(
  'PassRole+LambdaAddPermission',
  'Rhino Security Labs, method "Passing a role to a new Lambda function, then invoking it cross-account" (iam:PassRole + lambda:CreateFunction + lambda:AddPermission); Pacu PassExistingRoleToNewLambdaThenInvokeCrossAccount',
  'lambda.amazonaws.com',
  ['lambda:CreateFunction', 'lambda:AddPermission'],
);
