// IAM escalation rules one by one, then the real authorization-details documents (cloudsplaining's
// examples): every escalation edge found, listed with its principal and primitives; trust policies as
// ASSUMES; the account-admin crown jewel.
import { describe, expect, it } from 'vitest';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import { escalationOf, type Statement } from '../../../src/rules/iam-escalation.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const allow = (
  Action: string | string[],
  Resource: string | string[] = '*',
  extra: Partial<Statement> = {},
): Statement => ({
  Effect: 'Allow',
  Action,
  Resource,
  ...extra,
});

describe('escalation primitives, one by one', () => {
  it.each([
    ['iam:CreatePolicyVersion', 'CreatePolicyVersion'],
    ['iam:SetDefaultPolicyVersion', 'SetDefaultPolicyVersion'],
    ['iam:CreateAccessKey', 'CreateAccessKey'],
    ['iam:CreateLoginProfile', 'CreateLoginProfile'],
    ['iam:UpdateLoginProfile', 'UpdateLoginProfile'],
    ['iam:AttachUserPolicy', 'AttachUserPolicy'],
    ['iam:AttachGroupPolicy', 'AttachGroupPolicy'],
    ['iam:AttachRolePolicy', 'AttachRolePolicy'],
    ['iam:PutUserPolicy', 'PutUserPolicy'],
    ['iam:PutGroupPolicy', 'PutGroupPolicy'],
    ['iam:PutRolePolicy', 'PutRolePolicy'],
    ['iam:AddUserToGroup', 'AddUserToGroup'],
    ['lambda:UpdateFunctionCode', 'UpdateFunctionCode'],
  ])('%s alone is %s', (action, primitive) => {
    expect(escalationOf([allow(action)])).toEqual({
      primitives: [primitive],
      resourceScoped: false,
      admin: false,
    });
  });

  it('needs every action of a combined primitive', () => {
    expect(escalationOf([allow('iam:PassRole')])).toBeUndefined();
    expect(escalationOf([allow(['iam:PassRole', 'ec2:RunInstances'])])?.primitives).toEqual(['PassRole+EC2']);
    expect(escalationOf([allow(['iam:PassRole', 'lambda:CreateFunction'])])).toBeUndefined();
    expect(
      escalationOf([allow(['iam:PassRole', 'lambda:CreateFunction', 'lambda:InvokeFunction'])])?.primitives,
    ).toEqual(['PassRole+Lambda']);
    expect(escalationOf([allow(['iam:PassRole', 'cloudformation:CreateStack'])])?.primitives).toEqual([
      'PassRole+CloudFormation',
    ]);
    expect(escalationOf([allow(['iam:PassRole', 'glue:CreateDevEndpoint'])])?.primitives).toEqual([
      'PassRole+Glue',
    ]);
    expect(escalationOf([allow(['iam:UpdateAssumeRolePolicy', 'sts:AssumeRole'])])?.primitives).toEqual([
      'UpdateAssumeRolePolicy',
    ]);
  });

  it('reads wildcards: * is an administrator, iam:* every IAM primitive, iam:Put* the Put ones', () => {
    expect(escalationOf([allow('*')])).toEqual({
      primitives: ['full-admin'],
      resourceScoped: false,
      admin: true,
    });
    expect(escalationOf([allow('iam:*')])?.primitives).toEqual(['iam-full-access']);
    expect(escalationOf([allow(['iam:*', 'ec2:RunInstances'])])?.primitives).toEqual([
      'iam-full-access',
      'PassRole+EC2',
    ]);
    expect(escalationOf([allow('iam:Put*')])?.primitives).toEqual([
      'PutUserPolicy',
      'PutGroupPolicy',
      'PutRolePolicy',
    ]);
    expect(escalationOf([allow('IAM:createaccesskey')])?.primitives).toEqual(['CreateAccessKey']);
    expect(escalationOf([{ Effect: 'Allow', NotAction: 's3:*', Resource: '*' }])?.primitives).toContain(
      'iam-full-access',
    );
  });

  it('marks a primitive held only on literal resources as resource-scoped', () => {
    expect(escalationOf([allow('iam:CreateAccessKey', 'arn:aws:iam::111122223333:user/alice')])).toEqual({
      primitives: ['CreateAccessKey'],
      resourceScoped: true,
      admin: false,
    });
  });

  it('respects explicit denies and does not count conditional grants', () => {
    expect(
      escalationOf([allow('iam:CreateAccessKey'), { Effect: 'Deny', Action: 'iam:*', Resource: '*' }]),
    ).toBeUndefined();
    expect(
      escalationOf([allow('*'), { Effect: 'Deny', Action: 'iam:CreateAccessKey', Resource: '*' }])?.admin,
    ).toBe(false);
    expect(
      escalationOf([
        allow('iam:CreateAccessKey', '*', { Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } } }),
      ]),
    ).toBeUndefined();
    expect(escalationOf([allow('s3:GetObject')])).toBeUndefined();
  });
});

const iam = createIamSource();

function escalations(file: string): string[] {
  const out = normalize(iam, readReal(`iam/${file}`));
  const names = new Map(out.nodes.map((n) => [n.id, n.name]));
  return out.envelopes[0].edges
    .filter((e) => e.type === 'CAN_ESCALATE_TO')
    .map(
      (e) =>
        `${names.get(e.from)}: ${(e.properties!.primitives as string[]).join('+')}${e.resource_scoped ? ' (scoped)' : ''}`,
    )
    .sort();
}

describe('the real authorization-details documents', () => {
  it('cloudsplaining-test-example-authz-details.json', () => {
    expect(escalations('cloudsplaining-test-example-authz-details.json')).toEqual([
      '012345678901/OverprivilegedEC2: CreateAccessKey',
      '012345678901/biden: PassRole+Lambda+UpdateFunctionCode',
      '012345678901/obama: full-admin',
      '012345678901/userwithlotsofpermissions: full-admin',
    ]);
  });

  it('cloudsplaining-test-example_authz_v2.json and the 2020 example', () => {
    expect(escalations('cloudsplaining-test-example_authz_v2.json')).toEqual([
      '012345678901/BlakeBortles: full-admin',
    ]);
    expect(escalations('cloudsplaining-examples-authz-details-2020.json')).toEqual([
      '012345678901/obama: full-admin',
      '012345678901/userwithlotsofpermissions: full-admin',
    ]);
  });

  it('cloudsplaining-example-trimmed.json: the privesc lab users and roles, and the trust chain', () => {
    const found = escalations('cloudsplaining-example-trimmed.json');
    expect(found).toEqual(
      expect.arrayContaining([
        '200611803367/privesc4-CreateAccessKey-user: CreateAccessKey',
        '200611803367/privesc8-AttachGroupPolicy-user: AttachGroupPolicy',
        '200611803367/privesc9-AttachRolePolicy-role: AttachRolePolicy',
        '200611803367/privesc11-PutGroupPolicy-user: PutGroupPolicy',
        '200611803367/privesc15-PassExistingRoleToNewLambdaThenInvoke-user: PassRole+Lambda',
        '200611803367/privesc3-CreateEC2WithExistingInstanceProfile-user: PassRole+EC2',
        '200611803367/privesc-sre-user: iam-full-access+PassRole+EC2',
        '200611803367/OrganizationAccountAccessRole: full-admin',
      ]),
    );
    expect(found).toHaveLength(22);
    const out = normalize(iam, readReal('iam/cloudsplaining-example-trimmed.json'));
    expect(out.edges).toEqual(
      expect.arrayContaining([
        'ASSUMES 200611803367/privesc-AssumeRole-starting-role -> 200611803367/privesc-AssumeRole-intermediate-role',
        'ASSUMES 200611803367/privesc-AssumeRole-intermediate-role -> 200611803367/privesc-AssumeRole-ending-role',
        'ASSUMES 200611803367/privesc-sre-user -> 200611803367/privesc-sre-role',
      ]),
    );
    expect(out.node('IAM_Role', '200611803367/account-admin').properties).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'synthetic:account-admin',
      synthetic: true,
    });
    const admin = out.envelopes[0].edges.find(
      (e) =>
        e.type === 'CAN_ESCALATE_TO' &&
        out.nodes.find((n) => n.id === e.from)?.name === '200611803367/OrganizationAccountAccessRole',
    )!;
    expect(admin.exploit_probability).toBe(1);
  });

  it('refuses what is not an authorization-details document, and a bad account', () => {
    expect(rejection(iam, { Users: [] })[0].detail).toMatch(/UserDetailList/);
    expect(rejection(iam, { UserDetailList: [] }, { account: 'prod' })[0]).toMatchObject({
      pointer: '/query/account',
    });
  });
});
