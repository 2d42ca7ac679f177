// The estate the connector tests declare (issue 37): account A (111111111111) with a VPC of a public and a
// private subnet, an internet-facing load balancer forwarding to an app instance in the private subnet whose
// instance profile's role holds AdministratorAccess, a bucket a policy opens to anyone and a private one, a
// database, a Lambda function; account B (222222222222), reached by AssumeRole, with an instance of its own.
// Negative twins live beside what they mirror: a target group no balancer forwards to, a private bucket, a
// bucket whose public policy Block Public Access takes back.
import type { AccountEstate, Estate, PolicyDocument } from './estate.js';

export const A = '111111111111';
export const B = '222222222222';
export const C = '333333333333';
export const READER = 'pathgate-reader';
export const roleArn = (account: string, name = READER) => `arn:aws:iam::${account}:role/${name}`;
export const CALLER_KEY = {
  accessKeyId: 'AKIASTANDINCALLER001',
  secretAccessKey: 'standin-caller-secret-value',
};

const trust = (service: string): PolicyDocument => ({
  Statement: [{ Effect: 'Allow', Principal: { Service: service }, Action: 'sts:AssumeRole' }],
});
const trustAccount = (account: string): PolicyDocument => ({
  Statement: [
    { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${account}:root` }, Action: 'sts:AssumeRole' },
  ],
});
const ADMIN = { PolicyName: 'AdministratorAccess', PolicyArn: 'arn:aws:iam::aws:policy/AdministratorAccess' };
const READ_ONLY = { PolicyName: 'SecurityAudit', PolicyArn: 'arn:aws:iam::aws:policy/SecurityAudit' };
const lbArn = (account: string, name: string) =>
  `arn:aws:elasticloadbalancing:us-east-1:${account}:loadbalancer/app/${name}/50dc6c495c0c9188`;
const tgArn = (account: string, name: string) =>
  `arn:aws:elasticloadbalancing:us-east-1:${account}:targetgroup/${name}/73e2d6bc24d8a067`;

function network(
  account: string,
  vpc: string,
): Pick<AccountEstate, 'subnets' | 'routeTables' | 'networkAcls'> {
  return {
    subnets: [
      {
        SubnetId: `subnet-${vpc}-public`,
        VpcId: `vpc-${vpc}`,
        CidrBlock: '10.0.1.0/24',
        AvailabilityZone: 'us-east-1a',
        MapPublicIpOnLaunch: true,
        OwnerId: account,
      },
      {
        SubnetId: `subnet-${vpc}-private`,
        VpcId: `vpc-${vpc}`,
        CidrBlock: '10.0.2.0/24',
        AvailabilityZone: 'us-east-1a',
        MapPublicIpOnLaunch: false,
        OwnerId: account,
      },
    ],
    routeTables: [
      {
        RouteTableId: `rtb-${vpc}-public`,
        VpcId: `vpc-${vpc}`,
        OwnerId: account,
        Associations: [
          {
            RouteTableAssociationId: `rtbassoc-${vpc}-1`,
            RouteTableId: `rtb-${vpc}-public`,
            SubnetId: `subnet-${vpc}-public`,
            Main: false,
          },
        ],
        Routes: [
          {
            DestinationCidrBlock: '10.0.0.0/16',
            GatewayId: 'local',
            State: 'active',
            Origin: 'CreateRouteTable',
          },
          {
            DestinationCidrBlock: '0.0.0.0/0',
            GatewayId: `igw-${vpc}`,
            State: 'active',
            Origin: 'CreateRoute',
          },
        ],
      },
      {
        RouteTableId: `rtb-${vpc}-main`,
        VpcId: `vpc-${vpc}`,
        OwnerId: account,
        Associations: [
          { RouteTableAssociationId: `rtbassoc-${vpc}-main`, RouteTableId: `rtb-${vpc}-main`, Main: true },
        ],
        Routes: [
          {
            DestinationCidrBlock: '10.0.0.0/16',
            GatewayId: 'local',
            State: 'active',
            Origin: 'CreateRouteTable',
          },
          {
            DestinationCidrBlock: '0.0.0.0/0',
            NatGatewayId: `nat-${vpc}`,
            State: 'active',
            Origin: 'CreateRoute',
          },
        ],
      },
    ],
    networkAcls: [
      {
        NetworkAclId: `acl-${vpc}`,
        VpcId: `vpc-${vpc}`,
        IsDefault: true,
        OwnerId: account,
        Entries: [
          { RuleNumber: 100, Protocol: '-1', RuleAction: 'allow', Egress: false, CidrBlock: '0.0.0.0/0' },
          { RuleNumber: 100, Protocol: '-1', RuleAction: 'allow', Egress: true, CidrBlock: '0.0.0.0/0' },
        ],
        Associations: [
          {
            NetworkAclAssociationId: `aclassoc-${vpc}-1`,
            NetworkAclId: `acl-${vpc}`,
            SubnetId: `subnet-${vpc}-public`,
          },
          {
            NetworkAclAssociationId: `aclassoc-${vpc}-2`,
            NetworkAclId: `acl-${vpc}`,
            SubnetId: `subnet-${vpc}-private`,
          },
        ],
      },
    ],
  };
}

export function accountA(): AccountEstate {
  return {
    ...network(A, 'a1'),
    reservations: [
      {
        ReservationId: 'r-0a1',
        OwnerId: A,
        Groups: [],
        Instances: [
          {
            InstanceId: 'i-0a1app',
            ImageId: 'ami-0abcdef1234567890',
            InstanceType: 't3.micro',
            State: { Code: 16, Name: 'running' },
            PrivateIpAddress: '10.0.2.10',
            SubnetId: 'subnet-a1-private',
            VpcId: 'vpc-a1',
            SecurityGroups: [{ GroupId: 'sg-a1app', GroupName: 'app' }],
            IamInstanceProfile: {
              Arn: `arn:aws:iam::${A}:instance-profile/app-profile`,
              Id: 'AIPAAPPPROFILE',
            },
            MetadataOptions: { HttpTokens: 'optional', HttpEndpoint: 'enabled', State: 'applied' },
            Tags: [{ Key: 'Name', Value: 'app-1' }],
          },
          // Twin: terminated an hour ago, still listed by DescribeInstances; no machine of the graph.
          {
            InstanceId: 'i-0a1gone',
            InstanceType: 't3.micro',
            State: { Code: 48, Name: 'terminated' },
            SubnetId: 'subnet-a1-public',
            VpcId: 'vpc-a1',
            PublicIpAddress: '203.0.113.99',
            SecurityGroups: [{ GroupId: 'sg-a1lb', GroupName: 'alb' }],
            Tags: [{ Key: 'Name', Value: 'gone-1' }],
          },
          {
            InstanceId: 'i-0a1batch',
            ImageId: 'ami-0abcdef1234567890',
            InstanceType: 't3.micro',
            State: { Code: 16, Name: 'running' },
            PrivateIpAddress: '10.0.2.11',
            SubnetId: 'subnet-a1-private',
            VpcId: 'vpc-a1',
            SecurityGroups: [{ GroupId: 'sg-a1batch', GroupName: 'batch' }],
            IamInstanceProfile: {
              Arn: `arn:aws:iam::${A}:instance-profile/app-profile`,
              Id: 'AIPAAPPPROFILE',
            },
            MetadataOptions: { HttpTokens: 'optional', HttpEndpoint: 'enabled', State: 'applied' },
            Tags: [{ Key: 'Name', Value: 'batch-1' }],
          },
        ],
      },
    ],
    securityGroups: [
      {
        GroupId: 'sg-a1lb',
        GroupName: 'alb',
        Description: 'the load balancer',
        VpcId: 'vpc-a1',
        OwnerId: A,
        IpPermissions: [
          { IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
        ],
      },
      {
        GroupId: 'sg-a1app',
        GroupName: 'app',
        Description: 'the app instances',
        VpcId: 'vpc-a1',
        OwnerId: A,
        IpPermissions: [
          {
            IpProtocol: 'tcp',
            FromPort: 8080,
            ToPort: 8080,
            UserIdGroupPairs: [{ GroupId: 'sg-a1lb', UserId: A }],
          },
        ],
      },
      {
        GroupId: 'sg-a1batch',
        GroupName: 'batch',
        Description: 'batch',
        VpcId: 'vpc-a1',
        OwnerId: A,
        IpPermissions: [],
      },
    ],
    vpcPeerings: [],
    roles: [
      {
        RoleName: 'app-role',
        AssumeRolePolicyDocument: trust('ec2.amazonaws.com'),
        AttachedManagedPolicies: [ADMIN],
        InstanceProfileNames: ['app-profile'],
      },
      {
        RoleName: 'lambda-exec',
        AssumeRolePolicyDocument: trust('lambda.amazonaws.com'),
        RolePolicyList: [],
      },
      { RoleName: READER, AssumeRolePolicyDocument: trustAccount(A), AttachedManagedPolicies: [READ_ONLY] },
    ],
    policies: [
      {
        PolicyName: 'AdministratorAccess',
        Arn: ADMIN.PolicyArn,
        Document: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      },
    ],
    buckets: [
      {
        Name: 'customer-exports',
        Policy: {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'Public',
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::customer-exports/*',
            },
          ],
        },
      },
      { Name: 'customer-archive', Tags: [{ Key: 'team', Value: 'data' }] },
      {
        Name: 'customer-reports',
        Policy: {
          Statement: [
            {
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::customer-reports/*',
            },
          ],
        },
        PublicAccessBlock: {
          BlockPublicAcls: true,
          IgnorePublicAcls: true,
          BlockPublicPolicy: true,
          RestrictPublicBuckets: true,
        },
      },
    ],
    dbInstances: [
      {
        DBInstanceIdentifier: 'orders-db',
        DBInstanceArn: `arn:aws:rds:us-east-1:${A}:db:orders-db`,
        DBInstanceClass: 'db.t3.micro',
        Engine: 'postgres',
        DBInstanceStatus: 'available',
        PubliclyAccessible: false,
        VpcSecurityGroups: [{ VpcSecurityGroupId: 'sg-a1app', Status: 'active' }],
        TagList: [{ Key: 'classification', Value: 'pii' }],
      },
    ],
    loadBalancers: [
      {
        LoadBalancerArn: lbArn(A, 'web-alb'),
        LoadBalancerName: 'web-alb',
        DNSName: 'web-alb-1234567890.us-east-1.elb.amazonaws.com',
        Scheme: 'internet-facing',
        VpcId: 'vpc-a1',
        Type: 'application',
        State: { Code: 'active' },
        SecurityGroups: ['sg-a1lb'],
      },
    ],
    listeners: [
      {
        ListenerArn: `arn:aws:elasticloadbalancing:us-east-1:${A}:listener/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2`,
        LoadBalancerArn: lbArn(A, 'web-alb'),
        Port: 443,
        Protocol: 'HTTPS',
        DefaultActions: [{ Type: 'forward', TargetGroupArn: tgArn(A, 'app-tg') }],
      },
    ],
    targetGroups: [
      {
        TargetGroupArn: tgArn(A, 'app-tg'),
        TargetGroupName: 'app-tg',
        Protocol: 'HTTP',
        Port: 8080,
        VpcId: 'vpc-a1',
        TargetType: 'instance',
        LoadBalancerArns: [lbArn(A, 'web-alb')],
      },
      // Twin: a group no balancer forwards to routes nowhere (batch-1 stays off every route).
      {
        TargetGroupArn: tgArn(A, 'batch-tg'),
        TargetGroupName: 'batch-tg',
        Protocol: 'HTTP',
        Port: 8080,
        VpcId: 'vpc-a1',
        TargetType: 'instance',
        LoadBalancerArns: [],
      },
    ],
    targetHealth: {
      [tgArn(A, 'app-tg')]: [{ Target: { Id: 'i-0a1app', Port: 8080 }, TargetHealth: { State: 'healthy' } }],
      [tgArn(A, 'batch-tg')]: [
        { Target: { Id: 'i-0a1batch', Port: 8080 }, TargetHealth: { State: 'healthy' } },
      ],
    },
    functions: [
      {
        FunctionName: 'thumbnailer',
        FunctionArn: `arn:aws:lambda:us-east-1:${A}:function:thumbnailer`,
        Runtime: 'nodejs20.x',
        Role: `arn:aws:iam::${A}:role/lambda-exec`,
        Handler: 'index.handler',
      },
    ],
  };
}

export function accountB(): AccountEstate {
  return {
    ...network(B, 'b1'),
    reservations: [
      {
        ReservationId: 'r-0b1',
        OwnerId: B,
        Groups: [],
        Instances: [
          {
            InstanceId: 'i-0b1bastion',
            InstanceType: 't3.nano',
            State: { Code: 16, Name: 'running' },
            PrivateIpAddress: '10.0.1.5',
            PublicIpAddress: '203.0.113.25',
            SubnetId: 'subnet-b1-public',
            VpcId: 'vpc-b1',
            SecurityGroups: [{ GroupId: 'sg-b1ssh', GroupName: 'ssh' }],
            IamInstanceProfile: {
              Arn: `arn:aws:iam::${B}:instance-profile/bastion-profile`,
              Id: 'AIPABASTION',
            },
            MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled', State: 'applied' },
            Tags: [{ Key: 'Name', Value: 'bastion' }],
          },
        ],
      },
    ],
    securityGroups: [
      {
        GroupId: 'sg-b1ssh',
        GroupName: 'ssh',
        Description: 'ssh from anywhere',
        VpcId: 'vpc-b1',
        OwnerId: B,
        IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
      },
    ],
    roles: [
      {
        RoleName: 'bastion-role',
        AssumeRolePolicyDocument: trust('ec2.amazonaws.com'),
        AttachedManagedPolicies: [ADMIN],
        InstanceProfileNames: ['bastion-profile'],
      },
      { RoleName: READER, AssumeRolePolicyDocument: trustAccount(A), AttachedManagedPolicies: [READ_ONLY] },
    ],
    policies: [],
    buckets: [],
  };
}

/** The estate: the caller is a user of account A allowed to assume the reader role in A and in B. */
export function sampleEstate(): Estate {
  return {
    accounts: { [A]: accountA(), [B]: accountB() },
    caller: { account: A, userName: 'pathgate-collector', ...CALLER_KEY },
    assumable: [roleArn(A), roleArn(B)],
  };
}
