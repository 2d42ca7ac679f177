// What the clouda connector adds to custodian-shaped records: a bucket's Block Public Access settings
// (`c7n:PublicAccessBlock`, as Custodian's check-public-block filter annotates them) and Lambda functions
// with their execution roles.
import { describe, expect, it } from 'vitest';
import { createCustodianSource } from '../../../src/ingest/sources/custodian.js';
import { normalize } from '../../helpers/normalize.js';
import { custodianBody, placebo } from '../../helpers/placebo.js';

const custodian = createCustodianSource();
const ACCOUNT = '644160558196';
const grants = placebo('custodian/test_s3_grants')['s3.GetBucketAcl_1'].Grants;
const publicPolicy = JSON.stringify({
  Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' }],
});
const block = (settings: Record<string, boolean>) => ({
  BlockPublicAcls: false,
  IgnorePublicAcls: false,
  BlockPublicPolicy: false,
  RestrictPublicBuckets: false,
  ...settings,
});
const bucket = (resource: Record<string, unknown>) =>
  normalize(
    custodian,
    custodianBody(ACCOUNT, [{ resource: 'aws.s3', resources: [{ Name: 'b', ...resource }] }]),
  ).node('Bucket', `${ACCOUNT}/b`).properties;

describe('custodian: Block Public Access', () => {
  it('RestrictPublicBuckets takes a public policy back, IgnorePublicAcls a public ACL', () => {
    expect(
      bucket({ Policy: publicPolicy, 'c7n:PublicAccessBlock': block({ RestrictPublicBuckets: true }) }),
    ).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'public-access-block:RestrictPublicBuckets',
    });
    expect(
      bucket({ Acl: { Grants: grants }, 'c7n:PublicAccessBlock': block({ IgnorePublicAcls: true }) }),
    ).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'public-access-block:IgnorePublicAcls',
    });
  });

  it('twins: a block that does not cover what opens the bucket leaves it exposed', () => {
    // BlockPublicPolicy refuses new public policies; it does not take back the one in place.
    expect(
      bucket({
        Policy: publicPolicy,
        'c7n:PublicAccessBlock': block({ BlockPublicPolicy: true, IgnorePublicAcls: true }),
      }),
    ).toMatchObject({ internet_exposed: true, public_access: true });
    expect(
      bucket({ Acl: { Grants: grants }, 'c7n:PublicAccessBlock': block({ RestrictPublicBuckets: true }) }),
    ).toMatchObject({
      internet_exposed: true,
    });
    // A closed bucket with a block says nothing more than one without.
    expect(
      bucket({ 'c7n:PublicAccessBlock': block({ RestrictPublicBuckets: true }) })?.internet_exposed,
    ).toBeUndefined();
  });
});

describe('custodian: Lambda functions', () => {
  it('a function is a workload that assumes its execution role', () => {
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.lambda',
          resources: [
            {
              FunctionName: 'resize',
              Runtime: 'python3.12',
              Role: `arn:aws:iam::${ACCOUNT}:role/service-role/resize-exec`,
            },
            { FunctionName: 'no-role' },
          ],
        },
      ]),
    );
    expect(out.names('Service')).toEqual([`${ACCOUNT}/lambda/no-role`, `${ACCOUNT}/lambda/resize`]);
    expect(out.edges).toEqual([`ASSUMES ${ACCOUNT}/lambda/resize -> ${ACCOUNT}/resize-exec`]);
    expect(out.warnings).toEqual([]);
  });
});
