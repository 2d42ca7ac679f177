// Bucket policies in a Terraform plan or state (`aws_s3_bucket_policy`, a bucket's own `policy`): a statement
// letting anyone (`Principal: "*"`, `{"AWS": "*"}`) reach the bucket's data, with no condition confining it
// to fixed parties (S3's own meaning of public: a VPC endpoint, an organization, an account, source ranges),
// makes the bucket internet exposed, and public_access when anyone may read it, as a public ACL does.
// `restrict_public_buckets` takes it back, as S3 does. A policy document Terraform reads at apply is read
// from the statements the plan holds; one whose confining values are known only at apply is left unstated.
// Real plans: terraform-compliance's issues 174 and 255, checkov's plan with a policy document data source.
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';
import { normalize } from '../../helpers/normalize.js';
import { ACCOUNT, plan, publicReadPolicy, res, unseenPlan } from '../../helpers/terraform-plan.js';

const terraform = createTerraformSource();

const statement = publicReadPolicy;
const bucket = res('aws_s3_bucket.exports', { bucket: 'exports', tags: { classification: 'pii' } });
const withPolicy = (policy: string, more: unknown[] = []) =>
  normalize(
    terraform,
    plan([bucket, res('aws_s3_bucket_policy.exports', { bucket: 'exports', policy }), ...more]),
    {
      account: ACCOUNT,
    },
  ).node('Bucket', `${ACCOUNT}/exports`).properties;

describe('terraform bucket policies', () => {
  it('Principal "*" (or {"AWS": "*"}) allowed to read, with no condition: exposed, public, still a crown jewel', () => {
    for (const Principal of ['*', { AWS: '*' }, { AWS: ['*'] }])
      expect(withPolicy(statement({ Principal })), JSON.stringify(Principal)).toMatchObject({
        internet_exposed: true,
        public_access: true,
        exposure_basis: 'policy:*:s3:GetObject',
        crown_jewel: true,
      });
    // Anyone may write but not read: exposed, not public_access (as an ACL granting WRITE only).
    expect(withPolicy(statement({ Action: 's3:PutObject' }))).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'policy:*:s3:PutObject',
    });
    expect(withPolicy(statement({ Action: 's3:PutObject' }))?.public_access).toBeUndefined();
    // A condition that confines no one (TLS only) leaves it public; so does a source range of the whole internet.
    expect(withPolicy(statement({ Condition: { Bool: { 'aws:SecureTransport': 'true' } } }))).toMatchObject({
      public_access: true,
    });
    expect(
      withPolicy(statement({ Condition: { IpAddress: { 'aws:SourceIp': '0.0.0.0/0' } } })),
    ).toMatchObject({
      public_access: true,
    });
  });

  it('not public: confined to a VPC endpoint, an organization, an account, a range; a named principal; denied', () => {
    const closed = {
      internet_exposed: false,
      public_access: false,
      exposure_basis: 'terraform:no-public-acl-or-policy',
    };
    for (const Condition of [
      { StringEquals: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } },
      { StringEquals: { 'aws:PrincipalOrgID': 'o-abc123' } },
      { StringEquals: { 'aws:SourceAccount': ACCOUNT } },
      { IpAddress: { 'aws:SourceIp': ['203.0.113.0/24'] } },
    ])
      expect(withPolicy(statement({ Condition })), JSON.stringify(Condition)).toMatchObject(closed);
    expect(withPolicy(statement({ Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` } }))).toMatchObject(
      closed,
    );
    // A negated or wildcard test admits everyone but a few: still public.
    expect(
      withPolicy(statement({ Condition: { StringNotEquals: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } } })),
    ).toMatchObject({
      internet_exposed: true,
    });
    expect(
      withPolicy(statement({ Condition: { StringLike: { 'aws:PrincipalOrgID': 'o-*' } } })),
    ).toMatchObject({
      internet_exposed: true,
    });
    // So do tests that only ask whether a key is there, or that pass when it is not.
    for (const Condition of [
      { Null: { 'aws:SourceVpce': 'false' } },
      { StringEqualsIfExists: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } },
      { Bool: { 'aws:SecureTransport': 'true' } },
    ])
      expect(withPolicy(statement({ Condition })), JSON.stringify(Condition)).toMatchObject({
        internet_exposed: true,
      });
    // An unconditioned Deny to anyone takes the read back.
    const denied = JSON.stringify({
      Statement: [
        { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: '*' },
        { Effect: 'Deny', Principal: '*', Action: 's3:Get*', Resource: '*' },
      ],
    });
    expect(withPolicy(denied)).toMatchObject(closed);
  });

  it('restrict_public_buckets closes it; a deleted policy closes it; a policy known after apply is left unstated', () => {
    const block = res('aws_s3_bucket_public_access_block.exports', {
      bucket: 'exports',
      block_public_acls: false,
      ignore_public_acls: false,
      block_public_policy: false,
      restrict_public_buckets: true,
    });
    expect(withPolicy(statement({}), [block])).toMatchObject({
      internet_exposed: false,
      public_access: false,
    });
    // The plan deletes the policy: the bucket's own `policy` is the one before the change, not read.
    const deleted = normalize(
      terraform,
      plan([{ ...bucket, values: { ...bucket.values, policy: statement({}) } }], {
        resource_changes: [
          {
            address: 'aws_s3_bucket_policy.exports',
            mode: 'managed',
            type: 'aws_s3_bucket_policy',
            name: 'exports',
            change: {
              actions: ['delete'],
              before: { bucket: 'exports', policy: statement({}) },
              after: null,
            },
          },
        ],
      }),
      { account: ACCOUNT },
    );
    expect(deleted.node('Bucket', `${ACCOUNT}/exports`).properties).toMatchObject({
      internet_exposed: false,
    });
    // A bucket's own `policy` (provider 3's argument, a state's held value) is read when no aws_s3_bucket_policy is.
    const own = normalize(
      terraform,
      plan([{ ...bucket, values: { ...bucket.values, policy: statement({}) } }]),
      {
        account: ACCOUNT,
      },
    );
    expect(own.node('Bucket', `${ACCOUNT}/exports`).properties).toMatchObject({ public_access: true });
  });

  it('a policy on a bucket the plan does not hold: stated exposed when it opens it, else its exposure unsaid', () => {
    const foreign = (policy: string) =>
      normalize(terraform, plan([res('aws_s3_bucket_policy.shared', { bucket: 'shared-exports', policy })]), {
        account: ACCOUNT,
      });
    expect(foreign(statement({})).node('Bucket', `${ACCOUNT}/shared-exports`).properties).toMatchObject({
      internet_exposed: true,
      public_access: true,
      terraform_address: 'aws_s3_bucket_policy.shared',
    });
    // Its ACL is not in the document: a policy that opens nothing names the bucket, not its exposure.
    const confined = foreign(
      statement({ Condition: { StringEquals: { 'aws:PrincipalOrgID': 'o-abc123' } } }),
    );
    const props = confined.node('Bucket', `${ACCOUNT}/shared-exports`).properties;
    expect(props?.internet_exposed).toBeUndefined();
    expect(props?.exposure_basis).toBeUndefined();
  });

  it('terraform-compliance issue 174 (Terraform 0.12.12): both buckets open to anyone by policy, TLS deny or not', () => {
    const out = normalize(terraform, unseenPlan('terraform-compliance-test_issue-174-plan.out.json'));
    for (const name of ['my_test_bucket', 'my_test_bucket_noncompliant'])
      expect(out.node('Bucket', name).properties, name).toMatchObject({
        internet_exposed: true,
        public_access: true,
        exposure_basis: 'policy:*:s3:*',
        region: 'eu-west-1',
      });
    expect(out.warnings).toEqual([]);
  });

  it('terraform-compliance issue 255 (Terraform 0.12.24): a policy with no principal opens nothing', () => {
    const out = normalize(terraform, unseenPlan('terraform-compliance-test_issue-255-plan.out.json'));
    expect(out.node('Bucket', 'my_tf_test_bucket').properties).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'terraform:no-public-acl-or-policy',
    });
  });

  it("checkov's plan (Terraform 1.3.9): a policy document read at apply, its planned statements read now", () => {
    // Its `aws_iam_policy_document` uses the new bucket's ARN, so Terraform reads it at apply; the plan holds its
    // statements as far as known: as this file holds them, `*` on `*` to the AWS principal `*`.
    const out = normalize(terraform, unseenPlan('checkov-plan_with_iam_data_block-tfplan.json'));
    expect(out.node('Bucket', 'my-tf-test-bucket').properties).toMatchObject({
      internet_exposed: true,
      public_access: true,
      exposure_basis: 'policy:*:*',
      region: 'us-east-2',
    });
  });

  it('a deferred policy document: an account principal opens nothing; a condition known only at apply is unstated', () => {
    const body = (statement: Record<string, unknown>) => ({
      format_version: '1.1',
      planned_values: {
        root_module: {
          resources: [
            bucket,
            { ...res('aws_s3_bucket_policy.exports', {}), values: {} },
            {
              address: 'data.aws_iam_policy_document.exports',
              mode: 'data',
              type: 'aws_iam_policy_document',
              name: 'exports',
              values: {
                source_policy_documents: null,
                override_policy_documents: null,
                statement: [
                  { actions: ['s3:GetObject'], effect: null, resources: [null], condition: [], ...statement },
                ],
              },
            },
          ],
        },
      },
      resource_changes: [],
      configuration: {
        root_module: {
          resources: [
            {
              address: 'aws_s3_bucket_policy.exports',
              expressions: {
                bucket: { references: ['aws_s3_bucket.exports.id', 'aws_s3_bucket.exports'] },
                policy: {
                  references: [
                    'data.aws_iam_policy_document.exports.json',
                    'data.aws_iam_policy_document.exports',
                  ],
                },
              },
            },
          ],
        },
      },
    });
    const props = (statement: Record<string, unknown>) =>
      normalize(terraform, body(statement), { account: ACCOUNT }).node('Bucket', `${ACCOUNT}/exports`)
        .properties;
    expect(props({ principals: [{ type: '*', identifiers: ['*'] }] })).toMatchObject({ public_access: true });
    expect(props({ principals: [{ type: 'AWS', identifiers: [ACCOUNT] }] })).toMatchObject({
      internet_exposed: false,
    });
    const unknownEndpoint = props({
      principals: [{ type: '*', identifiers: ['*'] }],
      condition: [{ test: 'StringEquals', variable: 'aws:SourceVpce', values: [null] }],
    });
    expect(unknownEndpoint).toMatchObject({ exposure_basis: 'terraform:policy-known-after-apply' });
    expect(unknownEndpoint?.internet_exposed).toBeUndefined();
    const knownEndpoint = props({
      principals: [{ type: '*', identifiers: ['*'] }],
      condition: [{ test: 'StringEquals', variable: 'aws:SourceVpce', values: ['vpce-1a2b3c4d'] }],
    });
    expect(knownEndpoint).toMatchObject({ internet_exposed: false });
  });
});
