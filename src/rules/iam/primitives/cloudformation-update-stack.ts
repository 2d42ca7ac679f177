// cloudformation:UpdateStack on an existing stack: a new template runs as the stack's role, or, with
// iam:PassRole, as another role CloudFormation may assume. Needs a stack (DECISIONS "Primitives that need an
// existing resource").
// Method: PMapper, principalmapper/graphing/cloudformation_edges.py (UpdateStack with the stack's role, and
// with a passed role).
import { intoExisting, serviceRoles } from '../primitive.js';

export const cloudFormationUpdateStack = intoExisting(
  'UpdateStack',
  'PMapper CloudFormation edges: updating an existing stack with its role or a passed one (cloudformation:UpdateStack [+ iam:PassRole])',
  'stack',
  ['cloudformation:UpdateStack'],
  serviceRoles('cloudformation.amazonaws.com'),
  { passRole: 'cloudformation.amazonaws.com' },
);
