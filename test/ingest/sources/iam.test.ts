// The iam source on the real authorization-details documents (cloudsplaining's examples, one of them an
// IAM-Vulnerable lab account): escalation edges as the policy evaluator reads them (rule by rule in
// test/rules/iam/), trust policies as ASSUMES, the account-admin crown jewel, instance profiles as role
// aliases, the IAM-user lens.
import { describe, expect, it } from 'vitest';
import { createIamSource } from '../../../src/ingest/sources/iam.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const iam = createIamSource();

function escalations(file: string): string[] {
  const out = normalize(iam, readReal(`iam/${file}`));
  const names = new Map(out.nodes.map((n) => [n.id, n.name]));
  return out.envelopes[0].edges
    .filter((e) => e.type === 'CAN_ESCALATE_TO')
    .map(
      (e) =>
        `${names.get(e.from)} -> ${names.get(e.to)}: ${(e.properties!.primitives as string[]).join('+')}${e.resource_scoped ? ' (scoped)' : ''}`,
    )
    .sort();
}

describe('the real authorization-details documents', () => {
  it('cloudsplaining-test-example-authz-details.json: an EC2 role minting keys for the administrators', () => {
    expect(escalations('cloudsplaining-test-example-authz-details.json')).toEqual([
      '012345678901/OverprivilegedEC2 -> 012345678901/obama: CreateAccessKey',
      '012345678901/OverprivilegedEC2 -> 012345678901/userwithlotsofpermissions: CreateAccessKey',
      '012345678901/obama -> 012345678901/account-admin: full-admin',
      '012345678901/userwithlotsofpermissions -> 012345678901/account-admin: full-admin',
    ]);
  });

  it('cloudsplaining-test-example_authz_v2.json and the 2020 example', () => {
    expect(escalations('cloudsplaining-test-example_authz_v2.json')).toEqual([
      '012345678901/BlakeBortles -> 012345678901/account-admin: full-admin',
    ]);
    expect(escalations('cloudsplaining-examples-authz-details-2020.json')).toEqual([
      '012345678901/obama -> 012345678901/account-admin: full-admin',
      '012345678901/userwithlotsofpermissions -> 012345678901/account-admin: full-admin',
    ]);
  });

  it('cloudsplaining-example-trimmed.json: the privesc lab, PassRole resolved to the passable roles', () => {
    const found = escalations('cloudsplaining-example-trimmed.json');
    const lab = '200611803367';
    expect(found).toEqual(
      expect.arrayContaining([
        `${lab}/privesc8-AttachGroupPolicy-user -> ${lab}/account-admin: AttachGroupPolicy`,
        `${lab}/privesc9-AttachRolePolicy-role -> ${lab}/account-admin: AttachRolePolicy`,
        `${lab}/privesc11-PutGroupPolicy-user -> ${lab}/account-admin: PutGroupPolicy`,
        // CreateAccessKey on `*`: the users worth taking over, in the caller's own account only
        `${lab}/privesc4-CreateAccessKey-user -> ${lab}/privesc-sre-user: CreateAccessKey`,
        // PassRole goes to the one role Lambda and EC2 may assume, an administrator
        `${lab}/privesc15-PassExistingRoleToNewLambdaThenInvoke-user -> ${lab}/privesc-high-priv-service-role: PassRole+Lambda`,
        `${lab}/privesc3-CreateEC2WithExistingInstanceProfile-user -> ${lab}/privesc-high-priv-service-role: PassRole+EC2`,
        `${lab}/privesc-high-priv-service-role -> ${lab}/account-admin: full-admin`,
        `${lab}/OrganizationAccountAccessRole -> ${lab}/account-admin: full-admin`,
      ]),
    );
    // Never across accounts: the lab's users do not mint keys for another account's users.
    expect(found.filter((e) => e.startsWith(lab) && e.includes('012345678901/'))).toEqual([]);
    // fp2's Deny on everything cancels its Allow on everything.
    expect(found.filter((e) => e.includes('fp2-allow-and-deny'))).toEqual([]);

    const out = normalize(iam, readReal('iam/cloudsplaining-example-trimmed.json'));
    expect(out.edges).toEqual(
      expect.arrayContaining([
        `ASSUMES ${lab}/privesc-AssumeRole-starting-role -> ${lab}/privesc-AssumeRole-intermediate-role`,
        `ASSUMES ${lab}/privesc-AssumeRole-intermediate-role -> ${lab}/privesc-AssumeRole-ending-role`,
        `ASSUMES ${lab}/privesc-sre-user -> ${lab}/privesc-sre-role`,
        // trust in an assumed-role session names the role behind it
        `ASSUMES ${lab}/AWSReservedSSO_AdministratorAccess_dc6414f7f2ab04fc -> ${lab}/privesc-AssumeRole-starting-role`,
        // the SSO SAML provider signs users into the reserved administrator role
        `ASSUMES AWSSSO_b937d2dff24f2774_DO_NOT_DELETE -> ${lab}/AWSReservedSSO_AdministratorAccess_dc6414f7f2ab04fc`,
      ]),
    );
    // Trust in the account root admits that account's principals allowed sts:AssumeRole (the administrators here).
    expect(
      out.edgeProps(
        'ASSUMES',
        `${lab}/OrganizationAccountAccessRole`,
        `${lab}/privesc-permissive-role-trust`,
      ),
    ).toMatchObject({ via: 'trust-account-root' });
    expect(
      out.edgeProps(
        'ASSUMES',
        `${lab}/privesc4-CreateAccessKey-user`,
        `${lab}/privesc-permissive-role-trust`,
      ),
    ).toBeUndefined();
    expect(out.node('IAM_Role', `${lab}/account-admin`).properties).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'synthetic:account-admin',
      synthetic: true,
    });
    // InstanceProfileList: the profile is an alias of its role, the services its trust admits are kept.
    expect(out.node('IAM_Role', `${lab}/privesc-high-priv-service-role`).properties).toMatchObject({
      instance_profiles: ['privesc-high-priv-service-profile'],
      aliases: [`${lab}/instance-profile/privesc-high-priv-service-profile`],
      trusted_services: expect.arrayContaining(['lambda.amazonaws.com', 'ec2.amazonaws.com']),
    });
  });

  it('the IAM-user lens: SEED_IAM_USERS marks every IAM user credential_exposed; off, none', () => {
    const doc = readReal('iam/cloudsplaining-test-example-authz-details.json');
    const users = (seedIamUsers: boolean) =>
      normalize(createIamSource({ seedIamUsers }), doc).nodes.filter((n) => n.label === 'User');
    expect(users(true).length).toBe(3);
    expect(users(true).every((u) => u.properties!.credential_exposed === true)).toBe(true);
    expect(users(false).some((u) => u.properties!.credential_exposed !== undefined)).toBe(false);
    expect(users(false).every((u) => u.properties!.iam_user === true)).toBe(true);
  });

  it('refuses what is not an authorization-details document, and a bad account', () => {
    expect(rejection(iam, { Users: [] })[0].detail).toMatch(/UserDetailList/);
    expect(rejection(iam, { UserDetailList: [] }, { account: 'prod' })[0]).toMatchObject({
      pointer: '/query/account',
    });
  });
});
