// iam:PassRole with datapipeline:CreatePipeline, PutPipelineDefinition and ActivatePipeline: the caller's
// pipeline definition runs a command (a ShellCommandActivity) with the permissions of the role passed to it.
// Method: Rhino Security Labs #22 "Passing a role to Data Pipeline"; Pacu iam__privesc_scan
// PassExistingRoleToNewDataPipeline (DECISIONS names the three Data Pipeline calls).
import { passRole } from '../primitive.js';

export const passRoleDataPipeline = passRole(
  'PassRole+DataPipeline',
  'Rhino Security Labs, method "Passing a role to Data Pipeline" (iam:PassRole + datapipeline:CreatePipeline + datapipeline:PutPipelineDefinition + datapipeline:ActivatePipeline); Pacu PassExistingRoleToNewDataPipeline',
  'datapipeline.amazonaws.com',
  ['datapipeline:CreatePipeline', 'datapipeline:PutPipelineDefinition', 'datapipeline:ActivatePipeline'],
);
