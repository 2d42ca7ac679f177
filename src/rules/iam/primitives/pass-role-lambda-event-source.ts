// iam:PassRole with lambda:CreateFunction and lambda:CreateEventSourceMapping: the new function is
// triggered by an event source (a DynamoDB stream, a queue) instead of an invocation.
import { passRole } from '../primitive.js';

export const passRoleLambdaEventSource = passRole(
  'PassRole+LambdaEventSource',
  'Rhino Security Labs, method "Passing a role to a new Lambda function, then triggering it with DynamoDB" (iam:PassRole + lambda:CreateFunction + lambda:CreateEventSourceMapping)',
  'lambda.amazonaws.com',
  ['lambda:CreateFunction', 'lambda:CreateEventSourceMapping'],
);
