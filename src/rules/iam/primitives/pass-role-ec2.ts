// iam:PassRole with ec2:RunInstances: a new instance runs with an instance profile's role, whose
// credentials the caller reads from the metadata service.
import { instanceRoles, passRole } from '../primitive.js';

export const passRoleEc2 = passRole(
  'PassRole+EC2',
  'Rhino Security Labs, method "Creating an EC2 instance with an existing instance profile" (iam:PassRole + ec2:RunInstances); PMapper EC2 edges',
  'ec2.amazonaws.com',
  ['ec2:RunInstances'],
  instanceRoles,
);
