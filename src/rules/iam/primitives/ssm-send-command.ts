// ssm:SendCommand: runs a command on a managed instance as root, which reads the instance role's
// credentials.
import { instanceRoles, intoRunning } from '../primitive.js';

export const ssmSendCommand = intoRunning(
  'SendCommand',
  'PMapper SSM edges (ssm:SendCommand to an instance running as the role)',
  ['ssm:SendCommand'],
  instanceRoles,
);
