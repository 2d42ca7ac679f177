// cloudformation:CreateChangeSet with ExecuteChangeSet on an existing stack: the change set runs as the
// stack's role. Needs a stack (DECISIONS "Primitives that need an existing resource").
// Method: PMapper, principalmapper/graphing/cloudformation_edges.py (CreateChangeSet + ExecuteChangeSet).
import { intoExisting, serviceRoles } from '../primitive.js';

export const cloudFormationChangeSet = intoExisting(
  'ChangeSet',
  'PMapper CloudFormation edges: a change set on an existing stack runs as its role (cloudformation:CreateChangeSet + cloudformation:ExecuteChangeSet)',
  'stack',
  ['cloudformation:CreateChangeSet', 'cloudformation:ExecuteChangeSet'],
  serviceRoles('cloudformation.amazonaws.com'),
);
