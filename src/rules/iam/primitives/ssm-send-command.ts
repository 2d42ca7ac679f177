// ssm:SendCommand: runs a command on an existing managed instance as root, which reads the instance role's
// credentials. Needs an instance (DECISIONS "Primitives that need an existing resource").
// Method: PMapper, principalmapper/graphing/ssm_edges.py (ssm:SendCommand to an instance running as the role).
import { instanceRoles, intoExisting } from '../primitive.js';

export const ssmSendCommand = intoExisting(
  'SendCommand',
  'PMapper SSM edges (ssm:SendCommand to an instance running as the role)',
  'instance',
  ['ssm:SendCommand'],
  instanceRoles,
);
