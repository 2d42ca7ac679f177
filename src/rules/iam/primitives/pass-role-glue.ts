// iam:PassRole with glue:CreateDevEndpoint: the dev endpoint runs as the passed role and the caller can
// SSH into it.
import { passRole } from '../primitive.js';

export const passRoleGlue = passRole(
  'PassRole+Glue',
  'Rhino Security Labs, method "Passing a role to a Glue Development Endpoint" (iam:PassRole + glue:CreateDevEndpoint)',
  'glue.amazonaws.com',
  ['glue:CreateDevEndpoint'],
);
