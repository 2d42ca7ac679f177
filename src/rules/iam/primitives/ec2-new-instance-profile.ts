// iam:CreateInstanceProfile and iam:AddRoleToInstanceProfile with iam:PassRole and ec2:RunInstances: a role
// EC2 may assume that no instance profile holds yet is put in a new one, and an instance runs with it.
// Method: PMapper, principalmapper/graphing/ec2_edges.py ("run an instance with a newly created instance
// profile").
import { passRole, perDirectory } from '../primitive.js';

export const ec2NewInstanceProfile = passRole(
  'PassRole+EC2NewInstanceProfile',
  'PMapper EC2 edges: a new instance profile for the role, then an instance (iam:CreateInstanceProfile + iam:AddRoleToInstanceProfile + iam:PassRole + ec2:RunInstances)',
  'ec2.amazonaws.com',
  ['ec2:RunInstances', 'iam:CreateInstanceProfile', 'iam:AddRoleToInstanceProfile'],
  perDirectory((d) =>
    d.roles.filter((r) => r.services.has('ec2.amazonaws.com') && !r.instanceProfiles.length),
  ),
);
