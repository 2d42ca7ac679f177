// iam:PassRole with codebuild:CreateProject and codebuild:StartBuild: the build runs the caller's
// buildspec as the passed service role.
import { passRole } from '../primitive.js';

export const passRoleCodeBuild = passRole(
  'PassRole+CodeBuild',
  'PMapper CodeBuild edges: a new project with the passed service role, then a build (iam:PassRole + codebuild:CreateProject + codebuild:StartBuild)',
  'codebuild.amazonaws.com',
  ['codebuild:CreateProject', ['codebuild:StartBuild', 'codebuild:StartBuildBatch']],
);
