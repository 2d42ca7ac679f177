// The clouda connector's pull (BENCH_SUITES=connectors, not in the default set): a 5,000-instance account
// served by the loopback AWS (test/helpers/aws/), pages at AWS's own maxima, pulled through the real AWS
// SDK v3 as the connector pulls it: wall time, API calls by service, report sizes; then the reports through
// their normalizers (cloudnet, iam, custodian). Loopback has no network latency: on AWS each call's round
// trip (tens of ms) adds up, so the calls made are the figure that carries over.
//   BENCH_AWS_INSTANCES=5000
import { pullCloudaAccounts } from '../src/connectors/clouda/sdk.js';
import { createCloudnetSource } from '../src/ingest/sources/cloudnet.js';
import { createCustodianSource } from '../src/ingest/sources/custodian.js';
import { createIamSource } from '../src/ingest/sources/iam.js';
import type { IngestSource } from '../src/ingest/sources/source.js';
import type { AccountEstate } from '../test/helpers/aws/estate.js';
import { pointSdkAt } from '../test/helpers/aws/env.js';
import { A, CALLER_KEY, accountA } from '../test/helpers/aws/sample-estate.js';
import { AwsStandIn } from '../test/helpers/aws/server.js';

/** The sample account scaled up: `instances` app instances behind load balancers, with groups, subnets, roles, buckets. */
export function largeAccount(instances: number): AccountEstate {
  const base = accountA();
  const template = base.reservations![0].Instances![0];
  const groups = Math.max(1, Math.floor(instances / 25));
  const subnets = Math.max(2, Math.floor(instances / 50));
  const balancers = Math.max(1, Math.floor(instances / 250));
  const lbArn = (i: number) =>
    `arn:aws:elasticloadbalancing:us-east-1:${A}:loadbalancer/app/lb-${i}/${i.toString(16).padStart(16, '0')}`;
  const tgArn = (i: number) =>
    `arn:aws:elasticloadbalancing:us-east-1:${A}:targetgroup/tg-${i}/${i.toString(16).padStart(16, '0')}`;
  return {
    ...base,
    reservations: Array.from({ length: instances }, (_, i) => ({
      ReservationId: `r-${i}`,
      OwnerId: A,
      Groups: [],
      Instances: [
        {
          ...template,
          InstanceId: `i-${i.toString(16).padStart(17, '0')}`,
          PrivateIpAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
          SubnetId: `subnet-${i % subnets}`,
          SecurityGroups: [{ GroupId: `sg-${i % groups}`, GroupName: `g-${i % groups}` }],
          IamInstanceProfile: {
            Arn: `arn:aws:iam::${A}:instance-profile/profile-${i % 100}`,
            Id: `AIPA${i % 100}`,
          },
          Tags: [{ Key: 'Name', Value: `app-${i}` }],
        },
      ],
    })),
    securityGroups: Array.from({ length: groups }, (_, g) => ({
      GroupId: `sg-${g}`,
      GroupName: `g-${g}`,
      Description: 'app',
      VpcId: 'vpc-a1',
      OwnerId: A,
      IpPermissions: [
        {
          IpProtocol: 'tcp',
          FromPort: 8080,
          ToPort: 8080,
          UserIdGroupPairs: [{ GroupId: 'sg-a1lb', UserId: A }],
        },
        ...(g % 10 === 0
          ? [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }]
          : []),
      ],
    })),
    subnets: Array.from({ length: subnets }, (_, s) => ({
      SubnetId: `subnet-${s}`,
      VpcId: 'vpc-a1',
      CidrBlock: `10.${s >> 8}.${s & 255}.0/24`,
      OwnerId: A,
    })),
    roles: [
      ...base.roles!,
      ...Array.from({ length: 100 }, (_, p) => ({
        RoleName: `role-${p}`,
        AssumeRolePolicyDocument: {
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        },
        RolePolicyList: [
          {
            PolicyName: 'app',
            PolicyDocument: {
              Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: `arn:aws:s3:::data-${p}/*` }],
            },
          },
        ],
        InstanceProfileNames: [`profile-${p}`],
      })),
    ],
    buckets: Array.from({ length: 100 }, (_, b) => ({
      Name: `data-${b}`,
      ...(b % 20 === 0 && {
        Policy: {
          Statement: [
            { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::data-${b}/*` },
          ],
        },
      }),
    })),
    loadBalancers: Array.from({ length: balancers }, (_, l) => ({
      LoadBalancerArn: lbArn(l),
      LoadBalancerName: `lb-${l}`,
      Scheme: l % 2 ? 'internal' : 'internet-facing',
      Type: 'application',
      VpcId: 'vpc-a1',
    })),
    listeners: Array.from({ length: balancers }, (_, l) => ({
      ListenerArn: `${lbArn(l).replace('loadbalancer', 'listener')}/l`,
      LoadBalancerArn: lbArn(l),
      Port: 443,
      Protocol: 'HTTPS',
      DefaultActions: [{ Type: 'forward', TargetGroupArn: tgArn(l) }],
    })),
    targetGroups: Array.from({ length: balancers }, (_, l) => ({
      TargetGroupArn: tgArn(l),
      TargetGroupName: `tg-${l}`,
      TargetType: 'instance',
      LoadBalancerArns: [lbArn(l)],
    })),
    targetHealth: Object.fromEntries(
      Array.from({ length: balancers }, (_, l) => [
        tgArn(l),
        Array.from({ length: Math.min(250, instances - l * 250) }, (_, k) => ({
          Target: { Id: `i-${(l * 250 + k).toString(16).padStart(17, '0')}`, Port: 8080 },
          TargetHealth: { State: 'healthy' },
        })),
      ]),
    ),
  };
}

const SOURCES: Record<string, IngestSource> = {
  cloudnet: createCloudnetSource(),
  iam: createIamSource(),
  custodian: createCustodianSource(),
};

export async function runConnectorsBench(): Promise<void> {
  const instances = Number(process.env.BENCH_AWS_INSTANCES ?? 5000);
  const aws = new AwsStandIn(
    {
      accounts: { [A]: largeAccount(instances) },
      caller: { account: A, userName: 'bench', ...CALLER_KEY },
      assumable: [],
    },
    1000, // AWS's own maxima decide the pages (EC2 1000, IAM 1000, RDS 100, ELBv2 400, Lambda 50)
  );
  await aws.start();
  const restore = pointSdkAt(aws.url);
  try {
    for (const round of ['cold', 'warm']) {
      aws.calls.length = 0;
      const began = performance.now();
      const result = await pullCloudaAccounts(
        { region: 'us-east-1', credentials: CALLER_KEY },
        new AbortController().signal,
      );
      const pullMs = performance.now() - began;
      if (result.failures.length) throw new Error(JSON.stringify(result.failures));
      const byService = new Map<string, number>();
      for (const c of aws.calls) byService.set(c.service, (byService.get(c.service) ?? 0) + 1);
      const reports = result.accounts[0].reports;
      const bytes = reports.map((r) => `${r.source} ${(JSON.stringify(r.body).length / 1e6).toFixed(1)} MB`);
      console.log(
        `clouda sdk pull (${round}), ${instances} instances: ${(pullMs / 1000).toFixed(2)} s, ${aws.calls.length} calls ` +
          `(${[...byService].map(([s, n]) => `${s} ${n}`).join(', ')}); reports: ${bytes.join(', ')}`,
      );
      const normalizeBegan = performance.now();
      let nodes = 0;
      let edges = 0;
      for (const r of reports) {
        const out = SOURCES[r.source].normalize({
          body: r.body,
          query: { snapshot: r.scope, account: A },
          receivedAt: new Date().toISOString(),
        });
        for (const e of out.envelopes) {
          nodes += e.nodes.length;
          edges += e.edges.length;
        }
      }
      console.log(
        `  normalized: ${nodes} nodes, ${edges} edges in ${((performance.now() - normalizeBegan) / 1000).toFixed(2)} s`,
      );
    }
  } finally {
    restore();
    await aws.stop();
  }
}
