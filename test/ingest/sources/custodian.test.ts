// The custodian source on every real Cloud Custodian recording (placebo files unwrapped and wrapped into
// the spec's body) and on a real `custodian run` resources.json: markers and edges per resource kind.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCustodianSource } from '../../../src/ingest/sources/custodian.js';
import { IMDS_V1_PROBABILITY } from '../../../src/model/probability.js';
import { publicReadPolicy } from '../../helpers/terraform-plan.js';
import { normalize, REAL, rejection } from '../../helpers/normalize.js';
import { custodianBody, placebo } from '../../helpers/placebo.js';

const custodian = createCustodianSource();
const ACCOUNT = '644160558196';
const props = (out: ReturnType<typeof normalize>, label: string, name: string) =>
  out.node(label, name).properties ?? {};

describe('custodian: load balancers', () => {
  it('exposes internet-facing ones and not internal ones', () => {
    const external = placebo('custodian/test_appelb_delete_listener');
    const internal = placebo('custodian/test_appelb_add_tag');
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.app-elb',
          resources: external['elasticloadbalancing.DescribeLoadBalancers_1'].LoadBalancers,
        },
        {
          resource: 'app-elb',
          resources: internal['elasticloadbalancing.DescribeLoadBalancers_1'].LoadBalancers,
        },
      ]),
    );
    expect(out.names('LoadBalancer')).toHaveLength(5);
    for (const name of ['alb-policy-foundry', 'alb-testing-1', 'alb-testing-2'])
      expect(props(out, 'LoadBalancer', `${ACCOUNT}/${name}`)).toMatchObject({
        internet_exposed: true,
        scheme: 'internet-facing',
      });
    for (const name of ['alb-1', 'alb-2']) {
      expect(props(out, 'LoadBalancer', `${ACCOUNT}/${name}`)).toMatchObject({ scheme: 'internal' });
      expect(props(out, 'LoadBalancer', `${ACCOUNT}/${name}`)).not.toHaveProperty('internet_exposed');
    }
  });
});

describe('custodian: VMs and their roles', () => {
  it('exposes instances with a public IP and joins the bastion to its role, priced on IMDSv1', () => {
    const data = placebo('custodian/test_ec2_has_specific_managed_policy');
    const profiles = data['iam.ListInstanceProfiles_1'].InstanceProfiles;
    const role = {
      ...profiles[0].Roles[0],
      AttachedManagedPolicies: data['iam.ListAttachedRolePolicies_1'].AttachedPolicies,
    };
    const account = '123456789012';
    const out = normalize(custodian, {
      ...custodianBody(account, [
        {
          resource: 'aws.ec2',
          resources: data['ec2.DescribeInstances_1'].Reservations.flatMap((r: any) => r.Instances),
        },
        { resource: 'aws.iam-role', resources: [role] },
      ]),
      instance_profiles: profiles,
    });
    const bastion = `${account}/i-0a4021f6486f16ed6`;
    expect(props(out, 'VirtualMachine', bastion)).toMatchObject({
      internet_exposed: true,
      public_ip: '44.238.214.249',
      imds_tokens: 'optional',
    });
    expect(props(out, 'VirtualMachine', `${account}/i-0601af9ef35fc5c20`)).not.toHaveProperty(
      'internet_exposed',
    );
    expect(out.edges).toEqual([`ASSUMES ${bastion} -> ${account}/chp-bastion-Role-6T4RUODL6PQC`]);
    expect(out.envelopes[0].edges[0].exploit_probability).toBe(IMDS_V1_PROBABILITY);
    // A customer policy named admin-policy is not AdministratorAccess.
    expect(props(out, 'IAM_Role', `${account}/chp-bastion-Role-6T4RUODL6PQC`)).not.toHaveProperty(
      'crown_jewel',
    );
  });

  it('names VMs by their Name tag, keeping the instance id', () => {
    const data = placebo('custodian/test_ec2_set_md_access');
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'ec2',
          resources: data['ec2.DescribeInstances_1'].Reservations.flatMap((r: any) => r.Instances),
        },
      ]),
    );
    expect(out.names('VirtualMachine')).toEqual([
      `${ACCOUNT}/Custodian_test_instance-2`,
      `${ACCOUNT}/devopsbot-workstation`,
      `${ACCOUNT}/i-04af9cf7218a61430`,
      `${ACCOUNT}/i-0c7db0ff839a70f81`,
    ]);
    // Two instances (an Elastic Beanstalk environment's) share a Name tag: each is named by its instance id,
    // with its own address and subnet, and the tag kept; the unique tags still name theirs.
    for (const [id, ip, subnet] of [
      ['i-04af9cf7218a61430', '100.27.16.222', 'subnet-7ff36318'],
      ['i-0c7db0ff839a70f81', '3.82.114.28', 'subnet-8ef867a0'],
    ])
      expect(props(out, 'VirtualMachine', `${ACCOUNT}/${id}`)).toMatchObject({
        instance_id: id,
        public_ip: ip,
        subnet_id: subnet,
        name_tag: 'keyc-Envi-RMB7RVXA37P6',
        internet_exposed: true,
      });
    expect(props(out, 'VirtualMachine', `${ACCOUNT}/i-0c7db0ff839a70f81`)).not.toHaveProperty('aliases');
    expect(props(out, 'VirtualMachine', `${ACCOUNT}/devopsbot-workstation`)).toMatchObject({
      aliases: [`${ACCOUNT}/i-02357547fb91718be`],
    });
    expect(out.warnings).toContain(
      `1 Name tag(s) carried by several instances, each of which is named by its instance id: "${ACCOUNT}/keyc-Envi-RMB7RVXA37P6"`,
    );
    expect(props(out, 'VirtualMachine', `${ACCOUNT}/devopsbot-workstation`)).not.toHaveProperty(
      'internet_exposed',
    );
  });

  it('reads roles from GetRole with their trust policy, and instances from a real resources.json', () => {
    const data = placebo('custodian/test_ec2_iam_role_tag_mirror_equal');
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.ec2',
          resources: data['ec2.DescribeInstances_1'].Reservations.flatMap((r: any) => r.Instances),
        },
        { resource: 'aws.iam-role', resources: [data['iam.GetRole_1'].Role, data['iam.GetRole_2'].Role] },
      ]),
    );
    expect(out.edges.sort()).toEqual([
      `ASSUMES ${ACCOUNT}/test-role -> ${ACCOUNT}/c7n-pratyush-test`,
      `ASSUMES ${ACCOUNT}/test-role-1 -> ${ACCOUNT}/CloudCustodianRole`,
    ]);
    const resources = JSON.parse(
      readFileSync(path.join(REAL, 'custodian/resources.ec2-running-instances.json'), 'utf8'),
    );
    const run = normalize(custodian, custodianBody(ACCOUNT, [{ resource: 'aws.ec2', resources }]));
    expect(run.names('VirtualMachine').length).toBe(resources.length);
    expect(run.nodes.filter((n) => n.properties?.internet_exposed).length).toBe(
      resources.filter((r: any) => r.PublicIpAddress).length,
    );
  });
});

describe('custodian: IAM roles', () => {
  it('marks roles with AdministratorAccess crown jewels', () => {
    const data = placebo('custodian/test_iam_role_has_specific_managed_policy');
    const roles = data['iam.ListRoles_1'].Roles.map((r: any, i: number) => ({
      ...r,
      AttachedManagedPolicies: data[`iam.ListAttachedRolePolicies_${i + 1}`].AttachedPolicies,
    }));
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [{ resource: 'aws.iam-role', resources: roles }]),
    );
    expect(out.names('IAM_Role')).toEqual([`${ACCOUNT}/lambda_basic_execution`, `${ACCOUNT}/root_joshua`]);
    expect(props(out, 'IAM_Role', `${ACCOUNT}/lambda_basic_execution`)).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'policy:AdministratorAccess',
    });
    expect(props(out, 'IAM_Role', `${ACCOUNT}/root_joshua`)).not.toHaveProperty('crown_jewel');
    // Their trust (URL-encoded, as recorded) admits services, not `*`.
    expect(props(out, 'IAM_Role', `${ACCOUNT}/root_joshua`)).not.toHaveProperty('internet_exposed');
  });

  it('exposes a role whose trust admits *, publicly without a condition', () => {
    const trust = (condition?: object) => ({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: '*' },
          Action: 'sts:AssumeRole',
          ...(condition && { Condition: condition }),
        },
      ],
    });
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.iam-role',
          resources: [
            { RoleName: 'open', AssumeRolePolicyDocument: trust() },
            {
              RoleName: 'guarded',
              AssumeRolePolicyDocument: encodeURIComponent(
                JSON.stringify(trust({ StringEquals: { 'sts:ExternalId': 'x' } })),
              ),
            },
          ],
        },
      ]),
    );
    expect(props(out, 'IAM_Role', `${ACCOUNT}/open`)).toMatchObject({
      internet_exposed: true,
      public_access: true,
    });
    expect(props(out, 'IAM_Role', `${ACCOUNT}/guarded`)).toMatchObject({ internet_exposed: true });
    expect(props(out, 'IAM_Role', `${ACCOUNT}/guarded`)).not.toHaveProperty('public_access');
  });
});

describe('custodian: buckets and databases', () => {
  it('reads a bucket policy as terraform does: open to anyone is public, confined to a VPC endpoint is not', () => {
    const policy = (condition?: Record<string, unknown>) =>
      publicReadPolicy(condition && { Condition: condition });
    const bucket = (name: string, p: string) => ({ Name: name, Acl: { Grants: [] }, Policy: p });
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.s3',
          resources: [
            bucket('exports', policy()),
            bucket('exports-vpc', policy({ StringEquals: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } })),
          ],
        },
      ]),
    );
    expect(props(out, 'Bucket', `${ACCOUNT}/exports`)).toMatchObject({
      internet_exposed: true,
      public_access: true,
      exposure_basis: 'policy:*:s3:GetObject',
      has_bucket_policy: true,
    });
    // Twin: the same grant confined to a VPC endpoint.
    expect(props(out, 'Bucket', `${ACCOUNT}/exports-vpc`)).not.toHaveProperty('internet_exposed');
  });

  it('tells AllUsers, AuthenticatedUsers and private ACLs apart', () => {
    const grants = placebo('custodian/test_s3_grants');
    const global = placebo('custodian/test_s3_global_grants_filter');
    const normal = placebo('custodian/test_s3_normalize');
    const buckets = [
      { ...grants['s3.ListBuckets_1'].Buckets[0], Acl: { Grants: grants['s3.GetBucketAcl_1'].Grants } },
      { ...global['s3.ListBuckets_1'].Buckets[0], Acl: { Grants: global['s3.GetBucketAcl_1'].Grants } },
      {
        ...normal['s3.ListBuckets_1'].Buckets[1],
        Acl: { Grants: normal['s3.GetBucketAcl_1'].Grants },
        Policy: normal['s3.GetBucketPolicy_1'].Policy,
      },
      {
        Name: 'acme-public-site',
        Acl: {
          Grants: [
            {
              Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
              Permission: 'READ',
            },
          ],
        },
      },
    ];
    const out = normalize(custodian, custodianBody(ACCOUNT, [{ resource: 'aws.s3', resources: buckets }]));
    expect(props(out, 'Bucket', `${ACCOUNT}/custodian-testing-grants`)).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'acl:AllUsers:WRITE',
    });
    expect(props(out, 'Bucket', `${ACCOUNT}/custodian-testing-grants`)).not.toHaveProperty('public_access');
    expect(props(out, 'Bucket', `${ACCOUNT}/cf-templates-nyrabrca5x2n-us-east-1`)).not.toHaveProperty(
      'internet_exposed',
    );
    expect(props(out, 'Bucket', `${ACCOUNT}/custodian-skunk-billing`)).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'acl:AuthenticatedUsers:READ',
      has_bucket_policy: true,
      // "billing" in the name: inferred sensitive data.
      crown_jewel: true,
      crown_jewel_basis: 'inferred:billing',
    });
    expect(props(out, 'Bucket', `${ACCOUNT}/acme-public-site`)).toMatchObject({
      internet_exposed: true,
      public_access: true,
    });
  });

  it('exposes publicly accessible databases only, with their tags', () => {
    const data = placebo('custodian/test_rds_retention');
    const tags = new Map(
      data['tagging.GetResources_1'].ResourceTagMappingList.map((t: any) => [t.ResourceARN, t.Tags]),
    );
    const dbs = data['rds.DescribeDBInstances_1'].DBInstances.map((d: any) => ({
      ...d,
      Tags: tags.get(d.DBInstanceArn) ?? [],
    }));
    const snapshot = placebo('custodian/test_rds_snapshot')['rds.DescribeDBInstances_1'].DBInstances;
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [{ resource: 'aws.rds', resources: [...dbs, ...snapshot] }]),
    );
    expect(out.names('Database')).toHaveLength(7);
    const exposed = out.nodes
      .filter((n) => n.properties?.internet_exposed)
      .map((n) => n.name)
      .sort();
    expect(exposed).toEqual([`${ACCOUNT}/c7n-data-index`, `${ACCOUNT}/oneness`]);
  });

  it('lets an owner tag decide over the name', () => {
    const out = normalize(
      custodian,
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.s3',
          resources: [
            { Name: 'customer-exports', Tags: [{ Key: 'classification', Value: 'public' }] },
            { Name: 'build-cache', Tags: [{ Key: 'Data-Classification', Value: 'Confidential' }] },
            { Name: 'tmp', Tags: [{ Key: 'crown-jewel', Value: 'true' }] },
          ],
        },
      ]),
    );
    expect(props(out, 'Bucket', `${ACCOUNT}/customer-exports`)).toMatchObject({
      crown_jewel: false,
      crown_jewel_basis: 'tag:classification=public',
    });
    expect(props(out, 'Bucket', `${ACCOUNT}/build-cache`)).toMatchObject({
      crown_jewel: true,
      crown_jewel_basis: 'tag:data-classification=confidential',
    });
    expect(props(out, 'Bucket', `${ACCOUNT}/tmp`)).toMatchObject({ crown_jewel: true });
  });
});

describe('custodian: bad input', () => {
  it('names the pointer, and refuses an account that disagrees or is not an account id', () => {
    expect(
      rejection(custodian, { provider: 'gcp', account_id: '1', policies: [] })
        .map((e) => e.pointer)
        .sort(),
    ).toEqual(['/account_id', '/provider']);
    expect(rejection(custodian, custodianBody(ACCOUNT, []), { account: '111122223333' })[0]).toMatchObject({
      pointer: '/account_id',
    });
    expect(rejection(custodian, custodianBody(ACCOUNT, []), { account: 'prod' })[0]).toMatchObject({
      pointer: '/query/account',
    });
  });

  it("`custodian run`'s resources.json as it is: a 400 saying how to wrap it, not that a list is no object", () => {
    const resources = JSON.parse(
      readFileSync(path.join(REAL, 'custodian/resources.ec2-running-instances.json'), 'utf8'),
    );
    expect(rejection(custodian, resources)).toEqual([
      {
        pointer: '/',
        detail: expect.stringMatching(/resources\.json: send it as \{provider: "aws", account_id, policies/),
      },
    ]);
    // Twin: the same list wrapped is read.
    const wrapped = normalize(custodian, custodianBody(ACCOUNT, [{ resource: 'aws.ec2', resources }]));
    expect(wrapped.names('VirtualMachine')).toHaveLength(resources.length);
  });
});

describe('custodian: instance roles the report does not hold (issue 15)', () => {
  const instances = placebo('custodian/test_ec2_iam_role_tag_mirror_equal')[
    'ec2.DescribeInstances_1'
  ].Reservations.flatMap((r: any) => r.Instances);
  const profileOf = (i: any) => String(i.IamInstanceProfile.Arn).split('/').pop();

  it('names the role by its profile alias, which the iam source resolves; by name when ListInstanceProfiles says', () => {
    const alone = normalize(
      custodian,
      custodianBody(ACCOUNT, [{ resource: 'aws.ec2', resources: instances }]),
    );
    expect(alone.edges.sort()).toEqual(
      instances
        .map(
          (i: any) =>
            `ASSUMES ${ACCOUNT}/${i.Tags?.find((t: any) => t.Key === 'Name')?.Value ?? i.InstanceId} -> ${ACCOUNT}/instance-profile/${profileOf(i)}`,
        )
        .sort(),
    );
    const listed = normalize(custodian, {
      ...custodianBody(ACCOUNT, [{ resource: 'aws.ec2', resources: instances.slice(0, 1) }]),
      instance_profiles: [
        { InstanceProfileName: profileOf(instances[0]), Roles: [{ RoleName: 'app-role' }] },
      ],
    });
    expect(listed.edges).toEqual([expect.stringMatching(new RegExp(`-> ${ACCOUNT}/app-role$`))]);
  });
});
