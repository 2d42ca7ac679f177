// Trust kinds (src/rules/iam/trust.ts), each with its negative twin: principals named by ARN, account
// roots, services (through PassRole), GitHub Actions OIDC, SAML providers.
import { describe, expect, it } from 'vitest';
import type { Statement } from '../../../src/rules/iam/policy.js';
import { allow, arn, deny, edges, normalized, role, user } from './fixtures.js';

const assumes = (doc: Parameters<typeof edges>[0]) => edges(doc, 'ASSUMES');

describe('trust', () => {
  it('a principal named by ARN assumes the role; twin: a Deny statement names it', () => {
    expect(
      assumes({
        UserDetailList: [user('dev', [])],
        RoleDetailList: [role('app', { AWS: arn('user', 'dev') })],
      }),
    ).toEqual(['dev -> app via trust-policy']);
    const denied: Statement[] = [
      { Effect: 'Deny', Principal: { AWS: arn('user', 'dev') }, Action: 'sts:AssumeRole' },
    ];
    expect(assumes({ UserDetailList: [user('dev', [])], RoleDetailList: [role('app', denied)] })).toEqual([]);
  });

  it("an account root admits that account's principals allowed sts:AssumeRole; twins: not allowed, or denied", () => {
    const trustRoot = role('shared', { AWS: 'arn:aws:iam::111122223333:root' });
    expect(
      assumes({
        UserDetailList: [user('dev', [allow('sts:AssumeRole', arn('role', 'shared'))])],
        RoleDetailList: [trustRoot],
      }),
    ).toEqual(['dev -> shared via trust-account-root']);
    expect(assumes({ UserDetailList: [user('dev', [allow('s3:*')])], RoleDetailList: [trustRoot] })).toEqual(
      [],
    );
    expect(
      assumes({
        UserDetailList: [
          user('dev', [allow('sts:AssumeRole'), deny('sts:AssumeRole', 'arn:aws:iam::*:role/shared')]),
        ],
        RoleDetailList: [trustRoot],
      }),
    ).toEqual([]);
    // the bare account id is the same root; another account's root admits none of this one
    expect(
      assumes({
        UserDetailList: [user('dev', [allow('sts:AssumeRole')])],
        RoleDetailList: [role('r', { AWS: '111122223333' })],
      }),
    ).toEqual(['dev -> r via trust-account-root']);
    expect(
      assumes({
        UserDetailList: [user('dev', [allow('sts:AssumeRole')])],
        RoleDetailList: [role('r', { AWS: '999988887777' })],
      }),
    ).toEqual([]);
  });

  it('a service is recorded on the role for PassRole; twin: a role no service may assume has none', () => {
    const out = normalized({
      RoleDetailList: [
        role('fn', { Service: 'lambda.amazonaws.com' }),
        role('plain', { AWS: arn('user', 'x') }),
      ],
    });
    expect(out.node('IAM_Role', '111122223333/fn').properties!.trusted_services).toEqual([
      'lambda.amazonaws.com',
    ]);
    expect(out.node('IAM_Role', '111122223333/plain').properties!.trusted_services).toBeUndefined();
  });

  describe('GitHub Actions OIDC', () => {
    const github = (condition?: Statement['Condition']): Statement[] => [
      {
        Effect: 'Allow',
        Principal: {
          Federated: 'arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com',
        },
        Action: 'sts:AssumeRoleWithWebIdentity',
        ...(condition && { Condition: condition }),
      },
    ];
    const aud = { 'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com' };

    it('without a sub condition every GitHub repository may assume it: an internet start', () => {
      const out = normalized({ RoleDetailList: [role('deploy', github({ StringEquals: aud }))] });
      expect(out.node('IAM_Role', '111122223333/deploy').properties!).toMatchObject({
        internet_exposed: true,
        exposure_basis: 'trust:oidc:token.actions.githubusercontent.com:any-repository',
      });
      expect(
        normalized({
          RoleDetailList: [
            role('deploy', github({ StringLike: { 'token.actions.githubusercontent.com:sub': 'repo:*' } })),
          ],
        }).node('IAM_Role', '111122223333/deploy').properties!.internet_exposed,
      ).toBe(true);
    });

    it('a wildcard sub admits the repository it names: Repository ASSUMES IAM_Role', () => {
      const doc = {
        RoleDetailList: [
          role(
            'deploy',
            github({
              StringEquals: aud,
              StringLike: { 'token.actions.githubusercontent.com:sub': 'repo:Octo/App:*' },
            }),
          ),
        ],
      };
      expect(assumes(doc)).toEqual(['github.com/octo/app -> deploy via oidc:github-actions']);
      expect(
        normalized(doc).node('IAM_Role', '111122223333/deploy').properties!.internet_exposed,
      ).toBeUndefined();
    });

    it('twin: a sub pinned to one ref admits no wildcard and starts nothing', () => {
      const doc = {
        RoleDetailList: [
          role(
            'deploy',
            github({
              StringEquals: {
                ...aud,
                'token.actions.githubusercontent.com:sub': 'repo:octo/app:ref:refs/heads/main',
              },
            }),
          ),
        ],
      };
      expect(assumes(doc)).toEqual([]);
      expect(
        normalized(doc).node('IAM_Role', '111122223333/deploy').properties!.internet_exposed,
      ).toBeUndefined();
    });
  });

  it('a SAML provider signs users into the role; twin: a Deny statement for it', () => {
    const saml = (Effect: string): Statement[] => [
      {
        Effect,
        Principal: { Federated: 'arn:aws:iam::111122223333:saml-provider/Okta' },
        Action: 'sts:AssumeRoleWithSAML',
      },
    ];
    expect(assumes({ RoleDetailList: [role('admin', saml('Allow'))] })).toEqual(['Okta -> admin via saml']);
    expect(assumes({ RoleDetailList: [role('admin', saml('Deny'))] })).toEqual([]);
  });
});
