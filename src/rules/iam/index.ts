// The IAM escalation rules: one file per primitive under primitives/, listed here. `findEscalations` runs
// the primitives that make a principal its own administrator first, then those that take over other
// principals (aiming wildcard grants at the principals that escalate on their own).
import type { Directory, Principal } from './directory.js';
import { stronger, type PermissionSet, type Strength } from './evaluator.js';
import { mayApply, type EscalationPrimitive, type Finding } from './primitive.js';
import { addUserToGroup } from './primitives/add-user-to-group.js';
import { attachGroupPolicy } from './primitives/attach-group-policy.js';
import { attachRolePolicy } from './primitives/attach-role-policy.js';
import { attachUserPolicy } from './primitives/attach-user-policy.js';
import { createAccessKey } from './primitives/create-access-key.js';
import { createLoginProfile } from './primitives/create-login-profile.js';
import { createPolicyVersion } from './primitives/create-policy-version.js';
import { deleteRolePermissionsBoundary } from './primitives/delete-role-permissions-boundary.js';
import { deleteUserPermissionsBoundary } from './primitives/delete-user-permissions-boundary.js';
import { ec2InstanceConnect } from './primitives/ec2-instance-connect.js';
import { fullAdmin } from './primitives/full-admin.js';
import { passRoleCloudFormation } from './primitives/pass-role-cloudformation.js';
import { passRoleCodeBuild } from './primitives/pass-role-codebuild.js';
import { passRoleEc2 } from './primitives/pass-role-ec2.js';
import { passRoleEcs } from './primitives/pass-role-ecs.js';
import { passRoleGlue } from './primitives/pass-role-glue.js';
import { passRoleLambdaEventSource } from './primitives/pass-role-lambda-event-source.js';
import { passRoleLambdaInvoke } from './primitives/pass-role-lambda-invoke.js';
import { passRoleSageMaker } from './primitives/pass-role-sagemaker.js';
import { putGroupPolicy } from './primitives/put-group-policy.js';
import { putRolePolicy } from './primitives/put-role-policy.js';
import { putUserPolicy } from './primitives/put-user-policy.js';
import { setDefaultPolicyVersion } from './primitives/set-default-policy-version.js';
import { ssmSendCommand } from './primitives/ssm-send-command.js';
import { ssmStartSession } from './primitives/ssm-start-session.js';
import { updateAssumeRolePolicy } from './primitives/update-assume-role-policy.js';
import { updateFunctionCode } from './primitives/update-function-code.js';
import { updateLoginProfile } from './primitives/update-login-profile.js';
import { passRoleDataPipeline } from './primitives/pass-role-datapipeline.js';
import { glueUpdateDevEndpoint } from './primitives/glue-update-dev-endpoint.js';
import { passRoleCodeStar } from './primitives/pass-role-codestar.js';
import { codeStarCreateProjectFromTemplate } from './primitives/codestar-create-project-from-template.js';
import { passRoleLambdaAddPermission } from './primitives/pass-role-lambda-add-permission.js';
import { lambdaUpdateFunctionConfiguration } from './primitives/lambda-update-function-configuration.js';
import { lambdaUpdateFunctionRole } from './primitives/lambda-update-function-role.js';
import { sageMakerPresignedNotebookUrl } from './primitives/sagemaker-presigned-notebook-url.js';
import { passRoleAutoScaling } from './primitives/pass-role-autoscaling.js';
import { cloudFormationUpdateStack } from './primitives/cloudformation-update-stack.js';
import { cloudFormationChangeSet } from './primitives/cloudformation-change-set.js';
import { codeBuildUpdateProject } from './primitives/codebuild-update-project.js';
import { ec2NewInstanceProfile } from './primitives/ec2-new-instance-profile.js';

export const ESCALATION_PRIMITIVES: readonly EscalationPrimitive[] = [
  fullAdmin,
  createPolicyVersion,
  setDefaultPolicyVersion,
  attachUserPolicy,
  attachGroupPolicy,
  attachRolePolicy,
  putUserPolicy,
  putGroupPolicy,
  putRolePolicy,
  addUserToGroup,
  deleteUserPermissionsBoundary,
  deleteRolePermissionsBoundary,
  createAccessKey,
  createLoginProfile,
  updateLoginProfile,
  updateAssumeRolePolicy,
  passRoleEc2,
  passRoleLambdaInvoke,
  passRoleLambdaEventSource,
  passRoleGlue,
  passRoleCloudFormation,
  passRoleEcs,
  passRoleCodeBuild,
  passRoleSageMaker,
  updateFunctionCode,
  ssmSendCommand,
  ssmStartSession,
  ec2InstanceConnect,
  passRoleDataPipeline,
  glueUpdateDevEndpoint,
  passRoleCodeStar,
  codeStarCreateProjectFromTemplate,
  passRoleLambdaAddPermission,
  lambdaUpdateFunctionConfiguration,
  lambdaUpdateFunctionRole,
  sageMakerPresignedNotebookUrl,
  passRoleAutoScaling,
  cloudFormationUpdateStack,
  cloudFormationChangeSet,
  codeBuildUpdateProject,
  ec2NewInstanceProfile,
];

/** One escalation edge: from a principal to the administrator or to another principal. */
export interface Escalation {
  from: Principal;
  target: 'admin' | Principal;
  primitives: string[];
  /** the strongest way it holds */
  strength: Strength;
  /** already an administrator (`*` on `*`) */
  admin: boolean;
  /** when the last way it holds ends (a time condition, epoch ms); undefined: no date ends it */
  until?: number;
  /** why it is conditional where no policy condition says so (`assumes an existing EC2 instance`) */
  reasons?: string[];
}

/** The services some primitive requires: a principal is told apart from another only by these. */
const REQUIRED_SERVICES = [
  ...new Set(ESCALATION_PRIMITIVES.flatMap((p) => (p.requires ?? []).flatMap((r) => r))),
];

/** Primitives that may apply, by reach and by which required services a principal names (a bit each). */
const applicableByMask = { admin: new Map<number, EscalationPrimitive[]>(), principal: new Map() };

/** The primitives of a reach that may apply to a principal with these permissions, in list order. */
function applicable(
  reach: 'admin' | 'principal',
  permissions: PermissionSet,
): readonly EscalationPrimitive[] {
  const known = applicableByMask[reach];
  if (REQUIRED_SERVICES.length > 31) {
    const services = permissions.services();
    return ESCALATION_PRIMITIVES.filter((p) => p.reach === reach && mayApply(p, services));
  }
  // Accounts hold thousands of principals but few distinct service sets: each is decided once.
  const mask = permissions.serviceMask(REQUIRED_SERVICES) ?? -1;
  let out = known.get(mask) as EscalationPrimitive[] | undefined;
  if (!out) {
    // mayApply asks only about required services: those the mask holds stand for the principal's.
    const services =
      mask === -1 ? undefined : new Set(REQUIRED_SERVICES.filter((_, i) => (mask & (1 << i)) !== 0));
    out = ESCALATION_PRIMITIVES.filter((p) => p.reach === reach && mayApply(p, services));
    known.set(mask, out);
  }
  return out;
}

export function findEscalations(directory: Directory): Escalation[] {
  const principals = [...directory.users, ...directory.roles];
  const found = new Map<Principal, Finding[]>();
  const run = (reach: 'admin' | 'principal') => {
    for (const principal of principals) {
      for (const primitive of applicable(reach, principal.permissions)) {
        const findings = primitive.find(principal, directory);
        if (!findings.length) continue;
        found.set(principal, [...(found.get(principal) ?? []), ...findings]);
        if (reach === 'admin') directory.escalates.add(principal.arn);
        // Already an administrator: nothing else it holds says more.
        if (primitive === fullAdmin) break;
      }
    }
  };
  run('admin');
  run('principal');
  const out: Escalation[] = [];
  for (const [from, findings] of found) {
    const admin = findings.some((f) => f.primitive === fullAdmin.name);
    const byTarget = new Map<'admin' | Principal, Finding[]>();
    for (const f of admin ? findings.filter((f) => f.primitive === fullAdmin.name) : findings)
      byTarget.set(f.target, [...(byTarget.get(f.target) ?? []), f]);
    for (const [target, list] of byTarget) {
      const strength = list.map((f) => f.strength).reduce(stronger);
      // It holds while any way holds: until the last of them ends.
      const until = list.some((f) => f.until === undefined)
        ? undefined
        : Math.max(...list.map((f) => f.until!));
      const reasons = [
        ...new Set(list.filter((f) => f.strength === strength && f.reason).map((f) => f.reason!)),
      ];
      out.push({
        from,
        target,
        primitives: [...new Set(list.map((f) => f.primitive))],
        strength,
        admin: target === 'admin' && admin,
        ...(until !== undefined && { until }),
        ...(reasons.length && { reasons }),
      });
    }
  }
  return out;
}
