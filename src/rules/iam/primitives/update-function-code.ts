// lambda:UpdateFunctionCode: the caller replaces an existing function's code, which then runs as the
// function's role. Needs a function (DECISIONS "Primitives that need an existing resource"): the roles of the
// functions an inventory lists, else every role Lambda may assume, conditionally.
// Method: Rhino Security Labs #18 "Updating the code of an existing Lambda function"; Pacu
// iam__privesc_scan EditExistingLambdaFunctionWithRole; PMapper lambda_edges.py (UpdateFunctionCode).
import { intoExisting, lambdaRoles } from '../primitive.js';

export const updateFunctionCode = intoExisting(
  'UpdateFunctionCode',
  'Rhino Security Labs, method "Updating the code of an existing Lambda function" (lambda:UpdateFunctionCode); PMapper Lambda edges',
  'function',
  ['lambda:UpdateFunctionCode'],
  lambdaRoles,
);
