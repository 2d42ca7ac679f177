// codebuild:UpdateProject with StartBuild on an existing project: the caller's buildspec runs as the
// project's service role, or, with iam:PassRole, as another role CodeBuild may assume. Needs a project
// (DECISIONS "Primitives that need an existing resource").
// Method: PMapper, principalmapper/graphing/codebuild_edges.py (UpdateProject + StartBuild/StartBuildBatch).
import { intoExisting, serviceRoles } from '../primitive.js';

export const codeBuildUpdateProject = intoExisting(
  'UpdateProject',
  'PMapper CodeBuild edges: an existing project updated and built (codebuild:UpdateProject + codebuild:StartBuild or StartBuildBatch [+ iam:PassRole])',
  'codebuild-project',
  ['codebuild:UpdateProject', ['codebuild:StartBuild', 'codebuild:StartBuildBatch']],
  serviceRoles('codebuild.amazonaws.com'),
  { passRole: 'codebuild.amazonaws.com' },
);
