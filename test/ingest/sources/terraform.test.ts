// The terraform source on plan shapes the gate fixtures do not cover: a deleted instance stated closed, a
// bucket made public by its canned ACL (and closed again by a public-access block), load balancers by
// scheme, a new managed policy attached by reference (its ARN known only after apply) read by the iam
// rules, and a module's resources. Names are the cloud sources' (`<account>/<name>`).
import { describe, expect, it } from 'vitest';
import { createTerraformSource } from '../../../src/ingest/sources/terraform.js';

const ACCOUNT = '111122223333';
const source = createTerraformSource();
const normalize = (plan: unknown, query: Record<string, string> = {}) =>
  source.normalize({ body: plan, query, receivedAt: '2026-11-20T00:00:00Z' });
const res = (address: string, type: string, values: Record<string, unknown>) => ({
  address,
  mode: 'managed',
  type,
  name: address.split('.').pop(),
  values,
});
const plan = (resources: unknown[], extra: Record<string, unknown> = {}) => ({
  format_version: '1.2',
  terraform_version: '1.9.8',
  planned_values: { root_module: { resources } },
  resource_changes: [],
  ...extra,
});
const nodes = (out: ReturnType<typeof normalize>) => out.envelopes.flatMap((e) => e.nodes);
const props = (out: ReturnType<typeof normalize>, name: string) =>
  nodes(out).find((n) => n.name === name)?.properties;

describe('terraform source', () => {
  it('states a deleted instance closed', () => {
    const out = normalize(
      {
        ...plan([]),
        resource_changes: [
          {
            address: 'aws_instance.old',
            mode: 'managed',
            type: 'aws_instance',
            name: 'old',
            change: {
              actions: ['delete'],
              before: {
                id: 'i-0abc',
                arn: `arn:aws:ec2:us-east-1:${ACCOUNT}:instance/i-0abc`,
                public_ip: '198.51.100.9',
                vpc_security_group_ids: ['sg-open'],
                tags: { Name: 'old-box' },
              },
              after: null,
            },
          },
        ],
      },
      {},
    );
    expect(props(out, `${ACCOUNT}/old-box`)).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'terraform:deleted',
    });
  });

  it('reads bucket ACLs and public-access blocks, and load balancer schemes', () => {
    const bucket = res('aws_s3_bucket.exports', 'aws_s3_bucket', {
      bucket: 'acme-exports',
      arn: 'arn:aws:s3:::acme-exports',
      tags: { data: 'customer' },
    });
    const acl = res('aws_s3_bucket_acl.exports', 'aws_s3_bucket_acl', {
      bucket: 'acme-exports',
      acl: 'public-read',
    });
    const lbs = [
      res('aws_lb.public', 'aws_lb', { name: 'shop-public', internal: false }),
      res('aws_lb.private', 'aws_lb', { name: 'shop-private', internal: true }),
    ];
    const open = normalize(plan([bucket, acl, ...lbs]), { account: ACCOUNT });
    expect(props(open, `${ACCOUNT}/acme-exports`)).toMatchObject({
      internet_exposed: true,
      public_access: true,
      exposure_basis: 'acl:AllUsers:READ',
    });
    expect(props(open, `${ACCOUNT}/shop-public`)).toMatchObject({
      internet_exposed: true,
      scheme: 'internet-facing',
    });
    expect(props(open, `${ACCOUNT}/shop-private`)).toMatchObject({
      internet_exposed: false,
      scheme: 'internal',
    });
    const block = res('aws_s3_bucket_public_access_block.exports', 'aws_s3_bucket_public_access_block', {
      bucket: 'acme-exports',
      block_public_acls: true,
      ignore_public_acls: true,
      block_public_policy: true,
      restrict_public_buckets: true,
    });
    const closed = normalize(plan([bucket, acl, block]), { account: ACCOUNT });
    expect(props(closed, `${ACCOUNT}/acme-exports`)).toMatchObject({
      internet_exposed: false,
      public_access: false,
      exposure_basis: 'terraform:public-access-block',
    });
  });

  it('reads a new managed policy attached by reference, in a module, with the iam rules', () => {
    const trust = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    });
    const admin = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
    });
    const body = {
      format_version: '1.2',
      planned_values: {
        root_module: {
          child_modules: [
            {
              address: 'module.ops',
              resources: [
                res('module.ops.aws_iam_role.ops', 'aws_iam_role', {
                  name: 'ops',
                  arn: `arn:aws:iam::${ACCOUNT}:role/ops`,
                  assume_role_policy: trust,
                }),
                res('module.ops.aws_iam_policy.everything', 'aws_iam_policy', {
                  name: 'everything',
                  policy: admin,
                }),
                res('module.ops.aws_iam_role_policy_attachment.ops', 'aws_iam_role_policy_attachment', {
                  role: 'ops',
                }),
              ],
            },
          ],
        },
      },
      configuration: {
        root_module: {
          module_calls: {
            ops: {
              module: {
                resources: [
                  {
                    address: 'aws_iam_role_policy_attachment.ops',
                    expressions: {
                      policy_arn: {
                        references: ['aws_iam_policy.everything.arn', 'aws_iam_policy.everything'],
                      },
                    },
                  },
                ],
              },
            },
          },
        },
      },
    };
    const out = normalize(body);
    const role = nodes(out).find((n) => n.name === `${ACCOUNT}/ops`)!;
    const adminNode = nodes(out).find((n) => n.name === `${ACCOUNT}/account-admin`)!;
    expect(role).toBeDefined();
    expect(adminNode).toBeDefined();
    expect(out.envelopes.flatMap((e) => e.edges)).toContainEqual(
      expect.objectContaining({ type: 'CAN_ESCALATE_TO', from: role.id, to: adminNode.id }),
    );
  });

  it('reads the plans Terraform 0.12 to 1.0 print (format 0.1, 0.2) as it reads 1.x', () => {
    const bucket = res('aws_s3_bucket.logs', 'aws_s3_bucket', { bucket: 'logs', acl: 'public-read' });
    for (const version of ['0.1', '0.2', '1.0', '1.2']) {
      const out = normalize(plan([bucket], { format_version: version }));
      expect(props(out, 'logs'), version).toMatchObject({ public_access: true });
    }
    // Twins: formats Terraform never printed are refused.
    for (const version of ['0.3', '2.0', '1'])
      expect(() => normalize(plan([bucket], { format_version: version })), version).toThrow(/format_version/);
  });

  it('refuses what is not a plan, naming the pointer', () => {
    expect(() => normalize({ format_version: '2.0', planned_values: {} })).toThrow(/format_version/);
    expect(() => normalize({ format_version: '1.2' })).toThrow(/planned_values/);
    expect(() => normalize([])).toThrow(/Terraform plan/);
  });
});
