// The sso and dataclass sources: sign-ins priced by MFA, federated roles named by ARN and account,
// crown jewels from classification findings, accounts checked, and bad reports refused by pointer.
import { describe, expect, it } from 'vitest';
import { createDataclassSource } from '../../../src/ingest/sources/dataclass.js';
import { createSsoSource } from '../../../src/ingest/sources/sso.js';
import { MFA_LOGIN_PROBABILITY, PHISHABLE_LOGIN_PROBABILITY } from '../../../src/model/probability.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const sso = createSsoSource();
const dataclass = createDataclassSource();

describe('sso', () => {
  const report = {
    provider: 'okta-acme',
    users: [
      {
        email: 'Alice@acme.test',
        mfa: false,
        groups: ['eng'],
        federated_roles: ['arn:aws:iam::111122223333:role/Admin'],
      },
      { email: 'bob@acme.test', mfa: true, federated_roles: ['arn:aws:iam::444455556666:role/ops/Admin'] },
    ],
  };

  it('draws the provider (internet-exposed by default), its users priced by MFA, and their roles', () => {
    const out = normalize(sso, report);
    expect(out.node('IdentityProvider', 'okta-acme').properties).toMatchObject({
      internet_exposed: true,
      internet_login: true,
    });
    expect(out.names('User')).toEqual(['alice@acme.test', 'bob@acme.test']);
    // The same role name in two accounts is two roles.
    expect(out.names('IAM_Role')).toEqual(['111122223333/Admin', '444455556666/Admin']);
    expect(out.edges).toEqual([
      'ASSUMES alice@acme.test -> 111122223333/Admin',
      'ASSUMES bob@acme.test -> 444455556666/Admin',
      'AUTHENTICATES okta-acme -> alice@acme.test',
      'AUTHENTICATES okta-acme -> bob@acme.test',
    ]);
    const hops = out.envelopes[0].edges
      .filter((e) => e.type === 'AUTHENTICATES')
      .map((e) => e.exploit_probability);
    expect(hops).toEqual([PHISHABLE_LOGIN_PROBABILITY, MFA_LOGIN_PROBABILITY]);
    expect(out.mentioned).toHaveLength(2);
  });

  it('leaves the provider unexposed with internet_login false', () => {
    const out = normalize(sso, { ...report, internet_login: false });
    expect(out.node('IdentityProvider', 'okta-acme').properties).not.toHaveProperty('internet_exposed');
  });

  it('refuses a bad user or role by pointer', () => {
    expect(
      rejection(sso, { provider: 'x', users: [{ email: 'nope', mfa: 'yes' }] })
        .map((e) => e.pointer)
        .sort(),
    ).toEqual(['/users/0/email', '/users/0/mfa']);
    expect(
      rejection(sso, {
        provider: 'x',
        users: [{ email: 'a@b.c', mfa: true, federated_roles: ['arn:aws:s3:::bucket'] }],
      })[0],
    ).toMatchObject({
      pointer: '/users/0/federated_roles/0',
      value: 'arn:aws:s3:::bucket',
    });
  });
});

describe('dataclass', () => {
  it('marks each classified asset a crown jewel with its basis, qualified by account', () => {
    const out = normalize(
      dataclass,
      {
        source: 'macie',
        records: [
          { asset: 'customer-exports', label: 'Bucket', kind: 'pii', account: '111122223333' },
          { asset: 'orders', label: 'Database', kind: 'payment' },
        ],
      },
      { account: '999988887777' },
    );
    expect(out.node('Bucket', '111122223333/customer-exports').properties).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'classified:macie:pii',
      account: '111122223333',
    });
    expect(out.node('Database', '999988887777/orders').properties).toMatchObject({
      crown_jewel_basis: 'classified:macie:payment',
    });
  });

  it('refuses an account that is not an account id, and records that are not of the shape', () => {
    expect(rejection(dataclass, { source: 'macie', records: [] }, { account: 'prod' })).toEqual([
      { pointer: '/query/account', value: 'prod', detail: 'a 12-digit account id' },
    ]);
    expect(
      rejection(dataclass, { source: 'macie', records: [{ asset: 'x', label: 'Spaceship', kind: 'pii' }] })[0]
        .pointer,
    ).toBe('/records/0/label');
  });
});
