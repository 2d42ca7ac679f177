// iam:PassRole with autoscaling:CreateAutoScalingGroup and a launch configuration (or template) of the
// caller's: the group starts instances with an instance profile's role, whose credentials the caller's user
// data reads from the metadata service.
// Method: PMapper, principalmapper/graphing/autoscaling_edges.py (CreateLaunchConfiguration +
// CreateAutoScalingGroup + PassRole to EC2).
import { instanceRoles, passRole } from '../primitive.js';

export const passRoleAutoScaling = passRole(
  'PassRole+AutoScaling',
  'PMapper EC2 Auto Scaling edges (iam:PassRole + autoscaling:CreateLaunchConfiguration or ec2:CreateLaunchTemplate + autoscaling:CreateAutoScalingGroup)',
  'ec2.amazonaws.com',
  [
    'autoscaling:CreateAutoScalingGroup',
    ['autoscaling:CreateLaunchConfiguration', 'ec2:CreateLaunchTemplate'],
  ],
  instanceRoles,
);
