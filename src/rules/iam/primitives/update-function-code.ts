// lambda:UpdateFunctionCode: the caller replaces an existing function's code, which then runs as the
// function's role. The document does not list functions: every role Lambda may assume is reachable.
import { intoRunning, perDirectory } from '../primitive.js';

export const updateFunctionCode = intoRunning(
  'UpdateFunctionCode',
  'Rhino Security Labs, method "Updating the code of an existing Lambda function" (lambda:UpdateFunctionCode); PMapper Lambda edges',
  ['lambda:UpdateFunctionCode'],
  perDirectory((d) => d.roles.filter((r) => r.services.has('lambda.amazonaws.com'))),
);
