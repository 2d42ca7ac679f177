// The principals of an authorization-details document (`aws iam get-account-authorization-details`) with
// their effective permissions: identity statements from inline policies, attached managed policies at
// their default version, and their groups' policies, bounded by a permissions boundary when one is set.
// Roles also carry their trust policy, the services it admits and their instance profiles.
import { readPolicyDocument } from '../../markers/exposure.js';
import { PermissionSet } from './evaluator.js';
import { statementsOf, type Statement } from './policy.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS API shapes, read field by field
export type Detail = Record<string, any>;

export interface AuthorizationDetails {
  UserDetailList?: Detail[];
  GroupDetailList?: Detail[];
  RoleDetailList?: Detail[];
  Policies?: Detail[];
}

/** AWS managed policies the document lists only by ARN, by what they grant. */
export const KNOWN_MANAGED: Readonly<Record<string, Statement[]>> = {
  'arn:aws:iam::aws:policy/AdministratorAccess': [{ Effect: 'Allow', Action: '*', Resource: '*' }],
  'arn:aws:iam::aws:policy/IAMFullAccess': [{ Effect: 'Allow', Action: 'iam:*', Resource: '*' }],
  'arn:aws:iam::aws:policy/PowerUserAccess': [
    { Effect: 'Allow', NotAction: ['iam:*', 'organizations:*', 'account:*'], Resource: '*' },
    {
      Effect: 'Allow',
      Action: ['iam:CreateServiceLinkedRole', 'iam:DeleteServiceLinkedRole', 'iam:ListRoles'],
      Resource: '*',
    },
  ],
};

export interface Principal {
  kind: 'user' | 'role';
  name: string;
  arn: string;
  account: string;
  /** the account its ARN names (IAM acts within it) */
  home: string;
  /** group names (users) */
  groups: string[];
  /** customer managed policies attached to it directly or through its groups */
  attachedPolicies: string[];
  permissions: PermissionSet;
  /** the permissions boundary's ARN, when one is set */
  boundaryArn?: string;
  /** its permissions were the boundary removed (set only when a boundary applies) */
  unbounded?: PermissionSet;
  /** the statements of each policy document that applies to it */
  policies: (readonly Statement[])[];
  /** roles: the raw trust policy */
  trust?: Statement[];
  /** roles: services its trust admits (`lambda.amazonaws.com`) */
  services: Set<string>;
  /** roles: the instance profiles it is in (InstanceProfileList) */
  instanceProfiles: { name: string; arn?: string }[];
}

export interface Group {
  name: string;
  arn: string;
  policies: (readonly Statement[])[];
  attachedPolicies: string[];
}

export interface Directory {
  users: Principal[];
  roles: Principal[];
  groups: Map<string, Group>;
  /** customer managed policies by ARN: how many versions the document lists */
  policies: Map<string, { arn: string; versions: number }>;
  byArn: Map<string, Principal>;
  /** principals with a finding of their own towards the administrator (pass one) */
  escalates: Set<string>;
  /** the instant permissions are judged at (epoch ms): time conditions are decided for it */
  now: number;
  /**
   * What the estate holds of the kinds of resource some primitives need (an instance, a function, a stack):
   * by kind, the ARNs of the roles they run as. A kind absent here is one no inventory describes.
   */
  inventory: Partial<Record<ResourceKind, string[]>>;
}

/** The kinds of existing resource a primitive may need (DECISIONS "Primitives that need an existing resource"). */
export type ResourceKind =
  | 'instance'
  | 'function'
  | 'stack'
  | 'glue-endpoint'
  | 'sagemaker-notebook'
  | 'codebuild-project'
  | 'login-profile';

/** The fifth `:` field of an ARN (its account), without splitting it: read for every principal. */
function arnAccount(arn: unknown): string {
  if (typeof arn !== 'string') return '';
  let start = 0;
  for (let field = 0; field < 4; field++) {
    const colon = arn.indexOf(':', start);
    if (colon < 0) return '';
    start = colon + 1;
  }
  const end = arn.indexOf(':', start);
  return end < 0 ? arn.slice(start) : arn.slice(start, end);
}

/** Reads the document; `accountOf` qualifies (the query's account, else the ARN's). */
export function readDirectory(
  doc: AuthorizationDetails,
  accountOf: (arn: unknown) => string,
  options: { now?: number; inventory?: Directory['inventory'] } = {},
): Directory {
  const now = options.now ?? Date.now();
  const policyStatements = new Map<string, readonly Statement[]>();
  const policies = new Map<string, { arn: string; versions: number }>();
  for (const p of doc.Policies ?? []) {
    if (typeof p.Arn !== 'string') continue;
    const versions: Detail[] = Array.isArray(p.PolicyVersionList) ? p.PolicyVersionList : [];
    let version: Detail | undefined;
    for (const v of versions)
      if (v.IsDefaultVersion) {
        version = v;
        break;
      }
    version ??= versions[0];
    policyStatements.set(p.Arn, statementsOf(readPolicyDocument(version?.Document)));
    policies.set(p.Arn, { arn: p.Arn, versions: versions.length });
  }
  // Loops rather than flatMap: this runs for every principal of accounts with thousands of them. One
  // lookup per attachment gives both its statements and whether it is a customer managed policy.
  const attach = (
    attached: Detail[] | undefined,
    into: (readonly Statement[])[],
    customer: string[] = [],
  ) => {
    if (!attached) return customer;
    for (const a of attached) {
      const arn = a.PolicyArn;
      const described = policyStatements.get(arn);
      if (described) {
        into.push(described);
        customer.push(arn);
        continue;
      }
      const known = KNOWN_MANAGED[arn];
      if (known) into.push(known);
    }
    return customer;
  };
  const inline = (lists: Detail[] | undefined, into: (readonly Statement[])[] = []) => {
    for (const p of lists ?? []) into.push(statementsOf(readPolicyDocument(p.PolicyDocument)));
    return into;
  };
  const boundaryOf = (detail: Detail): readonly Statement[] | undefined => {
    const arn = detail.PermissionsBoundary?.PermissionsBoundaryArn;
    if (typeof arn !== 'string') return undefined;
    // A boundary the document does not describe bounds nothing we can read: treated as absent.
    return policyStatements.get(arn) ?? KNOWN_MANAGED[arn];
  };

  const groups = new Map<string, Group>();
  for (const g of doc.GroupDetailList ?? []) {
    if (typeof g.GroupName !== 'string') continue;
    const policies = inline(g.GroupPolicyList);
    const attachedPolicies = attach(g.AttachedManagedPolicies, policies);
    groups.set(g.GroupName, { name: g.GroupName, arn: String(g.Arn ?? ''), policies, attachedPolicies });
  }

  const make = (
    kind: 'user' | 'role',
    detail: Detail,
    name: string,
    policies: (readonly Statement[])[],
    attached: string[],
    variables: Record<string, string>,
  ): Principal => {
    const boundary = boundaryOf(detail);
    const permissions = new PermissionSet(
      policies,
      variables,
      boundary ? new PermissionSet([boundary], variables, undefined, now) : undefined,
      now,
    );
    return {
      kind,
      name,
      arn: String(detail.Arn ?? ''),
      account: accountOf(detail.Arn) || arnAccount(detail.Arn),
      home: arnAccount(detail.Arn),
      groups: [],
      attachedPolicies: attached,
      permissions,
      boundaryArn: detail.PermissionsBoundary?.PermissionsBoundaryArn,
      unbounded: boundary ? new PermissionSet(policies, variables, undefined, now) : undefined,
      policies,
      services: new Set(),
      instanceProfiles: [],
    };
  };

  const users: Principal[] = [];
  for (const u of doc.UserDetailList ?? []) {
    if (typeof u.UserName !== 'string') continue;
    const memberOf = (Array.isArray(u.GroupList) ? u.GroupList : []).filter(
      (g: unknown): g is string => typeof g === 'string',
    );
    const policies = inline(u.UserPolicyList);
    const attached = attach(u.AttachedManagedPolicies, policies);
    for (const name of memberOf) {
      const g = groups.get(name);
      if (!g) continue;
      for (const p of g.policies) policies.push(p);
      for (const arn of g.attachedPolicies) attached.push(arn);
    }
    const user = make('user', u, u.UserName, policies, attached, {
      'aws:username': u.UserName,
      'aws:userid': String(u.UserId ?? ''),
    });
    user.groups = memberOf;
    users.push(user);
  }
  const roles: Principal[] = [];
  for (const r of doc.RoleDetailList ?? []) {
    if (typeof r.RoleName !== 'string') continue;
    const policies = inline(r.RolePolicyList);
    const role = make('role', r, r.RoleName, policies, attach(r.AttachedManagedPolicies, policies), {});
    role.trust = statementsOf(readPolicyDocument(r.AssumeRolePolicyDocument));
    for (const s of role.trust) {
      if (s.Effect !== 'Allow' || !s.Principal || typeof s.Principal !== 'object') continue;
      for (const service of [(s.Principal as Detail).Service].flat())
        if (typeof service === 'string') role.services.add(service.toLowerCase());
    }
    role.instanceProfiles = (Array.isArray(r.InstanceProfileList) ? r.InstanceProfileList : [])
      .filter((p: Detail) => typeof p?.InstanceProfileName === 'string')
      .map((p: Detail) => ({
        name: p.InstanceProfileName,
        arn: typeof p.Arn === 'string' ? p.Arn : undefined,
      }));
    roles.push(role);
  }
  const byArn = new Map<string, Principal>();
  for (const p of [...users, ...roles]) if (p.arn) byArn.set(p.arn, p);
  return {
    users,
    roles,
    groups,
    policies,
    byArn,
    escalates: new Set(),
    now,
    inventory: options.inventory ?? {},
  };
}
