// Cloud path truth through the real ingest listener (issue 15): the AWS network recordings (awsnet/) and
// an IAM-Vulnerable-style authorization-details document join into routes the analyzer finds, or does not;
// the IAM-user lens; a public bucket named without its account by a classifier joins the custodian asset.
import { afterEach, describe, expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { custodianBody, placebo } from '../helpers/placebo.js';
import { makeService, type TestService } from '../helpers/service.js';

const ACCOUNT = '644160558196';
const arn = (kind: string, name: string) => `arn:aws:iam::${ACCOUNT}:${kind}/${name}`;
const igw = placebo('awsnet/ec2_igw_subnet');
/** The recording's instance group, as DescribeSecurityGroups would print it with SSH open to the internet. */
const openSsh = {
  GroupId: 'sg-0d80b64eab206a948',
  IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
};
const PUBLIC_INSTANCE = 'i-0ed351953eb1132ef'; // subnet-02e1a5b426e2b16a9: routes 0.0.0.0/0 to igw-0186e33a1d5903db5
const PRIVATE_INSTANCE = 'i-07b1657fdb879c149'; // subnet-00a7ff0f29a2f7dd7: local route only

/** The recorded network, the given instance running with the `web-profile` instance profile. */
function network(instanceId: string) {
  return {
    provider: 'aws',
    security_groups: [openSsh],
    subnets: igw['ec2.DescribeSubnets_1'],
    route_tables: igw['ec2.DescribeRouteTables_1'],
    instances: {
      Reservations: igw['ec2.DescribeInstances_1'].Reservations.map((r: any) => ({
        ...r,
        Instances: r.Instances.filter((i: any) => i.InstanceId === instanceId).map((i: any) => ({
          ...i,
          OwnerId: ACCOUNT,
          IamInstanceProfile: { Arn: arn('instance-profile', 'web-profile') },
        })),
      })),
    },
  };
}

const policy = (Statement: unknown[]) => ({ Version: '2012-10-17', Statement });

/** The lab: the instance's role may pass roles to Lambda; an administrator role Lambda may assume. */
function authorization(webStatements: unknown[], users: unknown[] = []) {
  return {
    UserDetailList: users,
    GroupDetailList: [],
    RoleDetailList: [
      {
        RoleName: 'web-role',
        Arn: arn('role', 'web-role'),
        AssumeRolePolicyDocument: policy([
          { Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ]),
        RolePolicyList: [{ PolicyName: 'deploy', PolicyDocument: policy(webStatements) }],
        AttachedManagedPolicies: [],
        InstanceProfileList: [
          { InstanceProfileName: 'web-profile', Arn: arn('instance-profile', 'web-profile'), Roles: [] },
        ],
      },
      {
        RoleName: 'lambda-admin',
        Arn: arn('role', 'lambda-admin'),
        AssumeRolePolicyDocument: policy([
          { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ]),
        RolePolicyList: [],
        AttachedManagedPolicies: [
          { PolicyName: 'AdministratorAccess', PolicyArn: 'arn:aws:iam::aws:policy/AdministratorAccess' },
        ],
        InstanceProfileList: [],
      },
    ],
    Policies: [],
  };
}

const PASS_AND_CREATE = {
  Effect: 'Allow',
  Action: ['iam:PassRole', 'lambda:CreateFunction', 'lambda:InvokeFunction'],
  Resource: '*',
};

const PATHS = `{ attackPaths { priority score nodes { name } steps { type probability weightBasis } } posture { criticalPaths } }`;

async function routesTo(service: TestService, target: string) {
  const data = await service.graphql(PATHS);
  return data.attackPaths.filter((p: any) => p.nodes.at(-1).name === target);
}

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

describe('an internet-facing instance whose role passes roles to Lambda', () => {
  async function ingest(instance: string, webStatements: unknown[], env: Record<string, string> = {}) {
    service = await makeService(env);
    // The IAM document first, the network after: the instance names its profile, the writer finds the role.
    expect((await service.ingest(authorization(webStatements), { source: 'iam' })).status).toBe(202);
    expect(
      (await service.ingest(network(instance), { source: 'cloudnet', query: `account=${ACCOUNT}` })).status,
    ).toBe(202);
    await service.settle();
    return routesTo(service, `${ACCOUNT}/account-admin`);
  }

  it('with IMDSv1 gives a P1 route to account-admin through its role', async () => {
    const routes = await ingest(PUBLIC_INSTANCE, [PASS_AND_CREATE]);
    const names = (p: any) => p.nodes.map((n: any) => n.name);
    expect(routes.map(names)).toEqual([
      [
        `${ACCOUNT}/${PUBLIC_INSTANCE}`,
        `${ACCOUNT}/web-role`,
        `${ACCOUNT}/lambda-admin`,
        `${ACCOUNT}/account-admin`,
      ],
    ]);
    expect(routes[0].priority).toBe('P1');
    expect(routes[0].steps.map((s: any) => [s.type, s.probability])).toEqual([
      ['ASSUMES', 0.8],
      ['CAN_ESCALATE_TO', 0.9],
      ['CAN_ESCALATE_TO', 1],
    ]);
  });

  it('twin: the same instance in the subnet routed to no internet gateway gives none', async () => {
    expect(await ingest(PRIVATE_INSTANCE, [PASS_AND_CREATE])).toEqual([]);
  });

  it('twin: a Deny on iam:PassRole gives none', async () => {
    expect(
      await ingest(PUBLIC_INSTANCE, [
        PASS_AND_CREATE,
        { Effect: 'Deny', Action: 'iam:PassRole', Resource: '*' },
      ]),
    ).toEqual([]);
  });

  it('the network first and the IAM document after joins the same way', async () => {
    service = await makeService();
    await service.ingest(network(PUBLIC_INSTANCE), { source: 'cloudnet', query: `account=${ACCOUNT}` });
    await service.ingest(authorization([PASS_AND_CREATE]), { source: 'iam' });
    await service.settle();
    expect(await routesTo(service, `${ACCOUNT}/account-admin`)).toHaveLength(1);
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.hasNode(nodeId('IAM_Role', `${ACCOUNT}/instance-profile/web-profile`))).toBe(false);
  });
});

describe('the IAM-user lens', () => {
  const leaky = {
    UserName: 'ci-bot',
    Arn: arn('user', 'ci-bot'),
    GroupList: [],
    AttachedManagedPolicies: [],
    UserPolicyList: [
      {
        PolicyName: 'self',
        PolicyDocument: policy([{ Effect: 'Allow', Action: 'iam:AttachUserPolicy', Resource: '*' }]),
      },
    ],
  };

  it.each([
    ['true', 1],
    ['false', 0],
  ])('SEED_IAM_USERS=%s: a user holding iam:AttachUserPolicy gives %i route', async (seed, count) => {
    service = await makeService({ SEED_IAM_USERS: seed });
    expect((await service.ingest(authorization([], [leaky]), { source: 'iam' })).status).toBe(202);
    await service.settle();
    const routes = await routesTo(service, `${ACCOUNT}/account-admin`);
    expect(routes).toHaveLength(count);
    if (count)
      expect(routes[0].nodes.map((n: any) => n.name)).toEqual([
        `${ACCOUNT}/ci-bot`,
        `${ACCOUNT}/account-admin`,
      ]);
  });
});

describe('a classifier naming a bucket without its account', () => {
  const grants = placebo('custodian/test_s3_grants');
  const bucket = grants['s3.ListBuckets_1'].Buckets[0];
  const custodian = custodianBody(ACCOUNT, [
    { resource: 'aws.s3', resources: [{ ...bucket, Acl: { Grants: grants['s3.GetBucketAcl_1'].Grants } }] },
  ]);
  const classified = { source: 'macie', records: [{ asset: bucket.Name, label: 'Bucket', kind: 'pii' }] };
  const qualified = nodeId('Bucket', `${ACCOUNT}/${bucket.Name}`);
  const bare = nodeId('Bucket', bucket.Name);

  it('joins the one asset of that name, whichever arrives first', async () => {
    for (const order of [
      ['custodian', 'dataclass'],
      ['dataclass', 'custodian'],
    ]) {
      service = await makeService();
      const graph = () => service!.engine.tenant('default')!.graph;
      for (const source of order) {
        expect(
          (await service.ingest(source === 'custodian' ? custodian : classified, { source })).status,
        ).toBe(202);
        await service.settle();
        if (source === order[0]) {
          // before: one node, either the account's bucket or the classifier's bare name
          expect(graph().hasNode(source === 'custodian' ? qualified : bare)).toBe(true);
        }
      }
      // after: one node, the account's, both exposed and classified
      expect(graph().hasNode(bare)).toBe(false);
      expect(graph().getNodeAttributes(qualified).props).toMatchObject({
        internet_exposed: true,
        crown_jewel: true,
        crown_jewel_basis: 'classified:macie:pii',
      });
      expect(graph().getNodeAttributes(qualified).props.account_unknown).toBeUndefined();
      await service.dispose();
      service = undefined;
    }
  });

  it('twin: two accounts holding that name leave the record on its own', async () => {
    service = await makeService();
    await service.ingest(custodian, { source: 'custodian' });
    await service.ingest(
      custodianBody('111122223333', [{ resource: 'aws.s3', resources: [{ Name: bucket.Name }] }]),
      { source: 'custodian' },
    );
    await service.ingest(classified, { source: 'dataclass' });
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.hasNode(bare)).toBe(true);
    expect(graph.getNodeAttributes(qualified).props.crown_jewel).toBeUndefined();
  });
});

describe('custodian instances and the IAM document', () => {
  it("land the instance's role on the iam source's role through InstanceProfileList", async () => {
    service = await makeService();
    const instance = {
      ...igw['ec2.DescribeInstances_1'].Reservations[0].Instances[0],
      IamInstanceProfile: { Arn: arn('instance-profile', 'web-profile') },
    };
    await service.ingest(custodianBody(ACCOUNT, [{ resource: 'aws.ec2', resources: [instance] }]), {
      source: 'custodian',
    });
    await service.ingest(authorization([PASS_AND_CREATE]), { source: 'iam' });
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    const role = nodeId('IAM_Role', `${ACCOUNT}/web-role`);
    expect(graph.hasNode(nodeId('IAM_Role', `${ACCOUNT}/instance-profile/web-profile`))).toBe(false);
    expect(graph.inEdges(role).map((e) => graph.getEdgeAttribute(e, 'type'))).toContain('ASSUMES');
  });
});
