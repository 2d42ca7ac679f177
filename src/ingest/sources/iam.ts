// Source `iam`: the account authorization details document (`aws iam get-account-authorization-details`:
// UserDetailList, GroupDetailList, RoleDetailList, Policies). Users and roles become nodes named
// `<account>/<name>` (the account from their ARN); trust policies draw ASSUMES from the principals they
// name; each principal's effective statements (inline, attached managed at their default version, and
// its groups') are checked for the escalation primitives (src/rules/iam-escalation.ts), which draw
// CAN_ESCALATE_TO to the synthetic `<account>/account-admin` crown jewel.
import { crownJewel, readTags } from '../../markers/crown-jewel.js';
import { readPolicyDocument, roleTrustExposure } from '../../markers/exposure.js';
import { escalationOf, statementsOf, type Statement } from '../../rules/iam-escalation.js';
import { accountParameter, parseIamArn, qualify } from './account.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS API shapes, read field by field
type Detail = Record<string, any>;

interface AuthorizationDetails {
  UserDetailList?: Detail[];
  GroupDetailList?: Detail[];
  RoleDetailList?: Detail[];
  Policies?: Detail[];
}

/** AWS managed policies the document lists only by ARN, by what they grant. */
const KNOWN_MANAGED: Readonly<Record<string, Statement[]>> = {
  'arn:aws:iam::aws:policy/AdministratorAccess': [{ Effect: 'Allow', Action: '*', Resource: '*' }],
  'arn:aws:iam::aws:policy/IAMFullAccess': [{ Effect: 'Allow', Action: 'iam:*', Resource: '*' }],
};

export const ACCOUNT_ADMIN = 'account-admin';

export function createIamSource(): IngestSource {
  const list = { type: 'array', items: { type: 'object' } };
  const check = reportSchema<AuthorizationDetails>('iam', {
    type: 'object',
    anyOf: [
      { required: ['UserDetailList'] },
      { required: ['RoleDetailList'] },
      { required: ['GroupDetailList'] },
    ],
    properties: { UserDetailList: list, GroupDetailList: list, RoleDetailList: list, Policies: list },
  });
  return {
    name: 'iam',
    version: '1',
    description:
      'IAM authorization details: users, roles, trust (ASSUMES), escalation primitives (CAN_ESCALATE_TO account-admin).',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const queryAccount = accountParameter(query);
      const doc = check(body);
      const out = new EnvelopeBuilder('iam', 'asset', receivedAt);
      const policies = new Map<string, Statement[]>();
      for (const p of doc.Policies ?? []) {
        const version =
          (p.PolicyVersionList ?? []).find((v: Detail) => v.IsDefaultVersion) ?? p.PolicyVersionList?.[0];
        if (typeof p.Arn === 'string')
          policies.set(p.Arn, statementsOf(readPolicyDocument(version?.Document)));
      }
      const managed = (attached: Detail[] | undefined) =>
        (attached ?? []).flatMap((a) => policies.get(a.PolicyArn) ?? KNOWN_MANAGED[a.PolicyArn] ?? []);
      const inline = (lists: Detail[] | undefined) =>
        (lists ?? []).flatMap((p) => statementsOf(readPolicyDocument(p.PolicyDocument)));
      const groups = new Map<string, Statement[]>();
      for (const g of doc.GroupDetailList ?? [])
        groups.set(g.GroupName, [...inline(g.GroupPolicyList), ...managed(g.AttachedManagedPolicies)]);

      const ids = new Map<string, string>();
      const principals: { id: string; account: string; statements: Statement[] }[] = [];
      const accountOf = (arn: unknown) =>
        queryAccount ?? (typeof arn === 'string' ? parseIamArn(arn)?.account : undefined);
      for (const user of doc.UserDetailList ?? []) {
        const account = accountOf(user.Arn);
        const id = out.node('User', qualify(user.UserName, account), {
          arn: user.Arn,
          account,
          groups: user.GroupList?.length ? user.GroupList : undefined,
        });
        ids.set(String(user.Arn), id);
        principals.push({
          id,
          account: account ?? '',
          statements: [
            ...inline(user.UserPolicyList),
            ...managed(user.AttachedManagedPolicies),
            ...(user.GroupList ?? []).flatMap((g: string) => groups.get(g) ?? []),
          ],
        });
      }
      for (const role of doc.RoleDetailList ?? []) {
        const account = accountOf(role.Arn);
        const managedArns = (role.AttachedManagedPolicies ?? []).map((a: Detail) => a.PolicyArn as string);
        const id = out.node('IAM_Role', qualify(role.RoleName, account), {
          arn: role.Arn,
          account,
          managed_policies: managedArns.length ? managedArns : undefined,
          ...roleTrustExposure(role.AssumeRolePolicyDocument),
          ...crownJewel({
            label: 'IAM_Role',
            name: role.RoleName,
            tags: readTags(role.Tags),
            managedPolicies: managedArns,
          }),
        });
        ids.set(String(role.Arn), id);
        principals.push({
          id,
          account: account ?? '',
          statements: [...inline(role.RolePolicyList), ...managed(role.AttachedManagedPolicies)],
        });
      }

      // Trust: the principals a role's trust policy names may assume it.
      for (const role of doc.RoleDetailList ?? []) {
        const roleId = ids.get(String(role.Arn))!;
        for (const s of statementsOf(readPolicyDocument(role.AssumeRolePolicyDocument)) as (Statement & {
          Principal?: Detail | string;
        })[]) {
          if (s.Effect !== 'Allow' || !s.Principal || typeof s.Principal !== 'object') continue;
          for (const arn of [s.Principal.AWS].flat()) {
            const from = typeof arn === 'string' ? ids.get(arn) : undefined;
            if (from && from !== roleId)
              out.edge('ASSUMES', from, roleId, {
                properties: { via: 'trust-policy', conditional: s.Condition !== undefined || undefined },
              });
          }
        }
      }

      // Escalation to the account's administrator.
      const escalations: string[] = [];
      for (const principal of principals) {
        const escalation = escalationOf(principal.statements);
        if (!escalation) continue;
        const admin = out.node('IAM_Role', qualify(ACCOUNT_ADMIN, principal.account || undefined), {
          synthetic: true,
          crown_jewel: true,
          crown_jewel_basis: 'synthetic:account-admin',
          account: principal.account || undefined,
        });
        escalations.push(admin);
        out.edge('CAN_ESCALATE_TO', principal.id, admin, {
          ...(escalation.admin && { exploit_probability: 1, weight_basis: 'heuristic' as const }),
          ...(escalation.resourceScoped && { resource_scoped: true }),
          properties: { primitives: escalation.primitives },
        });
      }
      return { envelopes: [out.build()], warnings: [], mentioned: [...new Set(escalations)] };
    },
  };
}
