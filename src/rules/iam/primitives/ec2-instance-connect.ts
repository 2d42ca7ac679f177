// ec2-instance-connect:SendSSHPublicKey: the caller pushes its key and logs into the instance, which reads
// the instance role's credentials.
import { instanceRoles, intoRunning } from '../primitive.js';

export const ec2InstanceConnect = intoRunning(
  'EC2InstanceConnect',
  'EC2 Instance Connect to an instance running as the role (ec2-instance-connect:SendSSHPublicKey), as PMapper reads instance access',
  ['ec2-instance-connect:SendSSHPublicKey', 'ec2-instance-connect:SendSerialConsoleSSHPublicKey'],
  instanceRoles,
);
