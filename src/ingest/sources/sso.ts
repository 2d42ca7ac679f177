// Source `sso`: an identity provider's users, `{provider, users: [{email, mfa, groups, federated_roles}],
// internet_login?}`. Draws IdentityProvider AUTHENTICATES User (priced by MFA: docs/model.md, "Sign-ins")
// and User ASSUMES IAM_Role for each federated role ARN. `internet_login` (default true) marks the provider
// internet_exposed: anyone on the internet can try to sign in.
import { MFA_LOGIN_PROBABILITY, PHISHABLE_LOGIN_PROBABILITY } from '../../model/probability.js';
import { parseIamArn, qualify } from './account.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

interface SsoReport {
  provider: string;
  internet_login?: boolean;
  users: { email: string; mfa: boolean; groups?: string[]; federated_roles?: string[] }[];
}

export function createSsoSource(): IngestSource {
  const check = reportSchema<SsoReport>('sso', {
    type: 'object',
    required: ['provider', 'users'],
    properties: {
      provider: { type: 'string', minLength: 1, pattern: '\\S' },
      internet_login: { type: 'boolean' },
      users: {
        type: 'array',
        items: {
          type: 'object',
          required: ['email', 'mfa'],
          properties: {
            email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
            mfa: { type: 'boolean' },
            groups: { type: 'array', items: { type: 'string' } },
            federated_roles: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  });
  return {
    name: 'sso',
    version: '1',
    description: 'SSO users: IdentityProvider AUTHENTICATES User (MFA-priced) ASSUMES IAM_Role.',
    snapshots: 'query',
    normalize({ body, receivedAt }) {
      const report = check(body);
      const bad = report.users.flatMap((u, i) =>
        (u.federated_roles ?? []).flatMap((arn, j) =>
          parseIamArn(arn)?.kind === 'role'
            ? []
            : [{ pointer: `/users/${i}/federated_roles/${j}`, value: arn, detail: 'not an IAM role ARN' }],
        ),
      );
      if (bad.length) throw reportProblem('sso', bad);
      const out = new EnvelopeBuilder('sso', 'asset', receivedAt);
      const internet = report.internet_login ?? true;
      const provider = out.node('IdentityProvider', report.provider.trim(), {
        internet_login: internet,
        ...(internet && { internet_exposed: true }),
      });
      const mentioned: string[] = [];
      for (const user of report.users) {
        const id = out.node('User', user.email.toLowerCase(), {
          email: user.email,
          mfa: user.mfa,
          groups: user.groups?.length ? user.groups : undefined,
          identity_provider: report.provider.trim(),
        });
        out.edge('AUTHENTICATES', provider, id, {
          exploit_probability: user.mfa ? MFA_LOGIN_PROBABILITY : PHISHABLE_LOGIN_PROBABILITY,
          weight_basis: 'heuristic',
          properties: { mfa: user.mfa },
        });
        for (const arn of user.federated_roles ?? []) {
          const role = parseIamArn(arn)!;
          const roleId = out.node('IAM_Role', qualify(role.name, role.account), {
            arn,
            account: role.account,
          });
          mentioned.push(roleId);
          out.edge('ASSUMES', id, roleId, { properties: { via: 'federation' } });
        }
      }
      return { envelopes: [out.build()], warnings: [], mentioned };
    },
  };
}
