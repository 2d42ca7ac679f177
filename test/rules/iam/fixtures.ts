// Small authorization-details documents for the IAM rule tests: one account, principals written as AWS
// returns them (inline policies, groups, managed policies with versions, trust, instance profiles).
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import type { Statement } from '../../../src/rules/iam/policy.js';
import { normalize } from '../../helpers/normalize.js';

export const ACCOUNT = '111122223333';
export const arn = (kind: string, name: string, account = ACCOUNT) =>
  `arn:aws:iam::${account}:${kind}/${name}`;
const doc = (Statement: Statement[]) => ({ Version: '2012-10-17', Statement });

export const allow = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<Statement> = {},
) => ({ Effect: 'Allow', Action, Resource, ...extra }) as Statement;
export const deny = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<Statement> = {},
) => ({ Effect: 'Deny', Action, Resource, ...extra }) as Statement;

export function user(name: string, statements: Statement[], extra: Record<string, unknown> = {}) {
  return {
    UserName: name,
    Arn: arn('user', name),
    GroupList: [],
    AttachedManagedPolicies: [],
    UserPolicyList: statements.length
      ? [{ PolicyName: `${name}-inline`, PolicyDocument: doc(statements) }]
      : [],
    ...extra,
  };
}

export function role(
  name: string,
  trust: Record<string, unknown> | Statement[],
  statements: Statement[] = [],
  extra: Record<string, unknown> = {},
) {
  const trustStatements = Array.isArray(trust)
    ? trust
    : [{ Effect: 'Allow', Principal: trust, Action: 'sts:AssumeRole' } as Statement];
  return {
    RoleName: name,
    Arn: arn('role', name),
    AssumeRolePolicyDocument: doc(trustStatements),
    AttachedManagedPolicies: [],
    RolePolicyList: statements.length
      ? [{ PolicyName: `${name}-inline`, PolicyDocument: doc(statements) }]
      : [],
    InstanceProfileList: [],
    ...extra,
  };
}

export function group(name: string, statements: Statement[], extra: Record<string, unknown> = {}) {
  return {
    GroupName: name,
    Arn: arn('group', name),
    GroupPolicyList: statements.length
      ? [{ PolicyName: `${name}-inline`, PolicyDocument: doc(statements) }]
      : [],
    AttachedManagedPolicies: [],
    ...extra,
  };
}

export function managedPolicy(name: string, versions: Statement[][]) {
  return {
    PolicyName: name,
    Arn: arn('policy', name),
    DefaultVersionId: 'v1',
    PolicyVersionList: versions.map((statements, i) => ({
      VersionId: `v${i + 1}`,
      IsDefaultVersion: i === 0,
      Document: doc(statements),
    })),
  };
}

/** An administrator role Lambda, EC2, Glue, ... may run as: what PassRole primitives aim at. */
export const serviceAdmin = (
  services: string[],
  name = 'service-admin',
  extra: Record<string, unknown> = {},
) => role(name, { Service: services }, [allow('*')], extra);

export interface Doc {
  UserDetailList?: unknown[];
  RoleDetailList?: unknown[];
  GroupDetailList?: unknown[];
  Policies?: unknown[];
}

/** The document's edges of a type as `from -> to [primitives] p`, names without the account. */
export function edges(
  body: Doc,
  type = 'CAN_ESCALATE_TO',
  options: { seedIamUsers?: boolean } = {},
): string[] {
  const out = normalize(createIamSource(options), { UserDetailList: [], ...body });
  const names = new Map(out.nodes.map((n) => [n.id, n.name.replace(`${ACCOUNT}/`, '')]));
  return out.envelopes[0].edges
    .filter((e) => e.type === type)
    .map((e) => {
      const primitives = e.properties?.primitives as string[] | undefined;
      return `${names.get(e.from)} -> ${names.get(e.to)}${primitives ? ` [${primitives.join(',')}]` : ''}${
        e.exploit_probability !== undefined ? ` ${e.exploit_probability}` : ''
      }${e.properties?.via ? ` via ${e.properties.via}` : ''}`;
    })
    .sort();
}

export function normalized(body: Doc, options: { seedIamUsers?: boolean } = {}) {
  return normalize(createIamSource(options), { UserDetailList: [], ...body });
}
