// The clouda connector's sdk mode against the loopback AWS (test/helpers/aws/), through the real AWS SDK
// for JavaScript v3 and then the real ingest pipeline and analyzer: the estate of issue 37 yields the route
// from the internet-facing load balancer to the instance profile's administrator role and the public
// bucket's direct-access path; the twins (a group no balancer forwards to, a private bucket, a public
// policy Block Public Access takes back) yield nothing; only read-only actions are called; throttling is
// ridden out; a failing account is reported while the others are pulled; a deleted bucket's path goes
// with the next complete snapshot.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullCloudaAccounts, type CloudaSdkOptions } from '../../src/connectors/clouda/sdk.js';
import { nodeId } from '../../src/graph/ids.js';
import { pointSdkAt } from '../helpers/aws/env.js';
import { pathNames, publishPull } from '../helpers/aws/publish.js';
import { A, B, C, CALLER_KEY, roleArn, sampleEstate } from '../helpers/aws/sample-estate.js';
import { AwsStandIn } from '../helpers/aws/server.js';
import { makeService, type TestService } from '../helpers/service.js';

let aws: AwsStandIn;
let restore: () => void;
let service: TestService | undefined;

beforeAll(() => {
  restore = pointSdkAt('http://127.0.0.1:1'); // replaced per test, once each stand-in listens
});
afterAll(() => restore());
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  await aws?.stop();
});

async function standIn(): Promise<AwsStandIn> {
  aws = new AwsStandIn(sampleEstate());
  await aws.start();
  process.env.AWS_ENDPOINT_URL = aws.url;
  return aws;
}

const options = (roles: string[] = [roleArn(A), roleArn(B)]): CloudaSdkOptions => ({
  region: 'us-east-1',
  roleArns: roles,
  credentials: CALLER_KEY,
});
const graph0 = (s: TestService) => s.engine.tenant('default')!.graph;
const pull = (o = options()) => pullCloudaAccounts(o, new AbortController().signal);

/** Every action a read-only policy allows the connector: Describe, List and Get, and STS's two. */
const READ_ONLY = /^(?:[a-z0-9]+:(?:Describe|List|Get)[A-Za-z]+|sts:AssumeRole)$/;

describe('the clouda sdk pull, through the ingest pipeline', () => {
  it('draws the route from the load balancer to the administrator role and the public bucket', async () => {
    await standIn();
    const result = await pull();
    expect(result.failures).toEqual([]);
    expect(result.accounts.map((a) => [a.account, a.reports.map((r) => `${r.source} ${r.scope}`)])).toEqual([
      [A, [`cloudnet aws:${A}/us-east-1`, `iam aws:${A}/us-east-1`, `custodian aws:${A}/us-east-1`]],
      [B, [`cloudnet aws:${B}/us-east-1`, `iam aws:${B}/us-east-1`]],
    ]);
    service = await makeService();
    await publishPull(service, result);
    const paths = await pathNames(service);

    // The balancer, the private instance behind it, the role its profile gives it (AdministratorAccess).
    expect(paths).toContainEqual([`${A}/web-alb`, `${A}/app-1`, `${A}/app-role`]);
    // The bucket a policy opens to anyone, a crown jewel by its name: a direct-access path.
    expect(paths).toContainEqual([`${A}/customer-exports`]);
    // Account B, reached by AssumeRole: its internet-facing bastion's administrator role.
    expect(paths).toContainEqual([`${B}/bastion`, `${B}/bastion-role`]);

    const everything = paths.flat();
    // Twins: batch-1 is in a group no balancer forwards to; customer-archive has no policy;
    // customer-reports' public policy is taken back by Block Public Access.
    expect(everything).not.toContain(`${A}/batch-1`);
    expect(graph0(service).hasNode(nodeId('VirtualMachine', `${A}/gone-1`))).toBe(false); // terminated
    expect(everything).not.toContain(`${A}/customer-archive`);
    expect(everything).not.toContain(`${A}/customer-reports`);
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.getNodeAttributes(nodeId('Bucket', `${A}/customer-reports`)).props).toMatchObject({
      internet_exposed: false,
      exposure_basis: 'public-access-block:RestrictPublicBuckets',
    });
    // The database and the function are in the graph (named as a push of the same estate names them).
    expect(graph.getNodeAttributes(nodeId('Database', `${A}/orders-db`)).props).toMatchObject({
      crown_jewel: true,
      publicly_accessible: false,
    });
    expect(
      graph.hasEdge(nodeId('Service', `${A}/lambda/thumbnailer`), nodeId('IAM_Role', `${A}/lambda-exec`)),
    ).toBe(true);
  });

  it('calls only read-only actions, every list paged to its end', async () => {
    await standIn();
    const result = await pull();
    const actions = new Set(aws.actions());
    expect([...actions].filter((a) => !READ_ONLY.test(a))).toEqual([]);
    expect([...actions].sort()).toEqual([
      'ec2:DescribeInstances',
      'ec2:DescribeNetworkAcls',
      'ec2:DescribeRouteTables',
      'ec2:DescribeSecurityGroups',
      'ec2:DescribeSubnets',
      'ec2:DescribeVpcPeeringConnections',
      'elasticloadbalancing:DescribeListeners',
      'elasticloadbalancing:DescribeLoadBalancers',
      'elasticloadbalancing:DescribeTargetGroups',
      'elasticloadbalancing:DescribeTargetHealth',
      'iam:GetAccountAuthorizationDetails',
      'lambda:ListFunctions',
      'rds:DescribeDBInstances',
      's3:GetBucketAcl',
      's3:GetBucketPolicy',
      's3:GetBucketTagging',
      's3:GetPublicAccessBlock',
      's3:ListBuckets',
      'sts:AssumeRole',
      'sts:GetCallerIdentity',
    ]);
    // The stand-in pages by two: three security groups and three buckets took two pages each, and every
    // one of them reached the report.
    const a = result.accounts.find((x) => x.account === A)!;
    const network = a.reports.find((r) => r.source === 'cloudnet')!.body as { security_groups: unknown[] };
    expect(network.security_groups).toHaveLength(3);
    expect(aws.calls.filter((c) => c.action === 'DescribeSecurityGroups' && c.account === A)).toHaveLength(2);
    const custodian = a.reports.find((r) => r.source === 'custodian')!.body as {
      policies: { resources: unknown[] }[];
    };
    expect(custodian.policies[0].resources).toHaveLength(3);
    expect(aws.calls.filter((c) => c.action === 'ListBuckets' && c.account === A)).toHaveLength(2);
    const iam = a.reports.find((r) => r.source === 'iam')!.body as { RoleDetailList: unknown[] };
    expect(iam.RoleDetailList).toHaveLength(3);
    // The calls the pull counts are the operations the stand-in answered (AssumeRole on the caller's account).
    expect(result.accounts.reduce((n, x) => n + (x.calls ?? 0), 0)).toBe(aws.calls.length);
  });

  it('rides out throttling with the SDK retry strategy, and pulls the same reports', async () => {
    await standIn();
    const calm = await pull();
    aws.calls.length = 0;
    for (const key of [
      'ec2:DescribeInstances',
      'iam:GetAccountAuthorizationDetails',
      's3:ListBuckets',
      'rds:DescribeDBInstances',
      'elasticloadbalancing:DescribeLoadBalancers',
      'lambda:ListFunctions',
      'sts:AssumeRole',
    ])
      aws.throttle.set(key, 2);
    const stormy = await pull();
    expect(aws.throttled).toBe(14);
    expect(stormy.failures).toEqual([]);
    expect(stormy.accounts.map((a) => a.reports)).toEqual(calm.accounts.map((a) => a.reports));
  });

  it('reports an account whose role cannot be assumed, and pulls the others', async () => {
    await standIn();
    const result = await pull(options([roleArn(A), roleArn(C), roleArn(B)]));
    expect(result.accounts.map((a) => a.account)).toEqual([A, B]);
    expect(result.failures).toEqual([
      {
        account: C,
        error: `sts:AssumeRole: AccessDenied: User: arn:aws:iam::${A}:user/pathgate-collector is not authorized to perform: sts:AssumeRole on resource: ${roleArn(C)}`,
      },
    ]);
    expect(JSON.stringify(result.failures)).not.toContain(CALLER_KEY.secretAccessKey);
  });

  it('fails the whole account when one of its calls keeps failing: no report of it in part', async () => {
    await standIn();
    aws.throttle.set(`s3:GetBucketTagging@${A}`, 1000);
    const result = await pull();
    expect(result.accounts.map((a) => a.account)).toEqual([B]);
    expect(result.failures).toEqual([
      { account: A, error: 's3:GetBucketTagging: SlowDown: Please reduce your request rate.' },
    ]);
  });

  it('the credentials own account when no role is given', async () => {
    await standIn();
    const result = await pull(options([]));
    expect(result.failures).toEqual([]);
    expect(result.accounts.map((a) => a.account)).toEqual([A]);
    expect(aws.actions()).not.toContain('sts:AssumeRole');
  });

  it("retracts a deleted bucket's path at the next pull (the complete snapshot no longer holds it)", async () => {
    await standIn();
    service = await makeService();
    await publishPull(service, await pull());
    expect(await pathNames(service)).toContainEqual([`${A}/customer-exports`]);

    const estate = aws.estate.accounts[A];
    estate.buckets = estate.buckets!.filter((b) => b.Name !== 'customer-exports');
    await publishPull(service, await pull());
    const paths = await pathNames(service);
    expect(paths).not.toContainEqual([`${A}/customer-exports`]);
    expect(service.engine.tenant('default')!.graph.hasNode(nodeId('Bucket', `${A}/customer-exports`))).toBe(
      false,
    );
    // Twin: what the snapshot still holds stays.
    expect(paths).toContainEqual([`${A}/web-alb`, `${A}/app-1`, `${A}/app-role`]);
  });
});
