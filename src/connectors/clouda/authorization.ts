// An account's IAM for the `iam` source: GetAccountAuthorizationDetails paged to its end, merged into the
// one document `aws iam get-account-authorization-details` prints, with the policy documents decoded from
// the URL-encoded JSON IAM sends (as the CLI decodes them).
import { paginateGetAccountAuthorizationDetails } from '@aws-sdk/client-iam';
import type { AccountClients } from './clients.js';
import { step } from './steps.js';

function decoded(document: unknown): unknown {
  if (typeof document !== 'string') return document;
  try {
    return JSON.parse(decodeURIComponent(document));
  } catch {
    return document; // the iam source reads it as it is, or says why not
  }
}

const inline = (list: { PolicyDocument?: unknown }[] | undefined) =>
  list?.map((p) => ({ ...p, PolicyDocument: decoded(p.PolicyDocument) }));

export async function pullAuthorization(
  clients: AccountClients,
  signal: AbortSignal,
): Promise<Record<string, unknown[]>> {
  const out = { UserDetailList: [], GroupDetailList: [], RoleDetailList: [], Policies: [] } as Record<
    'UserDetailList' | 'GroupDetailList' | 'RoleDetailList' | 'Policies',
    unknown[]
  >;
  await step(signal, 'iam:GetAccountAuthorizationDetails', async () => {
    for await (const page of paginateGetAccountAuthorizationDetails(
      { client: clients.iam, pageSize: 1000 },
      {},
    )) {
      signal.throwIfAborted();
      for (const user of page.UserDetailList ?? [])
        out.UserDetailList.push({ ...user, UserPolicyList: inline(user.UserPolicyList) });
      for (const group of page.GroupDetailList ?? [])
        out.GroupDetailList.push({ ...group, GroupPolicyList: inline(group.GroupPolicyList) });
      for (const role of page.RoleDetailList ?? [])
        out.RoleDetailList.push({
          ...role,
          AssumeRolePolicyDocument: decoded(role.AssumeRolePolicyDocument),
          RolePolicyList: inline(role.RolePolicyList),
          InstanceProfileList: role.InstanceProfileList?.map((profile) => ({
            ...profile,
            Roles: profile.Roles?.map((r) => ({
              ...r,
              AssumeRolePolicyDocument: decoded(r.AssumeRolePolicyDocument),
            })),
          })),
        });
      for (const policy of page.Policies ?? [])
        out.Policies.push({
          ...policy,
          PolicyVersionList: policy.PolicyVersionList?.map((v) => ({ ...v, Document: decoded(v.Document) })),
        });
    }
  });
  return out;
}
