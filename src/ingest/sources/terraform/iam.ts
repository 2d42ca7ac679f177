// The IAM of a Terraform plan or state in the shape the iam source reads (`aws iam
// get-account-authorization-details`): users, groups and roles with their inline and attached policies and
// memberships, customer managed policies, and the role an instance profile holds (for cloudnet). A principal
// Terraform names at apply is named by its address, so that its policies and escalations are still read.
import { idOf, planResources, pointed, type PlanResource, type Values } from './plan-walk.js';

export function roleOfProfile(
  p: PlanResource,
  plan: Values,
  account: string | undefined,
): Values | undefined {
  const resources = planResources(plan);
  const role = typeof p.values.role === 'string' ? p.values.role : undefined;
  const name =
    role ??
    resources
      .filter((x) => x.type === 'aws_iam_role' && pointed(plan, resources, p, 'role').includes(idOf(x)))
      .map(roleNameOf)[0];
  if (typeof name !== 'string') return undefined;
  return { RoleName: name, Arn: `arn:aws:iam::${account ?? ''}:role/${name}` };
}

/**
 * A role's name: as configured, else (Terraform names it at apply, `terraform-<timestamp>`) its address, as
 * an instance whose id is known only after apply is named, so that its policies and escalations are read.
 */
function roleNameOf(role: PlanResource): string {
  return typeof role.values.name === 'string' && role.values.name ? role.values.name : role.address;
}

/** The plan's IAM as `aws iam get-account-authorization-details` prints it: users, groups, roles, policies. */
export function authorizationDetails(
  resources: PlanResource[],
  plan: Values,
  account: string | undefined,
): Values {
  const live = resources.filter((r) => !r.deleted);
  const policyArn = (p: PlanResource) =>
    typeof p.values.arn === 'string' ? p.values.arn : `arn:aws:iam::${account ?? ''}:policy/${p.values.name}`;
  const policies = live.filter((r) => r.type === 'aws_iam_policy');
  /** The names an attribute gives (`role`, `user`, `users`, `groups`): as written, or of the resources it refers to. */
  const namesIn = (r: PlanResource, attribute: string, type: string): string[] => {
    const value = r.values[attribute];
    const known = [value].flat().filter((v): v is string => typeof v === 'string');
    if (known.length) return known;
    return pointed(plan, resources, r, attribute).flatMap((ref) => {
      const target = live.find((x) => x.type === type && (x.address === ref || idOf(x) === ref));
      return target ? [roleNameOf(target)] : [];
    });
  };
  const attachedArn = (r: PlanResource) => {
    if (typeof r.values.policy_arn === 'string') return r.values.policy_arn;
    const [ref] = pointed(plan, resources, r, 'policy_arn');
    const policy = policies.find((p) => p.address === ref || idOf(p) === ref);
    return policy ? policyArn(policy) : undefined;
  };
  /**
   * What one principal holds: inline policies (`<kind>_policy`, and a role's `inline_policy` blocks), managed
   * policies attached to it (`<kind>_policy_attachment`, an exclusive `aws_iam_policy_attachment` naming it).
   */
  const held = (kind: 'role' | 'user' | 'group', name: string, principal: PlanResource) => {
    const type = `aws_iam_${kind}`;
    const inline = [
      ...((principal.values.inline_policy ?? []) as Values[]).filter((p) => p.policy),
      ...live
        .filter((r) => r.type === `${type}_policy` && namesIn(r, kind, type).includes(name))
        .map((r) => ({ name: r.values.name ?? r.name, policy: r.values.policy })),
    ];
    const attached = [
      ...((principal.values.managed_policy_arns ?? []) as string[]),
      ...live
        .filter(
          (r) =>
            (r.type === `${type}_policy_attachment` && namesIn(r, kind, type).includes(name)) ||
            (r.type === 'aws_iam_policy_attachment' && namesIn(r, `${kind}s`, type).includes(name)),
        )
        .map(attachedArn)
        .filter((a): a is string => typeof a === 'string'),
    ];
    return {
      inline: inline.map((p) => ({ PolicyName: p.name, PolicyDocument: p.policy })),
      attached: [...new Set(attached)].map((PolicyArn) => ({
        PolicyArn,
        PolicyName: PolicyArn.split('/').pop(),
      })),
    };
  };
  const arnOf = (principal: PlanResource, kind: string, name: string) =>
    typeof principal.values.arn === 'string'
      ? principal.values.arn
      : `arn:aws:iam::${account ?? ''}:${kind}/${name}`;
  const tagsOf = (principal: PlanResource) =>
    Object.entries<string>(principal.values.tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
  /** A user's groups: by `aws_iam_group_membership` (a group's users) and `aws_iam_user_group_membership`. */
  const groupsOf = (user: string) => [
    ...new Set([
      ...live
        .filter(
          (r) => r.type === 'aws_iam_group_membership' && namesIn(r, 'users', 'aws_iam_user').includes(user),
        )
        .flatMap((r) => namesIn(r, 'group', 'aws_iam_group')),
      ...live
        .filter(
          (r) =>
            r.type === 'aws_iam_user_group_membership' && namesIn(r, 'user', 'aws_iam_user').includes(user),
        )
        .flatMap((r) => namesIn(r, 'groups', 'aws_iam_group')),
    ]),
  ];
  return {
    UserDetailList: live
      .filter((r) => r.type === 'aws_iam_user')
      .map((user) => {
        const name = roleNameOf(user);
        const { inline, attached } = held('user', name, user);
        return {
          UserName: name,
          Arn: arnOf(user, 'user', name),
          UserPolicyList: inline,
          AttachedManagedPolicies: attached,
          GroupList: groupsOf(name),
          Tags: tagsOf(user),
        };
      }),
    GroupDetailList: live
      .filter((r) => r.type === 'aws_iam_group')
      .map((group) => {
        const name = roleNameOf(group);
        const { inline, attached } = held('group', name, group);
        return {
          GroupName: name,
          Arn: arnOf(group, 'group', name),
          GroupPolicyList: inline,
          AttachedManagedPolicies: attached,
        };
      }),
    RoleDetailList: live
      .filter((r) => r.type === 'aws_iam_role')
      .map((role) => {
        const name = roleNameOf(role);
        const { inline, attached } = held('role', name, role);
        return {
          RoleName: name,
          Arn: arnOf(role, 'role', name),
          AssumeRolePolicyDocument: role.values.assume_role_policy,
          RolePolicyList: inline,
          AttachedManagedPolicies: attached,
          InstanceProfileList: live
            .filter(
              (r) =>
                r.type === 'aws_iam_instance_profile' && namesIn(r, 'role', 'aws_iam_role').includes(name),
            )
            .map((p) => ({ InstanceProfileName: p.values.name ?? p.name })),
          Tags: tagsOf(role),
        };
      }),
    Policies: policies.map((p) => ({
      PolicyName: p.values.name,
      Arn: policyArn(p),
      DefaultVersionId: 'v1',
      PolicyVersionList: [{ VersionId: 'v1', IsDefaultVersion: true, Document: p.values.policy }],
    })),
  };
}
