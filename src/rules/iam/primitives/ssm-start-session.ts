// ssm:StartSession: an interactive shell on a managed instance, which reads the instance role's
// credentials.
import { instanceRoles, intoRunning } from '../primitive.js';

export const ssmStartSession = intoRunning(
  'StartSession',
  'PMapper SSM edges (ssm:StartSession on an instance running as the role)',
  ['ssm:StartSession'],
  instanceRoles,
);
