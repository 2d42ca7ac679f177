// iam:PassRole with lambda:CreateFunction and lambda:InvokeFunction: a new function runs the caller's
// code as the passed role.
import { passRole } from '../primitive.js';

export const passRoleLambdaInvoke = passRole(
  'PassRole+Lambda',
  'Rhino Security Labs, method "Passing a role to a new Lambda function, then invoking it" (iam:PassRole + lambda:CreateFunction + lambda:InvokeFunction); PMapper Lambda edges',
  'lambda.amazonaws.com',
  ['lambda:CreateFunction', 'lambda:InvokeFunction'],
);
