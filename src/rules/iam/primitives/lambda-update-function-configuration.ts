// lambda:UpdateFunctionConfiguration: the caller attaches its own layer to an existing function, overriding a
// library the function loads, so its code runs as the function's role. Needs a function (DECISIONS
// "Primitives that need an existing resource").
// Method: Rhino Security Labs #26 "Adding a malicious Lambda layer to an existing Lambda function".
import { intoExisting, lambdaRoles } from '../primitive.js';

export const lambdaUpdateFunctionConfiguration = intoExisting(
  'UpdateFunctionConfiguration',
  'Rhino Security Labs, method "Adding a malicious Lambda layer to an existing Lambda function" (lambda:UpdateFunctionConfiguration)',
  'function',
  ['lambda:UpdateFunctionConfiguration'],
  lambdaRoles,
);
