// IAM on the query protocol: GetAccountAuthorizationDetails, paged by MaxItems/Marker with IsTruncated
// (one page counts users, groups, roles and policies together, as IAM does), policy documents URL-encoded
// (RFC 3986) as IAM sends them. Modelled on the example of
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetAccountAuthorizationDetails.html; throttling
// `Throttling`, HTTP 400 (https://docs.aws.amazon.com/IAM/latest/APIReference/CommonErrors.html).
import { page, type PolicyDocument } from './estate.js';
import type { StandInReply, StandInService } from './server.js';
import { queryError, queryResponse } from './xml.js';

const NS = 'https://iam.amazonaws.com/doc/2010-05-08/';
const CREATED = new Date('2026-01-05T10:00:00Z');
const xml = (status: number, body: string): StandInReply => ({ status, type: 'text/xml', body });
const encoded = (doc: PolicyDocument) =>
  encodeURIComponent(JSON.stringify({ Version: '2012-10-17', ...doc }));
const inline = (list: { PolicyName: string; PolicyDocument: PolicyDocument }[] | undefined) =>
  (list ?? []).map((p) => ({ PolicyName: p.PolicyName, PolicyDocument: encoded(p.PolicyDocument) }));

export const iam: StandInService = {
  signingName: 'iam',
  action: (request) => request.params.get('Action') ?? '',
  handle(action, request) {
    if (action !== 'GetAccountAuthorizationDetails')
      return this.error(400, 'InvalidAction', `Could not find operation ${action} for version 2010-05-08`);
    const { account, estate } = request;
    const arn = (kind: string, name: string, path = '/') => `arn:aws:iam::${account}:${kind}${path}${name}`;
    const entries = [
      ...(estate.users ?? []).map((u) => ({
        list: 'UserDetailList' as const,
        item: {
          Path: '/',
          UserName: u.UserName,
          UserId: `AIDA${u.UserName.toUpperCase()}`,
          Arn: arn('user', u.UserName),
          CreateDate: CREATED,
          UserPolicyList: inline(u.UserPolicyList),
          GroupList: u.GroupList ?? [],
          AttachedManagedPolicies: u.AttachedManagedPolicies ?? [],
        },
      })),
      ...(estate.roles ?? []).map((r) => {
        const roleArn = arn('role', r.RoleName, r.Path);
        const summary = {
          Path: r.Path ?? '/',
          RoleName: r.RoleName,
          RoleId: `AROA${r.RoleName.toUpperCase()}`,
          Arn: roleArn,
          CreateDate: CREATED,
          AssumeRolePolicyDocument: encoded(r.AssumeRolePolicyDocument),
        };
        return {
          list: 'RoleDetailList' as const,
          item: {
            ...summary,
            InstanceProfileList: (r.InstanceProfileNames ?? []).map((name) => ({
              Path: '/',
              InstanceProfileName: name,
              InstanceProfileId: `AIPA${name.toUpperCase()}`,
              Arn: arn('instance-profile', name),
              CreateDate: CREATED,
              Roles: [summary],
            })),
            RolePolicyList: inline(r.RolePolicyList),
            AttachedManagedPolicies: r.AttachedManagedPolicies ?? [],
            Tags: r.Tags ?? [],
          },
        };
      }),
      ...(estate.policies ?? []).map((p) => ({
        list: 'Policies' as const,
        item: {
          PolicyName: p.PolicyName,
          PolicyId: `ANPA${p.PolicyName.toUpperCase()}`,
          Arn: p.Arn,
          Path: '/',
          DefaultVersionId: 'v1',
          AttachmentCount: 1,
          IsAttachable: true,
          CreateDate: CREATED,
          UpdateDate: CREATED,
          PolicyVersionList: [
            { Document: encoded(p.Document), VersionId: 'v1', IsDefaultVersion: true, CreateDate: CREATED },
          ],
        },
      })),
    ];
    const { items, next } = page(
      entries,
      request.params.get('Marker'),
      request.params.get('MaxItems'),
      request.pageSize,
    );
    const of = (list: string) => items.filter((e) => e.list === list).map((e) => e.item);
    return xml(
      200,
      queryResponse(action, NS, {
        UserDetailList: of('UserDetailList'),
        GroupDetailList: [],
        RoleDetailList: of('RoleDetailList'),
        Policies: of('Policies'),
        IsTruncated: next !== undefined,
        Marker: next,
      }),
    );
  },
  throttled: () => xml(400, queryError('Throttling', 'Rate exceeded')),
  error: (status, code, message) => xml(status, queryError(code, message)),
};
