// iam:PassRole with codestar:CreateProject: the project's CloudFormation deployment runs as the passed
// role (by default the CodeStar service role, which may make an administrator).
// Method: Rhino Security Labs #24 "Passing a role to a new CodeStar project"; Pacu iam__privesc_scan
// PassExistingRoleToNewCodeStarProject.
import { passRole } from '../primitive.js';

export const passRoleCodeStar = passRole(
  'PassRole+CodeStar',
  'Rhino Security Labs, method "Passing a role to a new CodeStar project" (iam:PassRole + codestar:CreateProject); Pacu PassExistingRoleToNewCodeStarProject',
  'codestar.amazonaws.com',
  ['codestar:CreateProject'],
);
