// The terraform source on plan shapes the gate fixtures do not cover: a deleted instance stated closed, a
// bucket made public by its canned ACL (and closed again by a public-access block), load balancers by
// scheme, a new managed policy attached by reference (its ARN known only after apply) read by the iam
// rules, and a module's resources. Names are the cloud sources' (`<account>/<name>`). A state (`terraform
// show -json` of no plan file) is read as what is deployed: the same nodes as a plan of the same resources,
// its references resolved by the ids it knows, its public addresses and region as it holds them.
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
/** `terraform show -json` of a state: the resources under `values`, no plan fields. */
const state = (resources: unknown[], extra: Record<string, unknown> = {}) => ({
  format_version: '1.0',
  terraform_version: '1.9.8',
  values: { root_module: { resources } },
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

  it('an instance launched into a public-mapping subnet of the plan gets an address: its open group exposes it', () => {
    const group = res('aws_security_group.web', 'aws_security_group', {
      name: 'web',
      ingress: [{ protocol: 'tcp', from_port: 22, to_port: 22, cidr_blocks: ['0.0.0.0/0'] }],
    });
    const subnet = (mapped: boolean) =>
      res('aws_subnet.public', 'aws_subnet', { map_public_ip_on_launch: mapped });
    const box = (values: Record<string, unknown> = {}) =>
      res('aws_instance.box', 'aws_instance', { tags: { Name: 'box' }, ...values });
    // Both known only after apply: the configuration's references say which subnet and group.
    const configuration = {
      root_module: {
        resources: [
          {
            address: 'aws_instance.box',
            expressions: {
              subnet_id: { references: ['aws_subnet.public.id', 'aws_subnet.public'] },
              vpc_security_group_ids: { references: ['aws_security_group.web.id', 'aws_security_group.web'] },
            },
          },
        ],
      },
    };
    const open = normalize(plan([group, subnet(true), box()], { configuration }));
    expect(props(open, 'box')).toMatchObject({ internet_exposed: true, public_ip: 'assigned-at-launch' });
    // Twins: an instance refusing a public address, and a subnet that maps none, are stated closed.
    for (const closed of [
      plan([group, subnet(true), box({ associate_public_ip_address: false })], { configuration }),
      plan([group, subnet(false), box()], { configuration }),
    ])
      expect(props(normalize(closed), 'box')).toMatchObject({
        internet_exposed: false,
        exposure_basis: 'terraform:no-public-address',
      });
  });

  it('a role Terraform names at apply is named by its address; only the policies pointing at it are its', () => {
    const trust = JSON.stringify({
      Statement: [
        { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
      ],
    });
    const admin = JSON.stringify({ Statement: [{ Effect: 'Allow', Action: 'iam:*', Resource: '*' }] });
    const resources = [
      res('aws_iam_role.example', 'aws_iam_role', { assume_role_policy: trust }),
      res('aws_iam_role.other', 'aws_iam_role', { assume_role_policy: trust }),
      res('aws_iam_role_policy.fail', 'aws_iam_role_policy', { name: 'example', policy: admin }),
    ];
    const configuration = {
      root_module: {
        resources: [
          {
            address: 'aws_iam_role_policy.fail',
            expressions: { role: { references: ['aws_iam_role.example'] } },
          },
        ],
      },
    };
    const out = normalize(plan(resources, { configuration }));
    const edges = out.envelopes.flatMap((e) => e.edges);
    const name = (id: string) => nodes(out).find((n) => n.id === id)?.name;
    expect(
      edges.filter((e) => e.type === 'CAN_ESCALATE_TO').map((e) => `${name(e.from)} -> ${name(e.to)}`),
    ).toEqual(['aws_iam_role.example -> account-admin']);
    // Twin: the other unnamed role holds no policy (it was given every policy whose role went unresolved).
    expect(nodes(out).map((n) => n.name)).toContain('aws_iam_role.other');
  });

  it('with no account known, no name is qualified: not by a made-up account in the ARNs it builds', () => {
    const role = res('aws_iam_role.app', 'aws_iam_role', {
      name: 'app',
      assume_role_policy: JSON.stringify({
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ],
      }),
    });
    const profile = res('aws_iam_instance_profile.app', 'aws_iam_instance_profile', {
      name: 'app',
      role: 'app',
    });
    const box = res('aws_instance.box', 'aws_instance', {
      iam_instance_profile: 'app',
      tags: { Name: 'box' },
    });
    const out = normalize(plan([role, profile, box]));
    const names = nodes(out).map((n) => n.name);
    expect(names).toEqual(expect.arrayContaining(['box', 'app']));
    expect(names.filter((n) => n.includes('000000000000'))).toEqual([]);
    // The instance's role (named by cloudnet) and the plan's role (named by iam) are the one node `app`.
    expect(
      nodes(out)
        .filter((n) => n.name === 'app')
        .map((n) => n.properties),
    ).toContainEqual(expect.objectContaining({ instance_profiles: ['app'] }));
    expect(out.envelopes.flatMap((e) => e.edges).filter((e) => e.type === 'ASSUMES')).toEqual([
      expect.objectContaining({ from: nodes(out).find((n) => n.name === 'box')!.id }),
    ]);
    expect(out.envelopes.flatMap((e) => e.edges).find((e) => e.type === 'ASSUMES')!.to).toBe(
      nodes(out).find((n) => n.name === 'app' && n.label === 'IAM_Role')!.id,
    );
    // Twin: with ?account= every name is that account's.
    const qualified = normalize(plan([role, profile, box]), { account: ACCOUNT });
    expect(nodes(qualified).map((n) => n.name)).toEqual(
      expect.arrayContaining([`${ACCOUNT}/box`, `${ACCOUNT}/app`]),
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
  describe('a state (terraform show -json, values.root_module)', () => {
    const trust = JSON.stringify({
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    });
    const admin = JSON.stringify({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] });
    /** One module as a plan creates it (ids known after apply) and as its state holds it afterwards. */
    const module = (applied: boolean) => {
      const known = <T>(value: T) => (applied ? value : undefined);
      return [
        res('aws_security_group.web', 'aws_security_group', {
          id: known('sg-0web'),
          name: 'web',
          ingress: [{ protocol: 'tcp', from_port: 22, to_port: 22, cidr_blocks: ['0.0.0.0/0'] }],
        }),
        res('aws_subnet.public', 'aws_subnet', { id: known('subnet-0pub'), map_public_ip_on_launch: true }),
        res('aws_iam_role.app', 'aws_iam_role', {
          name: 'app',
          arn: known(`arn:aws:iam::${ACCOUNT}:role/app`),
          assume_role_policy: trust,
        }),
        res('aws_iam_role_policy.app', 'aws_iam_role_policy', {
          name: 'everything',
          role: known('app'),
          policy: admin,
        }),
        res('aws_iam_instance_profile.app', 'aws_iam_instance_profile', {
          name: 'app',
          role: known('app'),
        }),
        res('aws_instance.box', 'aws_instance', {
          id: known('i-0box'),
          arn: known(`arn:aws:ec2:eu-west-3:${ACCOUNT}:instance/i-0box`),
          associate_public_ip_address: true,
          public_ip: known('203.0.113.7'),
          subnet_id: known('subnet-0pub'),
          vpc_security_group_ids: known(['sg-0web']),
          iam_instance_profile: known('app'),
          tags: { Name: 'box' },
        }),
        res('aws_s3_bucket.exports', 'aws_s3_bucket', { bucket: 'acme-exports' }),
        res('aws_s3_bucket_acl.exports', 'aws_s3_bucket_acl', {
          bucket: known('acme-exports'),
          acl: 'public-read',
        }),
      ];
    };
    // The plan's references (one entry per resource, as Terraform prints them), which a state does not have.
    const refs = (address: string, expressions: Record<string, string>) => ({
      address,
      expressions: Object.fromEntries(
        Object.entries(expressions).map(([attribute, target]) => [
          attribute,
          { references: [`${target}.id`, target] },
        ]),
      ),
    });
    const configuration = {
      provider_config: { aws: { expressions: { region: { constant_value: 'eu-west-3' } } } },
      root_module: {
        resources: [
          refs('aws_instance.box', {
            subnet_id: 'aws_subnet.public',
            vpc_security_group_ids: 'aws_security_group.web',
            iam_instance_profile: 'aws_iam_instance_profile.app',
          }),
          refs('aws_iam_role_policy.app', { role: 'aws_iam_role.app' }),
          refs('aws_iam_instance_profile.app', { role: 'aws_iam_role.app' }),
          refs('aws_s3_bucket_acl.exports', { bucket: 'aws_s3_bucket.exports' }),
        ],
      },
    };
    const shape = (out: ReturnType<typeof normalize>) => ({
      nodes: nodes(out)
        .map((n) => `${n.id} ${n.label} ${n.name} exposed=${n.properties?.internet_exposed}`)
        .sort(),
      edges: out.envelopes
        .flatMap((e) => e.edges)
        .map((e) => `${e.type} ${e.from} -> ${e.to}`)
        .sort(),
    });

    it('names the same nodes, exposure and edges as a plan of the same resources', () => {
      const fromPlan = normalize(plan(module(false), { configuration }), { account: ACCOUNT });
      const fromState = normalize(state(module(true)), { account: ACCOUNT });
      expect(shape(fromState)).toEqual(shape(fromPlan));
      expect(shape(fromState).nodes).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(` VirtualMachine ${ACCOUNT}/box exposed=true$`)),
          expect.stringMatching(new RegExp(` Bucket ${ACCOUNT}/acme-exports exposed=true$`)),
        ]),
      );
      expect(shape(fromState).edges.filter((e) => /^(ASSUMES|CAN_ESCALATE_TO) /.test(e))).toHaveLength(2);
      expect(props(fromState, `${ACCOUNT}/box`)).toMatchObject({
        public_ip: '203.0.113.7',
        region: 'eu-west-3',
        terraform_address: 'aws_instance.box',
      });
      // Its subnet is read for the routes the instance's address reaches the internet by (none said here).
      expect(fromState.warnings).toEqual([]);
      // Twin: the state of another account names none of those nodes.
      const other = shape(normalize(state(module(true)), { account: '999988887777' })).nodes;
      expect(other.filter((n) => shape(fromPlan).nodes.includes(n))).toEqual([]);
    });

    it('an instance holding no public address is closed, whatever it was launched with', () => {
      const group = res('aws_security_group.web', 'aws_security_group', {
        id: 'sg-0web',
        ingress: [{ protocol: 'tcp', from_port: 22, to_port: 22, cidr_blocks: ['0.0.0.0/0'] }],
      });
      const box = (publicIp: string) =>
        res('aws_instance.box', 'aws_instance', {
          id: 'i-0box',
          associate_public_ip_address: true,
          public_ip: publicIp,
          vpc_security_group_ids: ['sg-0web'],
          tags: { Name: 'box' },
        });
      expect(props(normalize(state([group, box('')])), 'box')).toMatchObject({
        internet_exposed: false,
        exposure_basis: 'terraform:no-public-address',
      });
      // Twins: a state holding an address is exposed; a plan launching with one asked for is too.
      expect(props(normalize(state([group, box('203.0.113.7')])), 'box')).toMatchObject({
        internet_exposed: true,
        public_ip: '203.0.113.7',
      });
      expect(props(normalize(plan([group, box('')])), 'box')).toMatchObject({
        internet_exposed: true,
        public_ip: 'assigned-at-launch',
      });
    });

    it('reads the grants a state holds on a bucket, whatever set them', () => {
      const bucket = (grant: unknown[]) =>
        res('aws_s3_bucket.exports', 'aws_s3_bucket', { bucket: 'acme-exports', acl: null, grant });
      const owner = { id: 'a1bd360e', type: 'CanonicalUser', uri: '', permissions: ['FULL_CONTROL'] };
      const allUsers = {
        id: '',
        type: 'Group',
        uri: 'http://acs.amazonaws.com/groups/global/AllUsers',
        permissions: ['READ'],
      };
      expect(props(normalize(state([bucket([owner, allUsers])])), 'acme-exports')).toMatchObject({
        internet_exposed: true,
        public_access: true,
        exposure_basis: 'acl:AllUsers:READ',
      });
      // Twins: the owner's grant alone is private; a plan's grants (those before its change) are not read.
      expect(props(normalize(state([bucket([owner])])), 'acme-exports')).toMatchObject({
        internet_exposed: false,
        exposure_basis: 'terraform:no-public-acl',
      });
      expect(props(normalize(plan([bucket([owner, allUsers])])), 'acme-exports')).toMatchObject({
        internet_exposed: false,
      });
    });

    it('places its resources in the region their ARNs name (a state holds no provider configuration)', () => {
      const lb = res('aws_lb.web', 'aws_lb', {
        name: 'web',
        internal: false,
        arn: `arn:aws:elasticloadbalancing:ap-south-1:${ACCOUNT}:loadbalancer/app/web/50dc6c495c0c9188`,
      });
      expect(props(normalize(state([lb]), { region: 'us-east-1' }), `${ACCOUNT}/web`)).toMatchObject({
        region: 'ap-south-1',
      });
      // Twins: ARNs naming no region (a bucket's) leave it to ?region=; a plan's region stays its provider's.
      const bucket = res('aws_s3_bucket.logs', 'aws_s3_bucket', {
        bucket: 'logs',
        arn: 'arn:aws:s3:::logs',
      });
      expect(props(normalize(state([bucket]), { region: 'us-east-1' }), 'logs')).toMatchObject({
        region: 'us-east-1',
      });
      expect(props(normalize(plan([lb]), { region: 'us-east-1' }), `${ACCOUNT}/web`)).toMatchObject({
        region: 'us-east-1',
      });
    });

    it("completes the addresses Terraform 0.12 prints a module's resources with", () => {
      const lb = (address: string, index?: number) => ({
        ...res(address, 'aws_lb', { name: 'web', internal: false }),
        ...(index !== undefined && { index }),
      });
      const nested = (address: string, index?: number) => ({
        format_version: '0.1',
        values: {
          root_module: { child_modules: [{ address: 'module.edge', resources: [lb(address, index)] }] },
        },
      });
      expect(props(normalize(nested('aws_lb.web', 0)), 'web')).toMatchObject({
        terraform_address: 'module.edge.aws_lb.web[0]',
      });
      // Twin: an address printed whole (Terraform 0.13 and later) is kept as printed.
      expect(props(normalize(nested('module.edge.aws_lb.web[0]', 0)), 'web')).toMatchObject({
        terraform_address: 'module.edge.aws_lb.web[0]',
      });
    });

    it('refuses a malformed state, naming the pointer', () => {
      for (const [body, pointer] of [
        [{ format_version: '1.0', values: [] }, '/values/root_module'],
        [
          { format_version: '1.0', values: { root_module: { resources: {} } } },
          '/values/root_module/resources',
        ],
        [
          { format_version: '1.0', values: { root_module: { resources: [null] } } },
          '/values/root_module/resources/0',
        ],
        [
          { format_version: '1.0', values: { root_module: { child_modules: [{ resources: 'x' }] } } },
          '/values/root_module/child_modules/0/resources',
        ],
        [{ format_version: '3.0', values: { root_module: {} } }, '/format_version'],
      ] as const)
        expect(() => normalize(body), pointer).toThrow(`terraform report: ${pointer}: `);
      // Twin: a state of no resource is no error (the empty snapshot is refused by the route, not here).
      expect(normalize({ format_version: '1.0', values: { root_module: {} } }).envelopes).toEqual([]);
    });
  });
});
