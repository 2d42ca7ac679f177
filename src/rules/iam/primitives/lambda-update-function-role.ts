// lambda:UpdateFunctionConfiguration with iam:PassRole and lambda:UpdateFunctionCode: the caller gives an
// existing function another role it may pass, and its own code. Needs a function (DECISIONS "Primitives that
// need an existing resource"); any role Lambda may assume that the caller may pass is then reached.
// Method: PMapper, principalmapper/graphing/lambda_edges.py (UpdateFunctionConfiguration + UpdateFunctionCode
// + PassRole on an existing function).
import { intoExisting, lambdaRoles } from '../primitive.js';

export const lambdaUpdateFunctionRole = intoExisting(
  'PassRole+UpdateFunctionConfiguration',
  'PMapper Lambda edges: an existing function given a passed role and new code (iam:PassRole + lambda:UpdateFunctionConfiguration + lambda:UpdateFunctionCode)',
  'function',
  ['lambda:UpdateFunctionConfiguration', 'lambda:UpdateFunctionCode'],
  lambdaRoles,
  { passRole: 'lambda.amazonaws.com', passOnly: true },
);
