// The IAM escalation rules: one file per primitive under primitives/, listed here. `findEscalations` runs
// the primitives that make a principal its own administrator first, then those that take over other
// principals (aiming wildcard grants at the principals that escalate on their own).
import type { Directory, Principal } from './directory.js';
import { stronger, type Strength } from './evaluator.js';
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
}

export function findEscalations(directory: Directory): Escalation[] {
  const principals = [...directory.users, ...directory.roles];
  const found = new Map<Principal, Finding[]>();
  const run = (reach: 'admin' | 'principal') => {
    for (const principal of principals) {
      const services = principal.permissions.services();
      for (const primitive of ESCALATION_PRIMITIVES) {
        if (primitive.reach !== reach || !mayApply(primitive, services)) continue;
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
      out.push({
        from,
        target,
        primitives: [...new Set(list.map((f) => f.primitive))],
        strength: list.map((f) => f.strength).reduce(stronger),
        admin: target === 'admin' && admin,
      });
    }
  }
  return out;
}
