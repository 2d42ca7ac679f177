// ssm:StartSession: an interactive shell on an existing managed instance, which reads the instance role's
// credentials. Needs an instance (DECISIONS "Primitives that need an existing resource").
// Method: PMapper, principalmapper/graphing/ssm_edges.py (ssm:StartSession on an instance running as the role).
import { instanceRoles, intoExisting } from '../primitive.js';

export const ssmStartSession = intoExisting(
  'StartSession',
  'PMapper SSM edges (ssm:StartSession on an instance running as the role)',
  'instance',
  ['ssm:StartSession'],
  instanceRoles,
);
