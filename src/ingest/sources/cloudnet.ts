// Source `cloudnet`: the network state of a cloud account in the AWS Describe* shapes (DECISIONS.md):
// `{provider, security_groups[], instances[], vpc_peerings[], subnets[]?, route_tables[]?, network_acls[]?,
// instance_profiles[]?, network_interfaces[]?, load_balancers[]?, listeners[]?, target_groups[]?,
// target_health[]?}`; each list may also be the whole response AWS prints (`{"SecurityGroups": [...]}`,
// `{"Reservations": [...]}`). Derives (spec "Marker derivation"):
// - internet exposure of an instance from a security group open to 0.0.0.0/0 or ::/0; with route tables
//   given, only when the instance's subnet routes to an internet gateway, and with network ACLs given,
//   only when its subnet's ACL admits one of the open ports;
// - CONNECTS_TO between instances when a group admits another group (or itself);
// - VPC CONNECTS_TO VPC both ways across an active peering (accounts qualified by their owners), VPC HOSTS
//   its instances;
// - instance ASSUMES its profile's role (profiles by ARN or name; else the profile's alias, which the iam
//   source's InstanceProfileList resolves), priced on its metadata service posture (docs/model.md);
// - classification tags (`classification=pii`) mark an instance crown_jewel (`tag:<key>=<value>`);
// - load balancers ROUTES_TO the instances of the target groups they forward to (cloudnet-elb.ts).
// A body with none of these keys (or another provider's) is refused, naming the keys read.
import { imdsPrice } from '../../model/probability.js';
import { crownJewel, readTags } from '../../markers/crown-jewel.js';
import { instanceProfileAlias } from './iam.js';
import { sharedNameTags, sharedNameWarning, vmName } from '../../identity/vm-name.js';
import { accountParameter, qualify } from './account.js';
import { drawLoadBalancers } from './cloudnet-elb.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem } from './report-schema.js';
import type { IngestSource } from './source.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS API shapes, read field by field
type Record_ = Record<string, any>;

interface Rule {
  protocol: string;
  from: number;
  to: number;
}

/** body field -> the key AWS wraps its list in */
const FIELDS = {
  security_groups: 'SecurityGroups',
  instances: 'Reservations',
  vpc_peerings: 'VpcPeeringConnections',
  subnets: 'Subnets',
  route_tables: 'RouteTables',
  network_acls: 'NetworkAcls',
  instance_profiles: 'InstanceProfiles',
  network_interfaces: 'NetworkInterfaces',
  load_balancers: 'LoadBalancers',
  listeners: 'Listeners',
  target_groups: 'TargetGroups',
  target_health: 'TargetHealth',
} as const;

type Lists = Record<keyof typeof FIELDS, Record_[] | undefined>;

const READ_KEYS = `expected one of ${Object.entries(FIELDS)
  .map(([field, aws]) => `${field} (or ${aws})`)
  .join(', ')}`;

export function createCloudnetSource(): IngestSource {
  return {
    name: 'cloudnet',
    version: '2',
    description:
      'Cloud network state (AWS Describe* shapes): exposure through security groups, routes and ACLs; SG-to-SG reachability; peerings; instance roles.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const lists = readLists(body, query.snapshot !== undefined && query.snapshot !== '');
      const queryAccount = accountParameter(query);
      const out = new EnvelopeBuilder('cloudnet', 'asset', receivedAt);
      const groups = new Map((lists.security_groups ?? []).map((g) => [g.GroupId as string, g]));
      const described = (lists.instances ?? []).flatMap((r) =>
        Array.isArray(r.Instances)
          ? r.Instances.map((i: Record_) => ({ ...i, OwnerId: i.OwnerId ?? r.OwnerId }))
          : [r],
      );
      // Network interfaces attached to an instance stand for it when DescribeInstances is not given (its
      // subnet, groups and public address are the interface's).
      const known = new Set(described.map((i: Record_) => i.InstanceId));
      const fromInterfaces = (lists.network_interfaces ?? [])
        .filter((n) => typeof n.Attachment?.InstanceId === 'string' && !known.has(n.Attachment.InstanceId))
        .map((n): Record_ => ({
          InstanceId: n.Attachment.InstanceId,
          OwnerId: n.OwnerId,
          SubnetId: n.SubnetId,
          VpcId: n.VpcId,
          PublicIpAddress: n.Association?.PublicIp,
          SecurityGroups: n.Groups ?? [],
        }));
      const instances = [...described, ...fromInterfaces];
      const accountOf = (owner: unknown) => queryAccount ?? (typeof owner === 'string' ? owner : undefined);

      // Instances, and which groups each is in.
      const members = new Map<string, string[]>();
      const vms = new Map<string, { id: string; subnet?: string; groups: string[] }>();
      const named = instances.flatMap((instance) =>
        typeof instance.InstanceId === 'string'
          ? [
              {
                instance,
                instanceId: instance.InstanceId as string,
                tags: readTags(instance.Tags),
                account: accountOf(instance.OwnerId),
              },
            ]
          : [],
      );
      const shared = sharedNameTags(named);
      for (const vm of named) {
        const { instance, instanceId, tags, account } = vm;
        const { name, aliases, name_tag } = vmName(vm, shared);
        const id = out.node('VirtualMachine', name, {
          instance_id: instanceId,
          aliases,
          name_tag,
          account,
          subnet_id: instance.SubnetId,
          vpc_id: instance.VpcId,
          public_ip: instance.PublicIpAddress,
          imds_tokens: instance.MetadataOptions?.HttpTokens,
          instance_profile_arn: instance.IamInstanceProfile?.Arn,
          ...crownJewel({ label: 'VirtualMachine', name: tags.name || instanceId, tags }),
        });
        const groupIds = (instance.SecurityGroups ?? [])
          .map((g: Record_) => g.GroupId)
          .filter((g: unknown): g is string => typeof g === 'string');
        vms.set(instanceId, { id, subnet: instance.SubnetId, groups: groupIds });
        for (const g of groupIds) members.set(g, [...(members.get(g) ?? []), id]);
        if (typeof instance.VpcId === 'string') {
          const vpc = out.node('VPC', qualify(instance.VpcId, account), { vpc_id: instance.VpcId, account });
          out.edge('HOSTS', vpc, id);
        }
      }

      // Exposure: an open group, through the subnet's routes and ACL when those are known.
      const routes = subnetRouting(lists);
      const acls = subnetAcls(lists);
      for (const vm of vms.values()) {
        const open = vm.groups.flatMap((g) => openRules(groups.get(g)));
        if (!open.length) continue;
        const reasons = [`sg-open:${open.map(describe).join(',')}`];
        if (routes) {
          const gateway = vm.subnet ? routes.get(vm.subnet) : undefined;
          if (!gateway) continue;
          reasons.push(`route:${gateway}`);
        }
        if (acls && vm.subnet && acls.has(vm.subnet)) {
          const admitted = open.filter((rule) => aclAdmits(acls.get(vm.subnet!)!, rule));
          if (!admitted.length) continue;
          reasons.push('acl:allows');
        }
        out.stamp(vm.id, { internet_exposed: true, exposure_basis: reasons.join(' ') });
      }

      // Reachability between groups: every member of an admitted group reaches every member of the admitting one.
      for (const [groupId, group] of groups) {
        for (const permission of group.IpPermissions ?? []) {
          for (const pair of permission.UserIdGroupPairs ?? []) {
            for (const from of members.get(pair.GroupId) ?? []) {
              for (const to of members.get(groupId) ?? []) {
                if (from !== to)
                  out.edge('CONNECTS_TO', from, to, {
                    properties: { via: `${pair.GroupId}->${groupId}`, ports: describe(ruleOf(permission)) },
                  });
              }
            }
          }
        }
      }

      // Peerings: both VPCs, each qualified by its owner (the side's own OwnerId before `?account=`, since
      // the other side of a cross-account peering is another account's), reach each other.
      const ownerOf = (owner: unknown) =>
        typeof owner === 'string' && /^\d{12}$/.test(owner) ? owner : accountOf(owner);
      for (const peering of lists.vpc_peerings ?? []) {
        if (peering.Status?.Code !== 'active') continue;
        const side = (info: Record_ | undefined) =>
          info && typeof info.VpcId === 'string'
            ? out.node('VPC', qualify(info.VpcId, ownerOf(info.OwnerId)), {
                vpc_id: info.VpcId,
                account: ownerOf(info.OwnerId),
                region: info.Region,
              })
            : undefined;
        const a = side(peering.RequesterVpcInfo);
        const b = side(peering.AccepterVpcInfo);
        if (!a || !b) continue;
        const properties = {
          peering: peering.VpcPeeringConnectionId,
          cross_account: peering.RequesterVpcInfo?.OwnerId !== peering.AccepterVpcInfo?.OwnerId,
        };
        out.edge('CONNECTS_TO', a, b, { properties });
        out.edge('CONNECTS_TO', b, a, { properties });
      }

      // Instance profiles: the instance takes on its role. Profiles are known by ARN and by name (an instance
      // names its profile by ARN); without ListInstanceProfiles the role is named by the profile's alias,
      // which the iam source's InstanceProfileList resolves to the role in the graph writer.
      const profileRoles = new Map<string, { name: string; account?: string }>();
      for (const profile of lists.instance_profiles ?? []) {
        const role = profile.Roles?.[0];
        if (typeof role?.RoleName !== 'string') continue;
        const entry = {
          name: role.RoleName,
          account: accountOf(String(role.Arn ?? profile.Arn ?? '').split(':')[4] || undefined),
        };
        if (typeof profile.InstanceProfileName === 'string')
          profileRoles.set(profile.InstanceProfileName, entry);
        if (typeof profile.Arn === 'string') profileRoles.set(profile.Arn, entry);
      }
      for (const instance of instances) {
        const arn = instance.IamInstanceProfile?.Arn;
        const vm = vms.get(instance.InstanceId);
        if (typeof arn !== 'string' || !vm) continue;
        const profileName = arn.split('/').pop()!;
        const account = accountOf(arn.split(':')[4] || instance.OwnerId);
        const role = profileRoles.get(arn) ?? profileRoles.get(profileName);
        const roleId = role
          ? out.node('IAM_Role', qualify(role.name, role.account ?? account), {
              account: role.account ?? account,
            })
          : out.node('IAM_Role', instanceProfileAlias(profileName, account), {
              account,
              instance_profile: profileName,
              instance_profile_arn: arn,
            });
        const tokens = instance.MetadataOptions?.HttpTokens;
        out.edge('ASSUMES', vm.id, roleId, {
          exploit_probability: imdsPrice(tokens),
          weight_basis: 'heuristic',
          properties: { via: 'instance-profile', imds_tokens: tokens, instance_profile: profileName },
        });
      }
      // An interface attached to no instance (a Fargate task's, a load balancer's, a Lambda's) is no VM: said,
      // not dropped in silence, since a public one is a way in pathgate does not draw.
      const unread = (lists.network_interfaces ?? []).filter(
        (n) => typeof n.Attachment?.InstanceId !== 'string' && typeof n.NetworkInterfaceId === 'string',
      );
      const warnings = sharedNameWarning(shared);
      warnings.push(...drawLoadBalancers(out, lists, (id) => vms.get(id)?.id, accountOf));
      if (unread.length)
        warnings.push(
          `cloudnet report: ${unread.length} network interface(s) attached to no instance not read ` +
            `(${unread
              .slice(0, 5)
              .map((n) =>
                `${n.NetworkInterfaceId} ${n.InterfaceType ?? ''}${n.Association?.PublicIp ? ' public' : ''}`.trim(),
              )
              .join(', ')}${unread.length > 5 ? ', ...' : ''})`,
        );
      return { envelopes: [out.build()], warnings };
    },
  };
}

function readLists(body: unknown, snapshotAsked: boolean): Lists {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw reportProblem('cloudnet', [
      { pointer: '/', detail: 'expected an object with security_groups, instances, ...' },
    ]);
  const b = body as Record_;
  const lists = {} as Lists;
  const errors: { pointer: string; detail: string }[] = [];
  for (const [field, awsKey] of Object.entries(FIELDS) as [keyof typeof FIELDS, string][]) {
    const raw = b[field] ?? (b[awsKey] !== undefined ? b : undefined);
    if (raw === undefined) continue;
    const list = Array.isArray(raw) ? raw : raw[awsKey];
    if (!Array.isArray(list) || !list.every((x) => x && typeof x === 'object')) {
      errors.push({
        pointer: `/${b[field] !== undefined ? field : awsKey}`,
        detail: `expected a list of objects (or {"${awsKey}": [...]})`,
      });
      continue;
    }
    lists[field] = list;
  }
  if (errors.length) throw reportProblem('cloudnet', errors);
  if (b.provider !== undefined && b.provider !== 'aws')
    throw reportProblem('cloudnet', [
      { pointer: '/provider', value: b.provider, detail: `only aws network state is read; ${READ_KEYS}` },
    ]);
  // A body with none of the keys read (`{}`, another provider's shape) says nothing: refused, naming what
  // is read. With `snapshot=` the pipeline's rule for reports that yield nothing decides instead (a
  // complete snapshot is refused naming its scope; `snapshot=none` is accepted with a warning).
  if (!snapshotAsked && !Object.values(lists).some((l) => l !== undefined))
    throw reportProblem('cloudnet', [{ pointer: '/', detail: `no network state found: ${READ_KEYS}` }]);
  return lists;
}

function ruleOf(permission: Record_): Rule {
  const protocol = String(permission.IpProtocol ?? '-1');
  return protocol === '-1'
    ? { protocol, from: 0, to: 65535 }
    : { protocol, from: Number(permission.FromPort ?? 0), to: Number(permission.ToPort ?? 65535) };
}

function describe(rule: Rule): string {
  if (rule.protocol === '-1') return 'all';
  return rule.from === rule.to ? `${rule.protocol}/${rule.from}` : `${rule.protocol}/${rule.from}-${rule.to}`;
}

/** The rules of a group that admit the whole internet. */
function openRules(group: Record_ | undefined): Rule[] {
  return (group?.IpPermissions ?? [])
    .filter(
      (p: Record_) =>
        (p.IpRanges ?? []).some((r: Record_) => r.CidrIp === '0.0.0.0/0') ||
        (p.Ipv6Ranges ?? []).some((r: Record_) => r.CidrIpv6 === '::/0'),
    )
    .map(ruleOf);
}

/** subnet -> the internet gateway its route table sends 0.0.0.0/0 (or ::/0) to; undefined when no route tables. */
function subnetRouting(lists: Lists): Map<string, string> | undefined {
  if (!lists.route_tables) return undefined;
  const byVpcMain = new Map<string, Record_>();
  const bySubnet = new Map<string, Record_>();
  for (const table of lists.route_tables) {
    for (const a of table.Associations ?? []) {
      if (a.Main === true) byVpcMain.set(table.VpcId, table);
      if (typeof a.SubnetId === 'string') bySubnet.set(a.SubnetId, table);
    }
  }
  const gatewayOf = (table: Record_ | undefined) =>
    (table?.Routes ?? []).find(
      (r: Record_) =>
        (r.DestinationCidrBlock === '0.0.0.0/0' || r.DestinationIpv6CidrBlock === '::/0') &&
        typeof r.GatewayId === 'string' &&
        r.GatewayId.startsWith('igw-'),
    )?.GatewayId as string | undefined;
  const out = new Map<string, string>();
  const subnets = new Set<string>([
    ...bySubnet.keys(),
    ...(lists.subnets ?? []).map((s) => s.SubnetId as string),
  ]);
  const vpcOfSubnet = new Map((lists.subnets ?? []).map((s) => [s.SubnetId as string, s.VpcId as string]));
  const byId = new Map(lists.route_tables.map((t) => [t.RouteTableId as string, t]));
  const named = new Map(
    (lists.subnets ?? [])
      .filter((s) => typeof s.RouteTableId === 'string')
      .map((s) => [s.SubnetId as string, byId.get(s.RouteTableId)]),
  );
  for (const subnet of subnets) {
    const table = named.get(subnet) ?? bySubnet.get(subnet) ?? byVpcMain.get(vpcOfSubnet.get(subnet) ?? '');
    const gateway = gatewayOf(table);
    if (gateway) out.set(subnet, gateway);
  }
  return out;
}

/**
 * subnet -> its network ACL's inbound entries, by rule number; undefined when no ACLs. A subnet's ACL is
 * the one it names (`NetworkAclId`), else the one associated with it, else its VPC's default ACL.
 */
function subnetAcls(lists: Lists): Map<string, Record_[]> | undefined {
  if (!lists.network_acls) return undefined;
  const inboundOf = (acl: Record_) =>
    (acl.Entries ?? [])
      .filter((e: Record_) => e.Egress !== true && e.Egress !== 'true')
      .sort((a: Record_, b: Record_) => Number(a.RuleNumber) - Number(b.RuleNumber));
  const out = new Map<string, Record_[]>();
  const byId = new Map<string, Record_[]>();
  const defaults = new Map<string, Record_[]>();
  for (const acl of lists.network_acls) {
    const inbound = inboundOf(acl);
    if (typeof acl.NetworkAclId === 'string') byId.set(acl.NetworkAclId, inbound);
    if (acl.IsDefault === true && typeof acl.VpcId === 'string') defaults.set(acl.VpcId, inbound);
    for (const a of acl.Associations ?? []) if (typeof a.SubnetId === 'string') out.set(a.SubnetId, inbound);
  }
  for (const subnet of lists.subnets ?? []) {
    if (typeof subnet.SubnetId !== 'string') continue;
    const named = typeof subnet.NetworkAclId === 'string' ? byId.get(subnet.NetworkAclId) : undefined;
    const acl = named ?? out.get(subnet.SubnetId) ?? defaults.get(subnet.VpcId);
    if (acl) out.set(subnet.SubnetId, acl);
  }
  return out;
}

const PROTOCOL_NUMBERS: Readonly<Record<string, string>> = { tcp: '6', udp: '17', icmp: '1', icmpv6: '58' };
const protocolNumber = (p: string) => PROTOCOL_NUMBERS[p.toLowerCase()] ?? p;

/**
 * As AWS evaluates a network ACL: entries in rule-number order, the first that matches decides. An entry
 * matches traffic from anywhere (0.0.0.0/0, ::/0) of its protocol (`-1` or absent: all) on a port of its
 * range (no range: all ports). No match: the final implicit deny.
 */
function aclAdmits(entries: Record_[], rule: Rule): boolean {
  for (const entry of entries) {
    if (entry.CidrBlock !== '0.0.0.0/0' && entry.Ipv6CidrBlock !== '::/0') continue;
    const protocol =
      entry.Protocol === undefined || entry.Protocol === null ? '-1' : protocolNumber(String(entry.Protocol));
    if (protocol !== '-1' && rule.protocol !== '-1' && protocol !== protocolNumber(rule.protocol)) continue;
    const range = entry.PortRange as { From?: number; To?: number } | undefined;
    const from = Number(range?.From ?? 0);
    const to = Number(range?.To ?? 65535);
    if (range && rule.protocol !== '-1' && (to < rule.from || from > rule.to)) continue;
    return String(entry.RuleAction).toLowerCase() === 'allow';
  }
  return false;
}
