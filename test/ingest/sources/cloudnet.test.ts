// The cloudnet source on the real AWS network recordings (awsnet/): exposure through an open group, the
// subnet's internet gateway route and its network ACL; group-to-group reachability; peering across
// accounts; instances taking on their roles; whole AWS responses accepted as they print.
import { describe, expect, it } from 'vitest';
import { createCloudnetSource } from '../../../src/ingest/sources/cloudnet.js';
import { IMDS_V2_PROBABILITY } from '../../../src/model/probability.js';
import { normalize, rejection } from '../../helpers/normalize.js';
import { placebo } from '../../helpers/placebo.js';

const cloudnet = createCloudnetSource();
const ACCOUNT = '644160558196';
const igw = placebo('awsnet/ec2_igw_subnet');
const openSsh = {
  GroupId: 'sg-0d80b64eab206a948',
  IpPermissions: [
    {
      IpProtocol: 'tcp',
      FromPort: 22,
      ToPort: 22,
      IpRanges: [{ CidrIp: '0.0.0.0/0' }],
      UserIdGroupPairs: [],
    },
  ],
};
const exposed = (out: ReturnType<typeof normalize>) =>
  out.nodes
    .filter((n) => n.properties?.internet_exposed)
    .map((n) => n.properties!.instance_id)
    .sort();
const inPublicSubnet = igw['ec2.DescribeInstances_1'].Reservations.flatMap((r: any) => r.Instances)
  .filter(
    (i: any) =>
      i.SubnetId === 'subnet-02e1a5b426e2b16a9' &&
      i.SecurityGroups.some((g: any) => g.GroupId === openSsh.GroupId),
  )
  .map((i: any) => i.InstanceId)
  .sort();

describe('cloudnet: exposure', () => {
  it('without subnet data, an open group exposes its instances', () => {
    const out = normalize(
      cloudnet,
      { instances: igw['ec2.DescribeInstances_1'], security_groups: [openSsh] },
      { account: ACCOUNT },
    );
    expect(exposed(out).length).toBe(3);
  });

  it('with route tables, only instances whose subnet routes to an internet gateway', () => {
    const out = normalize(
      cloudnet,
      {
        instances: igw['ec2.DescribeInstances_1'].Reservations,
        security_groups: { SecurityGroups: [openSsh] },
        subnets: igw['ec2.DescribeSubnets_1'],
        route_tables: igw['ec2.DescribeRouteTables_1'],
      },
      { account: ACCOUNT },
    );
    expect(inPublicSubnet).toHaveLength(1);
    expect(exposed(out)).toEqual(inPublicSubnet);
    const node = out.nodes.find((n) => n.properties?.internet_exposed)!;
    expect(node.properties!.exposure_basis).toBe('sg-open:tcp/22 route:igw-0186e33a1d5903db5');
  });

  it('with network ACLs, only when the ACL admits an open port (the real ACL allows everything)', () => {
    const acl = placebo('awsnet/test_network_acl_s3_missing')['ec2.DescribeNetworkAcls_1'].NetworkAcls[0];
    const associated = { ...acl, Associations: [{ SubnetId: 'subnet-02e1a5b426e2b16a9' }] };
    const body = {
      instances: igw['ec2.DescribeInstances_1'],
      security_groups: [openSsh],
      subnets: igw['ec2.DescribeSubnets_1'],
      route_tables: igw['ec2.DescribeRouteTables_1'],
    };
    expect(
      exposed(normalize(cloudnet, { ...body, network_acls: [associated] }, { account: ACCOUNT })),
    ).toEqual(inPublicSubnet);
    const denySsh = {
      ...associated,
      Entries: [
        {
          RuleNumber: 90,
          Egress: false,
          RuleAction: 'deny',
          CidrBlock: '0.0.0.0/0',
          Protocol: '6',
          PortRange: { From: 22, To: 22 },
        },
        ...acl.Entries,
      ],
    };
    expect(exposed(normalize(cloudnet, { ...body, network_acls: [denySsh] }, { account: ACCOUNT }))).toEqual(
      [],
    );
  });

  it('reads the real groups: open ports, IPv6 and group references', () => {
    const sgs = placebo('awsnet/test_only_ports_and_cidr_ingress')['ec2.DescribeSecurityGroups_1'];
    const used = placebo('awsnet/test_security_group_used')['ec2.DescribeSecurityGroups_1'];
    const instance = (id: string, group: string) => ({
      InstanceId: id,
      OwnerId: ACCOUNT,
      SecurityGroups: [{ GroupId: group }],
      Tags: [{ Key: 'Name', Value: id }],
    });
    const out = normalize(cloudnet, {
      security_groups: [...sgs.SecurityGroups, ...used.SecurityGroups],
      instances: [
        instance('web', 'sg-02a60363e2b087ff8'),
        instance('db-1', 'sg-13de8f75'),
        instance('db-2', 'sg-13de8f75'),
        instance('admin', 'sg-f9cc4d9f'),
      ],
    });
    expect(out.node('VirtualMachine', `${ACCOUNT}/web`).properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'sg-open:tcp/80,tcp/8080,tcp/1234-4321,tcp/443',
    });
    // Only 71.163.79.221/32 may reach admin: not the internet.
    expect(out.node('VirtualMachine', `${ACCOUNT}/admin`).properties).not.toHaveProperty('internet_exposed');
    // sg-13de8f75 admits itself: its members reach each other.
    expect(out.edges.filter((e) => e.startsWith('CONNECTS_TO'))).toEqual([
      `CONNECTS_TO ${ACCOUNT}/db-1 -> ${ACCOUNT}/db-2`,
      `CONNECTS_TO ${ACCOUNT}/db-2 -> ${ACCOUNT}/db-1`,
    ]);
  });
});

describe('cloudnet: peerings and roles', () => {
  it('connects the two VPCs of an active cross-account peering, each under its owner', () => {
    const peering = placebo('awsnet/test_peer_cross_account')['ec2.DescribeVpcPeeringConnections_1'];
    const out = normalize(cloudnet, { vpc_peerings: peering });
    expect(out.names('VPC')).toEqual(['185106417252/vpc-0202e27b', '644160558196/vpc-7af45101']);
    expect(out.edges).toEqual([
      'CONNECTS_TO 185106417252/vpc-0202e27b -> 644160558196/vpc-7af45101',
      'CONNECTS_TO 644160558196/vpc-7af45101 -> 185106417252/vpc-0202e27b',
    ]);
    expect(out.envelopes[0].edges[0].properties).toMatchObject({
      peering: 'pcx-f368979b',
      cross_account: true,
    });
    // Sent for one account (`?account=`, as the clouda connector sends its snapshots), the other side is
    // still its owner's.
    expect(normalize(cloudnet, { vpc_peerings: peering }, { account: ACCOUNT }).names('VPC')).toEqual([
      '185106417252/vpc-0202e27b',
      '644160558196/vpc-7af45101',
    ]);
    const withRoutes = placebo('awsnet/test_peer_miss_route_filter_one');
    expect(
      normalize(cloudnet, {
        vpc_peerings: withRoutes['ec2.DescribeVpcPeeringConnections_1'],
        route_tables: withRoutes['ec2.DescribeRouteTables_1'],
      }).names('VPC').length,
    ).toBeGreaterThan(0);
  });

  it('lets an instance take on its profile’s role, harder with IMDSv2', () => {
    const out = normalize(cloudnet, {
      instances: [
        {
          InstanceId: 'i-1',
          OwnerId: ACCOUNT,
          IamInstanceProfile: { Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/web-profile` },
          MetadataOptions: { HttpTokens: 'required' },
        },
      ],
      instance_profiles: [
        {
          InstanceProfileName: 'web-profile',
          Roles: [{ RoleName: 'web-role', Arn: `arn:aws:iam::${ACCOUNT}:role/web-role` }],
        },
      ],
    });
    expect(out.edges).toEqual([`ASSUMES ${ACCOUNT}/i-1 -> ${ACCOUNT}/web-role`]);
    expect(out.envelopes[0].edges[0].exploit_probability).toBe(IMDS_V2_PROBABILITY);
  });

  it('reads the subnet recordings (igw and nat routes) without exposing anything on their own', () => {
    for (const dir of ['awsnet/test_rt_subnet_filter', 'awsnet/test_fsx_public_subnet']) {
      const data = placebo(dir);
      const out = normalize(cloudnet, {
        subnets: data['ec2.DescribeSubnets_1'],
        route_tables: data['ec2.DescribeRouteTables_1'],
      });
      expect(out.nodes).toEqual([]);
    }
  });

  it('refuses lists that are not lists, naming the field', () => {
    expect(rejection(cloudnet, { security_groups: 'sg-1' })[0]).toMatchObject({
      pointer: '/security_groups',
    });
    expect(rejection(cloudnet, { provider: 'gcp', instances: [] })[0]).toMatchObject({
      pointer: '/provider',
    });
    expect(rejection(cloudnet, [])[0]).toMatchObject({ pointer: '/' });
  });

  it('takes instances from their network interfaces when DescribeInstances is not given', () => {
    const data = placebo('awsnet/test_security_group_used');
    const out = normalize(cloudnet, {
      security_groups: data['ec2.DescribeSecurityGroups_1'],
      network_interfaces: data['ec2.DescribeNetworkInterfaces_1'],
    });
    // One interface is attached to an instance; its group admits only one address, so no exposure.
    expect(out.names('VirtualMachine')).toEqual(['644160558196/i-017cf4e2a33b853fe']);
    expect(out.node('VirtualMachine', '644160558196/i-017cf4e2a33b853fe').properties).toMatchObject({
      public_ip: '35.162.52.140',
      subnet_id: 'subnet-15452171',
    });
    expect(out.node('VirtualMachine', '644160558196/i-017cf4e2a33b853fe').properties).not.toHaveProperty(
      'internet_exposed',
    );
  });

  it('says which network interfaces attached to no instance it did not read', () => {
    const fargate = {
      NetworkInterfaceId: 'eni-1',
      InterfaceType: 'interface',
      Association: { PublicIp: '3.80.3.41' },
      Groups: [{ GroupId: openSsh.GroupId }],
    };
    const out = normalize(cloudnet, { security_groups: [openSsh], network_interfaces: [fargate] });
    expect(out.names('VirtualMachine')).toEqual([]);
    expect(out.warnings).toEqual([
      'cloudnet report: 1 network interface(s) attached to no instance not read (eni-1 interface public)',
    ]);
    // Twin: an interface attached to an instance is read as it, and warns of nothing.
    const attached = { ...fargate, Attachment: { InstanceId: 'i-1' }, OwnerId: ACCOUNT };
    const read = normalize(cloudnet, { security_groups: [openSsh], network_interfaces: [attached] });
    expect(read.names('VirtualMachine')).toEqual([`${ACCOUNT}/i-1`]);
    expect(read.warnings).toEqual([]);
  });
});

describe('cloudnet: path truth (issue 15)', () => {
  const instances = igw['ec2.DescribeInstances_1'];
  const subnets = igw['ec2.DescribeSubnets_1'];
  const tables = igw['ec2.DescribeRouteTables_1'];

  it('reads subnets that name their route table directly, as well as tables naming subnets', () => {
    // The same recording in the other shape DECISIONS allows: each subnet names its table, tables list no subnets.
    const named = {
      Subnets: subnets.Subnets.map((s: any) => ({
        ...s,
        RouteTableId: tables.RouteTables.find((t: any) =>
          t.Associations.some((a: any) => a.SubnetId === s.SubnetId),
        ).RouteTableId,
      })),
    };
    const bare = {
      RouteTables: tables.RouteTables.map((t: any) => ({
        ...t,
        Associations: t.Associations.filter((a: any) => a.Main),
      })),
    };
    const body = { instances, security_groups: [openSsh], subnets: named, route_tables: bare };
    expect(exposed(normalize(cloudnet, body, { account: ACCOUNT }))).toEqual(inPublicSubnet);
    // twin: without the subnet naming its table, the private main table decides: nothing exposed
    expect(exposed(normalize(cloudnet, { ...body, subnets: subnets }, { account: ACCOUNT }))).toEqual([]);
  });

  it('evaluates ACL entries as AWS does: ordered, absent protocol is all, ports, ingress only, default ACL', () => {
    const real = placebo('awsnet/test_network_acl_s3_missing')['ec2.DescribeNetworkAcls_1'].NetworkAcls[0];
    const body = (entries: unknown[], acl: Record<string, unknown> = {}) => ({
      instances,
      security_groups: [openSsh],
      subnets,
      route_tables: tables,
      // the real default ACL of another VPC, made the default of this one (no association: it applies to every subnet)
      network_acls: [{ ...real, VpcId: 'vpc-06a22444b7946ea01', Entries: entries, ...acl }],
    });
    const allowAll = { RuleNumber: 100, Egress: false, RuleAction: 'allow', CidrBlock: '0.0.0.0/0' };
    const finalDeny = {
      RuleNumber: 32767,
      Egress: false,
      RuleAction: 'deny',
      CidrBlock: '0.0.0.0/0',
      Protocol: '-1',
    };
    const run = (entries: unknown[], acl?: Record<string, unknown>) =>
      exposed(normalize(cloudnet, body(entries, acl), { account: ACCOUNT }));
    // the real entries: allow all, then the final deny
    expect(run(real.Entries)).toEqual(inPublicSubnet);
    // an entry without Protocol covers every protocol
    expect(run([allowAll, finalDeny])).toEqual(inPublicSubnet);
    // a lower-numbered deny on the port wins, whatever order the list is in
    const denySsh = {
      ...allowAll,
      RuleNumber: 50,
      RuleAction: 'deny',
      Protocol: '6',
      PortRange: { From: 20, To: 25 },
    };
    expect(run([allowAll, denySsh, finalDeny])).toEqual([]);
    // a deny on other ports does not cover 22
    expect(run([{ ...denySsh, PortRange: { From: 80, To: 443 } }, allowAll, finalDeny])).toEqual(
      inPublicSubnet,
    );
    // egress entries say nothing about inbound traffic
    expect(run([{ ...allowAll, Egress: true }, finalDeny])).toEqual([]);
    // an ACL of another VPC that is not the default does not apply
    expect(run([allowAll], { IsDefault: false })).toEqual(inPublicSubnet);
    expect(run([finalDeny], { IsDefault: false })).toEqual(inPublicSubnet);
  });

  it('joins instance profiles by ARN, and names the role by the profile alias when profiles are not sent', () => {
    const instance = {
      InstanceId: 'i-1',
      OwnerId: ACCOUNT,
      IamInstanceProfile: { Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/app/web-profile` },
      MetadataOptions: { HttpTokens: 'optional' },
    };
    const byArn = normalize(cloudnet, {
      instances: [instance],
      instance_profiles: {
        InstanceProfiles: [
          {
            InstanceProfileName: 'other-name',
            Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/app/web-profile`,
            Roles: [{ RoleName: 'web-role', Arn: `arn:aws:iam::${ACCOUNT}:role/web-role` }],
          },
        ],
      },
    });
    expect(byArn.edges).toEqual([`ASSUMES ${ACCOUNT}/i-1 -> ${ACCOUNT}/web-role`]);
    const alone = normalize(cloudnet, { instances: [instance] });
    expect(alone.edges).toEqual([`ASSUMES ${ACCOUNT}/i-1 -> ${ACCOUNT}/instance-profile/web-profile`]);
  });

  it('marks an instance classified by its tags a crown jewel (tag:<key>=<value>); twin: a public one', () => {
    const tagged = (value: string) =>
      normalize(cloudnet, {
        instances: [{ InstanceId: 'i-9', OwnerId: ACCOUNT, Tags: [{ Key: 'classification', Value: value }] }],
      }).node('VirtualMachine', `${ACCOUNT}/i-9`).properties;
    expect(tagged('pii')).toMatchObject({ crown_jewel: true, crown_jewel_basis: 'tag:classification=pii' });
    expect(tagged('public')).toMatchObject({ crown_jewel: false });
  });

  it('refuses a body with none of its keys, or another provider’s shape, naming the keys it reads', () => {
    for (const body of [{}, { provider: 'aws' }, { policies: [], account_id: ACCOUNT }, { Subnetz: [] }]) {
      const [error] = rejection(cloudnet, body);
      expect(error.pointer).toBe('/');
      expect(error.detail).toMatch(/security_groups \(or SecurityGroups\).*instances \(or Reservations\)/);
    }
    expect(rejection(cloudnet, { provider: 'gcp', instances: [] })[0].detail).toMatch(/security_groups/);
    // With snapshot= the pipeline's rule for reports that yield nothing answers (test/app/empty-snapshots.test.ts).
    expect(normalize(cloudnet, {}, { snapshot: 'none' }).nodes).toEqual([]);
  });
});
