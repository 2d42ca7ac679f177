// ec2-instance-connect:SendSSHPublicKey: the caller pushes its key to an existing instance and logs in,
// which reads the instance role's credentials. Needs an instance (DECISIONS "Primitives that need an
// existing resource").
// Method: EC2 Instance Connect to an instance running as the role, as PMapper reads instance access
// (principalmapper/graphing/ssm_edges.py, the same reach: a shell on the instance).
import { instanceRoles, intoExisting } from '../primitive.js';

export const ec2InstanceConnect = intoExisting(
  'EC2InstanceConnect',
  'EC2 Instance Connect to an instance running as the role (ec2-instance-connect:SendSSHPublicKey), as PMapper reads instance access',
  'instance',
  [['ec2-instance-connect:SendSSHPublicKey', 'ec2-instance-connect:SendSerialConsoleSSHPublicKey']],
  instanceRoles,
);
