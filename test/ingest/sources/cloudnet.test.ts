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
});
