// IAM ingest (BENCH_SUITES=iam): a synthetic authorization-details document with 5,000 principals (4,000
// users in 500 groups, 1,000 roles) and 20,000 managed policies, through the iam normalizer alone and
// through a running service until the graph holds it.
import { createIamSource } from '../src/ingest/sources/iam.js';
import { timeOneReport } from './child.js';

const ACCOUNT = '111122223333';
const ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  'ec2:DescribeInstances',
  'dynamodb:Query',
  'sqs:SendMessage',
  'logs:PutLogEvents',
];
/** A few policies carry an escalation primitive, as real accounts do. */
const RISKY = ['iam:CreateAccessKey', 'iam:PassRole', 'iam:AttachRolePolicy', 'iam:CreatePolicyVersion'];

export function syntheticAuthorizationDetails(principals = 5000, policyCount = 20_000) {
  const policies = Array.from({ length: policyCount }, (_, i) => ({
    PolicyName: `policy-${i}`,
    Arn: `arn:aws:iam::${ACCOUNT}:policy/policy-${i}`,
    DefaultVersionId: 'v1',
    PolicyVersionList: [
      {
        VersionId: 'v1',
        IsDefaultVersion: true,
        Document: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: [ACTIONS[i % 6], ACTIONS[(i + 1) % 6]],
              Resource: `arn:aws:s3:::bucket-${i % 300}/*`,
            },
            ...(i % 97 === 0 ? [{ Effect: 'Allow', Action: RISKY[i % 4], Resource: '*' }] : []),
          ],
        },
      },
    ],
  }));
  const attach = (seed: number, n: number) =>
    Array.from({ length: n }, (_, k) => {
      const p = (seed * 7 + k * 13) % policyCount;
      return { PolicyName: `policy-${p}`, PolicyArn: `arn:aws:iam::${ACCOUNT}:policy/policy-${p}` };
    });
  const users = Math.floor(principals * 0.8);
  return {
    UserDetailList: Array.from({ length: users }, (_, i) => ({
      UserName: `user-${i}`,
      Arn: `arn:aws:iam::${ACCOUNT}:user/user-${i}`,
      GroupList: [`group-${i % 500}`],
      AttachedManagedPolicies: attach(i, 4),
      UserPolicyList: [],
    })),
    GroupDetailList: Array.from({ length: 500 }, (_, i) => ({
      GroupName: `group-${i}`,
      Arn: `arn:aws:iam::${ACCOUNT}:group/group-${i}`,
      AttachedManagedPolicies: attach(i + 10_000, 3),
      GroupPolicyList: [],
    })),
    RoleDetailList: Array.from({ length: principals - users }, (_, i) => ({
      RoleName: `role-${i}`,
      Arn: `arn:aws:iam::${ACCOUNT}:role/role-${i}`,
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { AWS: `arn:aws:iam::${ACCOUNT}:user/user-${i}` },
            Action: 'sts:AssumeRole',
          },
        ],
      },
      AttachedManagedPolicies: attach(i + 20_000, 5),
      RolePolicyList: [],
    })),
    Policies: policies,
  };
}

export async function runIamBench(root: string, outDir: string): Promise<void> {
  const doc = syntheticAuthorizationDetails();
  const text = JSON.stringify(doc);
  console.log(
    `iam: synthetic authorization details, 5,000 principals, 20,000 policies (${(text.length / 1048576).toFixed(1)} MiB)`,
  );
  const iam = createIamSource();
  const times: number[] = [];
  let edges = 0;
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    const out = iam.normalize({ body: JSON.parse(text), query: {}, receivedAt: new Date().toISOString() });
    times.push(performance.now() - began);
    edges = out.envelopes[0].edges.length;
  }
  times.sort((a, b) => a - b);
  console.log(`  normalizer (JSON.parse + normalize): median ${times[2].toFixed(0)} ms (${edges} edges)`);
  await timeOneReport(root, `${outDir}/data-iam`, 'iam', text);
}
