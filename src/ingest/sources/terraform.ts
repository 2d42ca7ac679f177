// Source `terraform`: a plan as `terraform show -json <planfile>` prints it (format_version 0.1 to 1.x), read as
// the estate it will leave: `planned_values` (every resource the configuration manages, after the change,
// modules included) and `resource_changes` (what it deletes). Infrastructure as code is gated before it
// is applied: the resources are laid onto the SAME nodes the cloud sources name, by handing them to those
// sources in the shapes they read:
// - security groups (`aws_security_group` with inline rules, `aws_security_group_rule`,
//   `aws_vpc_security_group_ingress_rule`), instances (`aws_instance`) and their profiles
//   (`aws_iam_instance_profile`) to `cloudnet` (exposure, SG-to-SG reachability, instance roles);
// - roles, users and groups (`aws_iam_role`, `aws_iam_user`, `aws_iam_group`, group memberships), policies
//   (`aws_iam_policy`), their inline and attached policies (`aws_iam_<kind>_policy`,
//   `aws_iam_<kind>_policy_attachment`, `aws_iam_policy_attachment`) to `iam` (trust, escalation primitives);
// - buckets (`aws_s3_bucket`, its `aws_s3_bucket_acl`, `aws_s3_bucket_policy` and
//   `aws_s3_bucket_public_access_block`), RDS instances (`aws_db_instance`, and an Aurora cluster's
//   `aws_rds_cluster_instance`, with its `aws_rds_cluster`'s tags) and load balancers (`aws_lb`) as `custodian`
//   names and marks them. A bucket is exposed by a public ACL or by a policy letting anyone (`Principal: "*"`)
//   reach its data under no condition that confines it (src/markers/exposure.ts); a database by
//   `publicly_accessible` alone, as custodian reads `PubliclyAccessible` (its security groups do not decide).
// A load balancer ROUTES_TO the instances its listeners forward to (`aws_lb_listener`'s default action and
// `aws_lb_listener_rule`s, through `aws_lb_target_group`s and their `aws_lb_target_group_attachment`s), so an
// internet-facing load balancer in front of private instances is a route to them. An instance whose group a
// database's groups admit (by group, as cloudnet reads instance to instance) CONNECTS_TO the database.
// Names are qualified by the account (`?account=`, else the account in the plan's ARNs; without either,
// no name is, the plan's roles included: ARNs built here leave the account empty). A plan states
// each resource it manages completely, so an instance whose groups the plan holds and none opens, or that
// has no public address, a database not publicly accessible, a bucket no ACL or policy opens, is stated not
// exposed (`internet_exposed: false`): a plan that closes a route is seen closing it. A bucket policy from an
// `aws_iam_policy_document` read at apply is read from the statements the plan holds for it; one known only
// after apply otherwise leaves the bucket's exposure unstated. `?region=` (pathgate gate -region) is the region of resources the plan does not
// place.
// A state as `terraform show -json` prints it (`values.root_module`, no `planned_values`) is read as what is
// deployed, through the same mapping, so that a state and a plan of the same module name the same nodes. It
// differs from a plan in what it lacks and what it knows: no `resource_changes` (nothing is deleted), no
// `configuration` (resources point at each other only by their values: ids, names, ARNs, all known in a
// state), a public address that is known (`public_ip`, empty when there is none), a bucket's ACL as S3
// holds it (`grant`), and the region is the one its ARNs name.
import { crownJewel, readTags } from '../../markers/crown-jewel.js';
import { accountParameter, parseIamArn, qualify } from './account.js';
import { createCloudnetSource } from './cloudnet.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { createIamSource } from './iam.js';
import { isRawState, showJsonOfRawState } from './terraform-state.js';
import type { IngestSource } from './source.js';
import { bucketNodes } from './terraform/buckets.js';
import {
  blockReferences,
  idOf,
  isState,
  ofType,
  planResources,
  pointed,
  readPlan,
  references,
  tagList,
  type PlanResource,
  type Values,
} from './terraform/plan-walk.js';

export function createTerraformSource(): IngestSource {
  const cloudnet = createCloudnetSource();
  const iam = createIamSource();
  return {
    name: 'terraform',
    version: '2',
    description:
      'A Terraform plan (terraform show -json): security groups, instances and profiles, IAM roles and policies, buckets and their policies, RDS databases and load balancers, on the cloud sources’ nodes.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      // A raw `terraform.tfstate` is read as `terraform show -json` prints it (terraform-state.ts).
      const plan = readPlan(isRawState(body) ? showJsonOfRawState(body as Values) : body);
      const resources = planResources(plan);
      const account = accountParameter(query) ?? accountOf(resources);
      const region =
        regionOf(plan) ?? (isState(plan) ? arnRegionOf(resources) : undefined) ?? query.region ?? undefined;
      const byType = (type: string) => ofType(resources, type);
      const warnings: string[] = [];
      const envelopes = [];

      // Network: groups and their rules, instances, profiles, in cloudnet's shapes.
      const groups = securityGroups(resources, plan);
      const instances = byType('aws_instance');
      const profiles = byType('aws_iam_instance_profile');
      /** Each instance's VirtualMachine node, by its address: what load balancers route to. */
      const machines = new Map<string, string>();
      const reservations = instances.map((r) => instanceRecord(r, plan, account));
      // The first reservation of an id, as a scan would find it.
      const reservationById = new Map<unknown, Values>();
      for (const r of reservations)
        if (!reservationById.has(r.InstanceId)) reservationById.set(r.InstanceId, r);
      if (instances.length || groups.size) {
        const network = cloudnet.normalize({
          body: {
            provider: 'aws',
            security_groups: [...groups.values()],
            instances: reservations,
            vpc_peerings: [],
            instance_profiles: profiles.map((p) => ({
              InstanceProfileName: p.values.name ?? p.name,
              Roles: [roleOfProfile(p, plan, account)].filter(Boolean),
            })),
          },
          query: account ? { account } : {},
          receivedAt,
        });
        // A plan states the instances it manages completely: what it does not open is closed.
        for (const envelope of network.envelopes) {
          for (const node of envelope.nodes) {
            if (node.label !== 'VirtualMachine') continue;
            // By instance id: two instances may share a Name tag (src/identity/vm-name.ts).
            const record = reservationById.get(node.properties?.instance_id);
            if (!record) continue;
            const allKnown = record.SecurityGroups.every((g: Values) => groups.has(g.GroupId));
            const reachable = typeof record.PublicIpAddress === 'string' && !record.deleted;
            const props = node.properties ?? (node.properties = {});
            props.region ??= region;
            props.terraform_address = record.address;
            machines.set(record.address, node.id!);
            if (props.internet_exposed === true && !reachable) {
              props.internet_exposed = false;
              props.exposure_basis = record.deleted
                ? 'terraform:deleted'
                : record.noRoute
                  ? 'terraform:no-internet-route'
                  : 'terraform:no-public-address';
            } else if (props.internet_exposed !== true && (allKnown || !reachable)) {
              props.internet_exposed = false;
              props.exposure_basis = record.deleted
                ? 'terraform:deleted'
                : record.noRoute
                  ? 'terraform:no-internet-route'
                  : 'terraform:no-open-group';
            }
          }
          envelopes.push(envelope);
        }
        warnings.push(...network.warnings);
      }

      // IAM: users, groups and roles, their inline and attached policies, customer managed policies, in
      // iam's shapes.
      const principals = ['aws_iam_role', 'aws_iam_user', 'aws_iam_group'].flatMap(byType);
      if (principals.some((r) => !r.deleted)) {
        const identity = iam.normalize({
          body: authorizationDetails(resources, plan, account),
          query: account ? { account } : {},
          receivedAt,
        });
        envelopes.push(...identity.envelopes);
        warnings.push(...identity.warnings);
      }

      // Buckets and load balancers, named as custodian names them.
      const out = new EnvelopeBuilder('terraform', 'asset', receivedAt);
      bucketNodes(out, resources, plan, account, region);
      // Databases: each RDS instance (`aws_db_instance`, an Aurora cluster's `aws_rds_cluster_instance`) as the
      // Database custodian draws for it (DescribeDBInstances: one per instance, named by its identifier), exposed
      // as custodian reads it, by `publicly_accessible` alone. A plan states it completely: one not publicly
      // accessible, or deleted, is stated closed.
      const clusters = byType('aws_rds_cluster');
      for (const db of [...byType('aws_db_instance'), ...byType('aws_rds_cluster_instance')]) {
        const name = dbIdentifier(db);
        const cluster = db.type === 'aws_rds_cluster_instance' ? clusterOf(db, clusters, plan) : undefined;
        // An Aurora instance holds its cluster's data: the cluster's tags mark it where its own say nothing.
        const tags = readTags({ ...(cluster?.values.tags ?? {}), ...(db.values.tags ?? {}) });
        const open = db.values.publicly_accessible === true && !db.deleted;
        const marker = crownJewel({ label: 'Database', name, tags });
        const database = out.node('Database', qualify(name, account), {
          account,
          region,
          terraform_address: db.address,
          engine: db.values.engine ?? cluster?.values.engine,
          arn: db.values.arn,
          db_cluster: cluster ? clusterIdentifier(cluster) : undefined,
          publicly_accessible: open,
          internet_exposed: open,
          exposure_basis: open
            ? 'publicly-accessible'
            : db.deleted
              ? 'terraform:deleted'
              : 'terraform:not-publicly-accessible',
          ...(marker.crown_jewel !== undefined || !cluster
            ? marker
            : crownJewel({ label: 'Database', name: clusterIdentifier(cluster), tags: {} })),
        });
        // Who reaches it: the instances of a group its own groups admit (an Aurora instance's are its
        // cluster's), as cloudnet draws instance to instance.
        if (db.deleted) continue;
        for (const [from, via] of admittedInstances(
          pointed(plan, resources, cluster ?? db, 'vpc_security_group_ids'),
          groups,
          reservations,
        )) {
          const machine = machines.get(from);
          if (machine) out.edge('CONNECTS_TO', machine, database, { properties: { via } });
        }
      }
      const instancesOf = new Set(
        byType('aws_rds_cluster_instance').map((i) => clusterOf(i, clusters, plan)?.address),
      );
      const bare = clusters.filter((c) => !c.deleted && !instancesOf.has(c.address));
      if (bare.length)
        warnings.push(
          `terraform ${isState(plan) ? 'state' : 'plan'}: RDS clusters with no aws_rds_cluster_instance in the ` +
            `document (no database drawn): ${bare.map((c) => c.address).join(', ')}`,
        );
      const targets = loadBalancerTargets(resources, plan);
      for (const lb of [...byType('aws_lb'), ...byType('aws_alb')]) {
        const name = lb.values.name;
        if (typeof name !== 'string') continue;
        const external = lb.values.internal === false && !lb.deleted;
        const id = out.node('LoadBalancer', qualify(name, account), {
          account,
          region,
          terraform_address: lb.address,
          scheme: lb.values.internal === false ? 'internet-facing' : 'internal',
          internet_exposed: external,
          ...(external && { exposure_basis: 'scheme:internet-facing' }),
          ...crownJewel({ label: 'LoadBalancer', name, tags: readTags(tagList(lb.values.tags)) }),
        });
        // What its listeners forward to: the instances registered in those target groups.
        if (!lb.deleted)
          for (const { instance, targetGroup } of targets.get(lb.address) ?? []) {
            const machine = machines.get(instance);
            if (machine) out.edge('ROUTES_TO', id, machine, { properties: { target_group: targetGroup } });
          }
      }
      const own = out.build();
      if (own.nodes.length) envelopes.push(own);
      for (const envelope of envelopes) envelope.source = 'terraform';
      const read = new Set([...READ_TYPES]);
      const skipped = [...new Set(resources.map((r) => r.type).filter((t) => !read.has(t)))];
      if (skipped.length)
        warnings.push(
          `terraform ${isState(plan) ? 'state' : 'plan'}: resource types not read: ${skipped.sort().join(', ')}`,
        );
      return { envelopes, warnings };
    },
  };
}

const READ_TYPES = [
  'aws_security_group',
  'aws_security_group_rule',
  'aws_vpc_security_group_ingress_rule',
  'aws_vpc_security_group_egress_rule',
  'aws_instance',
  'aws_eip',
  'aws_eip_association',
  'aws_subnet',
  'aws_vpc',
  'aws_route_table',
  'aws_default_route_table',
  'aws_route',
  'aws_route_table_association',
  'aws_main_route_table_association',
  'aws_internet_gateway',
  'aws_iam_instance_profile',
  'aws_iam_role',
  'aws_iam_policy',
  'aws_iam_role_policy',
  'aws_iam_role_policy_attachment',
  'aws_iam_user',
  'aws_iam_user_policy',
  'aws_iam_user_policy_attachment',
  'aws_iam_group',
  'aws_iam_group_policy',
  'aws_iam_group_policy_attachment',
  'aws_iam_group_membership',
  'aws_iam_user_group_membership',
  'aws_iam_policy_attachment',
  'aws_s3_bucket',
  'aws_s3_bucket_acl',
  'aws_s3_bucket_public_access_block',
  'aws_s3_bucket_policy',
  'aws_db_instance',
  'aws_rds_cluster',
  'aws_rds_cluster_instance',
  'aws_lb',
  'aws_alb',
  'aws_lb_listener',
  'aws_alb_listener',
  'aws_lb_listener_rule',
  'aws_alb_listener_rule',
  'aws_lb_target_group',
  'aws_alb_target_group',
  'aws_lb_target_group_attachment',
  'aws_alb_target_group_attachment',
];

/** The account: the first account named by an ARN in the plan's values. */
function accountOf(resources: PlanResource[]): string | undefined {
  for (const r of resources) {
    const arn = r.values.arn;
    if (typeof arn !== 'string') continue;
    const iamArn = parseIamArn(arn);
    if (iamArn) return iamArn.account;
    const account = /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):/.exec(arn)?.[1];
    if (account) return account;
  }
  return undefined;
}

/** A state's region: the first region named by an ARN of its resources (a state holds no configuration). */
function arnRegionOf(resources: PlanResource[]): string | undefined {
  for (const r of resources) {
    const region =
      typeof r.values.arn === 'string' &&
      /^arn:aws[a-z-]*:[a-z0-9-]+:([a-z]{2}(?:-[a-z]+)+-\d):/.exec(r.values.arn)?.[1];
    if (region) return region;
  }
  return undefined;
}

function regionOf(plan: Values): string | undefined {
  const region = plan.configuration?.provider_config?.aws?.expressions?.region?.constant_value;
  return typeof region === 'string' ? region : undefined;
}

/** Security groups in DescribeSecurityGroups' shape, inline and standalone rules merged. */
function securityGroups(resources: PlanResource[], plan: Values): Map<string, Values> {
  const groups = new Map<string, Values>();
  const group = (id: string, from?: PlanResource) => {
    let g = groups.get(id);
    if (!g)
      groups.set(
        id,
        (g = { GroupId: id, GroupName: from?.values.name, VpcId: from?.values.vpc_id, IpPermissions: [] }),
      );
    return g;
  };
  for (const sg of resources.filter((r) => r.type === 'aws_security_group' && !r.deleted)) {
    const g = group(idOf(sg), sg);
    for (const rule of (sg.values.ingress ?? []) as Values[])
      g.IpPermissions.push(
        permission(rule.protocol, rule.from_port, rule.to_port, rule.cidr_blocks, rule.ipv6_cidr_blocks, [
          ...(rule.security_groups ?? []),
          ...(rule.self ? [idOf(sg)] : []),
        ]),
      );
  }
  for (const rule of resources.filter((r) => r.type === 'aws_security_group_rule' && !r.deleted)) {
    if (rule.values.type !== 'ingress') continue;
    for (const target of pointed(plan, resources, rule, 'security_group_id'))
      group(target).IpPermissions.push(
        permission(
          rule.values.protocol,
          rule.values.from_port,
          rule.values.to_port,
          rule.values.cidr_blocks,
          rule.values.ipv6_cidr_blocks,
          [
            ...pointed(plan, resources, rule, 'source_security_group_id'),
            ...(rule.values.self ? [target] : []),
          ],
        ),
      );
  }
  for (const rule of resources.filter(
    (r) => r.type === 'aws_vpc_security_group_ingress_rule' && !r.deleted,
  )) {
    for (const target of pointed(plan, resources, rule, 'security_group_id'))
      group(target).IpPermissions.push(
        permission(
          rule.values.ip_protocol,
          rule.values.from_port,
          rule.values.to_port,
          rule.values.cidr_ipv4 ? [rule.values.cidr_ipv4] : [],
          rule.values.cidr_ipv6 ? [rule.values.cidr_ipv6] : [],
          pointed(plan, resources, rule, 'referenced_security_group_id'),
        ),
      );
  }
  return groups;
}

function permission(
  protocol: unknown,
  from: unknown,
  to: unknown,
  cidrs: unknown,
  cidrs6: unknown,
  groups: string[],
): Values {
  const all = protocol === '-1' || protocol === 'all' || protocol === -1;
  return {
    IpProtocol: all ? '-1' : String(protocol ?? 'tcp'),
    ...(!all && typeof from === 'number' && { FromPort: from }),
    ...(!all && typeof to === 'number' && { ToPort: to }),
    IpRanges: (Array.isArray(cidrs) ? cidrs : []).map((CidrIp: string) => ({ CidrIp })),
    Ipv6Ranges: (Array.isArray(cidrs6) ? cidrs6 : []).map((CidrIpv6: string) => ({ CidrIpv6 })),
    UserIdGroupPairs: groups.map((GroupId) => ({ GroupId })),
  };
}

/** An instance in DescribeInstances' shape. */
function instanceRecord(r: PlanResource, plan: Values, account: string | undefined): Values {
  const v = r.values;
  const groups = [
    ...pointedAll(plan, r, 'vpc_security_group_ids'),
    ...[v.security_groups ?? []].flat().filter((g: unknown) => typeof g === 'string' && g.startsWith('sg-')),
  ];
  // A public address is given at launch when asked for, or, unless refused, by a subnet the plan creates
  // with `map_public_ip_on_launch` (the plan knows neither address until apply). A state knows the address
  // the instance holds, none when empty: what it was launched with is no longer the question.
  // An Elastic IP associated with it gives it one either way (`aws_eip.instance`, `aws_eip_association`).
  // Whatever address it holds, a subnet whose routes reach no internet gateway is closed to the internet.
  const noRoute = internetRoute(plan, r) === 'none';
  const publicAddress = noRoute
    ? undefined
    : typeof v.public_ip === 'string' && v.public_ip
      ? v.public_ip
      : (elasticIpOf(plan, r) ??
        (isState(plan)
          ? undefined
          : v.associate_public_ip_address === true ||
              (v.associate_public_ip_address !== false && mapsPublicIp(plan, r))
            ? 'assigned-at-launch'
            : undefined));
  const profile = typeof v.iam_instance_profile === 'string' ? v.iam_instance_profile : undefined;
  const profileName = profile ? profile.split('/').pop() : referencedProfile(plan, r);
  return {
    address: r.address,
    deleted: r.deleted,
    noRoute,
    InstanceId: typeof v.id === 'string' ? v.id : r.address,
    OwnerId: account,
    SubnetId: v.subnet_id,
    PublicIpAddress: publicAddress,
    SecurityGroups: [...new Set(groups)].map((GroupId) => ({ GroupId })),
    ...(profileName && {
      IamInstanceProfile: {
        Arn: `arn:aws:iam::${account ?? ''}:instance-profile/${profileName}`,
      },
    }),
    MetadataOptions: { HttpTokens: v.metadata_options?.[0]?.http_tokens },
    Tags: Object.entries<string>(v.tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
  };
  function pointedAll(p: Values, res: PlanResource, attribute: string): string[] {
    const value = res.values[attribute];
    if (Array.isArray(value) && value.every((x) => typeof x === 'string')) return value;
    const resources = planResources(p);
    return pointed(p, resources, res, attribute);
  }
}

/**
 * The Elastic IP the plan or state associates with an instance: by `aws_eip`'s `instance`, or an
 * `aws_eip_association`'s `instance_id`, written or by reference; its address when known, else
 * `elastic-ip` (allocated at apply). Undefined when none is.
 */
function elasticIpOf(plan: Values, r: PlanResource): string | undefined {
  const resources = planResources(plan);
  const ids = new Set([r.address, idOf(r)]);
  const eips = resources.filter((x) => x.type === 'aws_eip' && !x.deleted);
  const eipFor = (eip: PlanResource) =>
    typeof eip.values.public_ip === 'string' && eip.values.public_ip ? eip.values.public_ip : 'elastic-ip';
  for (const eip of eips)
    if (pointed(plan, resources, eip, 'instance').some((ref) => ids.has(ref))) return eipFor(eip);
  for (const association of resources.filter((x) => x.type === 'aws_eip_association' && !x.deleted)) {
    if (!pointed(plan, resources, association, 'instance_id').some((ref) => ids.has(ref))) continue;
    const [allocation] = pointed(plan, resources, association, 'allocation_id');
    const eip = eips.find((x) => x.address === allocation || idOf(x) === allocation);
    return eip ? eipFor(eip) : 'elastic-ip';
  }
  return undefined;
}

/**
 * Whether the plan says the instance's subnet routes to the internet: `igw` when its route table sends
 * 0.0.0.0/0 (or ::/0) to an internet gateway, `none` when the plan holds the subnet and its table and no such
 * route (only local routes, or a NAT gateway's), undefined when the plan cannot tell (the subnet or its table
 * is not the plan's, a route's target is known only after apply). A subnet with no table of its own uses its
 * VPC's main table: the one `aws_main_route_table_association` names, the VPC's `aws_default_route_table`, or
 * for a VPC of the plan with neither, the table AWS makes with it, which routes nowhere outside.
 */
function internetRoute(plan: Values, r: PlanResource): 'igw' | 'none' | undefined {
  const resources = planResources(plan);
  const live = resources.filter((x) => !x.deleted);
  const find = (types: string[], ref: string | undefined) =>
    ref === undefined
      ? undefined
      : live.find((x) => types.includes(x.type) && (x.address === ref || idOf(x) === ref));
  const refersTo = (x: PlanResource, attribute: string, target: PlanResource) =>
    pointed(plan, resources, x, attribute).some((ref) => ref === target.address || ref === idOf(target));
  const subnet = find(['aws_subnet'], pointed(plan, resources, r, 'subnet_id')[0]);
  if (!subnet) return undefined;
  const tables = ['aws_route_table', 'aws_default_route_table'];
  let table: PlanResource | undefined;
  const association = live.find(
    (x) => x.type === 'aws_route_table_association' && refersTo(x, 'subnet_id', subnet),
  );
  if (association) {
    table = find(tables, pointed(plan, resources, association, 'route_table_id')[0]);
    if (!table) return undefined;
  } else {
    const vpc = find(['aws_vpc'], pointed(plan, resources, subnet, 'vpc_id')[0]);
    if (!vpc) return undefined;
    const main = live.find(
      (x) => x.type === 'aws_main_route_table_association' && refersTo(x, 'vpc_id', vpc),
    );
    table = main
      ? find(tables, pointed(plan, resources, main, 'route_table_id')[0])
      : live.find(
          (x) =>
            x.type === 'aws_default_route_table' &&
            pointed(plan, resources, x, 'default_route_table_id').some(
              (ref) => ref === vpc.address || ref === idOf(vpc) || ref === vpc.values.default_route_table_id,
            ),
        );
    if (!table && main) return undefined;
    if (!table) return 'none';
  }
  // The table's routes: its inline `route` blocks (a list once known) and the `aws_route`s pointing at it.
  const inline = table.values.route;
  if (!Array.isArray(inline)) return undefined;
  const inlineRefs = blockReferences(plan, table.address, 'route', 'gateway_id');
  const routes = [
    ...(inline as Values[]).map((route, i) => ({
      destination: route.cidr_block ?? route.ipv6_cidr_block,
      gateway: route.gateway_id,
      refs: inlineRefs[i] ?? [],
      other:
        route.nat_gateway_id ??
        route.transit_gateway_id ??
        route.vpc_peering_connection_id ??
        route.network_interface_id,
    })),
    ...live
      .filter((x) => x.type === 'aws_route' && refersTo(x, 'route_table_id', table!))
      .map((x) => ({
        destination: x.values.destination_cidr_block ?? x.values.destination_ipv6_cidr_block,
        gateway: x.values.gateway_id,
        refs: references(plan, x.address, 'gateway_id'),
        other:
          x.values.nat_gateway_id ??
          x.values.transit_gateway_id ??
          x.values.vpc_peering_connection_id ??
          x.values.network_interface_id,
      })),
  ];
  let unknown = false;
  for (const route of routes) {
    if (route.destination !== '0.0.0.0/0' && route.destination !== '::/0') continue;
    if (typeof route.gateway === 'string' && route.gateway.startsWith('igw-')) return 'igw';
    if (
      route.refs.some(
        (ref) => ref.startsWith('aws_internet_gateway.') || ref.includes('.aws_internet_gateway.'),
      )
    )
      return 'igw';
    // A default route to a NAT gateway, a peering or an appliance reaches out, not in.
    if (typeof route.other === 'string' && route.other) continue;
    if (typeof route.gateway !== 'string' || !route.gateway) unknown = true;
  }
  return unknown ? undefined : 'none';
}

/** The instance's subnet is one the plan manages and it maps a public address to what launches in it. */
function mapsPublicIp(plan: Values, r: PlanResource): boolean {
  const resources = planResources(plan);
  const [subnet] = pointed(plan, resources, r, 'subnet_id');
  return resources.some(
    (x) =>
      x.type === 'aws_subnet' &&
      !x.deleted &&
      (x.address === subnet || idOf(x) === subnet) &&
      x.values.map_public_ip_on_launch === true,
  );
}

/** A new profile the instance refers to by expression: its name. */
function referencedProfile(plan: Values, r: PlanResource): string | undefined {
  const resources = planResources(plan);
  const [ref] = pointed(plan, resources, r, 'iam_instance_profile');
  const profile = resources.find(
    (x) => x.type === 'aws_iam_instance_profile' && (x.address === ref || idOf(x) === ref),
  );
  return profile?.values.name ?? undefined;
}

function roleOfProfile(p: PlanResource, plan: Values, account: string | undefined): Values | undefined {
  const resources = planResources(plan);
  const role = typeof p.values.role === 'string' ? p.values.role : undefined;
  const name =
    role ??
    resources
      .filter((x) => x.type === 'aws_iam_role' && pointed(plan, resources, p, 'role').includes(idOf(x)))
      .map(roleNameOf)[0];
  if (typeof name !== 'string') return undefined;
  return { RoleName: name, Arn: `arn:aws:iam::${account ?? ''}:role/${name}` };
}

/**
 * A role's name: as configured, else (Terraform names it at apply, `terraform-<timestamp>`) its address, as
 * an instance whose id is known only after apply is named, so that its policies and escalations are read.
 */
function roleNameOf(role: PlanResource): string {
  return typeof role.values.name === 'string' && role.values.name ? role.values.name : role.address;
}

/** The plan's IAM as `aws iam get-account-authorization-details` prints it: users, groups, roles, policies. */
function authorizationDetails(resources: PlanResource[], plan: Values, account: string | undefined): Values {
  const live = resources.filter((r) => !r.deleted);
  const policyArn = (p: PlanResource) =>
    typeof p.values.arn === 'string' ? p.values.arn : `arn:aws:iam::${account ?? ''}:policy/${p.values.name}`;
  const policies = live.filter((r) => r.type === 'aws_iam_policy');
  /** The names an attribute gives (`role`, `user`, `users`, `groups`): as written, or of the resources it refers to. */
  const namesIn = (r: PlanResource, attribute: string, type: string): string[] => {
    const value = r.values[attribute];
    const known = [value].flat().filter((v): v is string => typeof v === 'string');
    if (known.length) return known;
    return pointed(plan, resources, r, attribute).flatMap((ref) => {
      const target = live.find((x) => x.type === type && (x.address === ref || idOf(x) === ref));
      return target ? [roleNameOf(target)] : [];
    });
  };
  const attachedArn = (r: PlanResource) => {
    if (typeof r.values.policy_arn === 'string') return r.values.policy_arn;
    const [ref] = pointed(plan, resources, r, 'policy_arn');
    const policy = policies.find((p) => p.address === ref || idOf(p) === ref);
    return policy ? policyArn(policy) : undefined;
  };
  /**
   * What one principal holds: inline policies (`<kind>_policy`, and a role's `inline_policy` blocks), managed
   * policies attached to it (`<kind>_policy_attachment`, an exclusive `aws_iam_policy_attachment` naming it).
   */
  const held = (kind: 'role' | 'user' | 'group', name: string, principal: PlanResource) => {
    const type = `aws_iam_${kind}`;
    const inline = [
      ...((principal.values.inline_policy ?? []) as Values[]).filter((p) => p.policy),
      ...live
        .filter((r) => r.type === `${type}_policy` && namesIn(r, kind, type).includes(name))
        .map((r) => ({ name: r.values.name ?? r.name, policy: r.values.policy })),
    ];
    const attached = [
      ...((principal.values.managed_policy_arns ?? []) as string[]),
      ...live
        .filter(
          (r) =>
            (r.type === `${type}_policy_attachment` && namesIn(r, kind, type).includes(name)) ||
            (r.type === 'aws_iam_policy_attachment' && namesIn(r, `${kind}s`, type).includes(name)),
        )
        .map(attachedArn)
        .filter((a): a is string => typeof a === 'string'),
    ];
    return {
      inline: inline.map((p) => ({ PolicyName: p.name, PolicyDocument: p.policy })),
      attached: [...new Set(attached)].map((PolicyArn) => ({
        PolicyArn,
        PolicyName: PolicyArn.split('/').pop(),
      })),
    };
  };
  const arnOf = (principal: PlanResource, kind: string, name: string) =>
    typeof principal.values.arn === 'string'
      ? principal.values.arn
      : `arn:aws:iam::${account ?? ''}:${kind}/${name}`;
  const tagsOf = (principal: PlanResource) =>
    Object.entries<string>(principal.values.tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
  /** A user's groups: by `aws_iam_group_membership` (a group's users) and `aws_iam_user_group_membership`. */
  const groupsOf = (user: string) => [
    ...new Set([
      ...live
        .filter(
          (r) => r.type === 'aws_iam_group_membership' && namesIn(r, 'users', 'aws_iam_user').includes(user),
        )
        .flatMap((r) => namesIn(r, 'group', 'aws_iam_group')),
      ...live
        .filter(
          (r) =>
            r.type === 'aws_iam_user_group_membership' && namesIn(r, 'user', 'aws_iam_user').includes(user),
        )
        .flatMap((r) => namesIn(r, 'groups', 'aws_iam_group')),
    ]),
  ];
  return {
    UserDetailList: live
      .filter((r) => r.type === 'aws_iam_user')
      .map((user) => {
        const name = roleNameOf(user);
        const { inline, attached } = held('user', name, user);
        return {
          UserName: name,
          Arn: arnOf(user, 'user', name),
          UserPolicyList: inline,
          AttachedManagedPolicies: attached,
          GroupList: groupsOf(name),
          Tags: tagsOf(user),
        };
      }),
    GroupDetailList: live
      .filter((r) => r.type === 'aws_iam_group')
      .map((group) => {
        const name = roleNameOf(group);
        const { inline, attached } = held('group', name, group);
        return {
          GroupName: name,
          Arn: arnOf(group, 'group', name),
          GroupPolicyList: inline,
          AttachedManagedPolicies: attached,
        };
      }),
    RoleDetailList: live
      .filter((r) => r.type === 'aws_iam_role')
      .map((role) => {
        const name = roleNameOf(role);
        const { inline, attached } = held('role', name, role);
        return {
          RoleName: name,
          Arn: arnOf(role, 'role', name),
          AssumeRolePolicyDocument: role.values.assume_role_policy,
          RolePolicyList: inline,
          AttachedManagedPolicies: attached,
          InstanceProfileList: live
            .filter(
              (r) =>
                r.type === 'aws_iam_instance_profile' && namesIn(r, 'role', 'aws_iam_role').includes(name),
            )
            .map((p) => ({ InstanceProfileName: p.values.name ?? p.name })),
          Tags: tagsOf(role),
        };
      }),
    Policies: policies.map((p) => ({
      PolicyName: p.values.name,
      Arn: policyArn(p),
      DefaultVersionId: 'v1',
      PolicyVersionList: [{ VersionId: 'v1', IsDefaultVersion: true, Document: p.values.policy }],
    })),
  };
}

/**
 * The instances (by address) a resource's security groups admit by group (`UserIdGroupPairs`), each with the
 * rule that admits it (`<their group>-><its group>`); the first rule found for each instance.
 */
function admittedInstances(
  groupIds: readonly string[],
  groups: ReadonlyMap<string, Values>,
  instances: readonly Values[],
): Map<string, string> {
  const admitted = new Map<string, string>();
  for (const id of groupIds)
    for (const permission of (groups.get(id)?.IpPermissions ?? []) as Values[])
      for (const pair of (permission.UserIdGroupPairs ?? []) as Values[])
        for (const instance of instances) {
          if (instance.deleted || admitted.has(instance.address)) continue;
          if ((instance.SecurityGroups as Values[]).some((g) => g.GroupId === pair.GroupId))
            admitted.set(instance.address, `${pair.GroupId}->${id}`);
        }
  return admitted;
}

/**
 * The resource of `pool` an attribute names: by its value (an ARN or id, known in a state and for existing
 * resources) or, for one Terraform creates, by the reference the configuration records (`refs`).
 */
function named(
  value: unknown,
  refs: readonly string[],
  pool: readonly PlanResource[],
): PlanResource | undefined {
  return pool.find(
    (p) =>
      (typeof value === 'string' && value !== '' && (value === p.values.arn || value === p.values.id)) ||
      refs.some((ref) => ref === p.address || ref.startsWith(`${p.address}.`)),
  );
}

/**
 * For each load balancer (by address), the instances its listeners forward to: a listener's `default_action`
 * (and its rules' `action`s) of type forward name target groups (`target_group_arn`, or a `forward` block's
 * weighted `target_group`s), and each target group's `aws_lb_target_group_attachment`s register instances
 * (`target_id`). Deleted listeners, rules and attachments forward nothing; a target that is no instance of
 * the document (an IP, a Lambda function) is left out.
 */
function loadBalancerTargets(
  resources: PlanResource[],
  plan: Values,
): Map<string, { instance: string; targetGroup: string }[]> {
  const live = (...types: string[]) => resources.filter((r) => types.includes(r.type) && !r.deleted);
  const lbs = live('aws_lb', 'aws_alb');
  const groups = live('aws_lb_target_group', 'aws_alb_target_group');
  const listeners = live('aws_lb_listener', 'aws_alb_listener');
  const instances = live('aws_instance');
  /** The target groups a resource's action blocks forward to. */
  const forwarded = (r: PlanResource, block: 'default_action' | 'action'): PlanResource[] => {
    const actions = (Array.isArray(r.values[block]) ? r.values[block] : []) as Values[];
    const refs = blockReferences(plan, r.address, block, 'target_group_arn');
    return actions.flatMap((action, i) => {
      if (action?.type !== undefined && action.type !== 'forward') return [];
      const weighted = ((action?.forward ?? []) as Values[]).flatMap(
        (f) => (f?.target_group ?? []) as Values[],
      );
      return [
        named(action?.target_group_arn, refs[i] ?? [], groups),
        ...weighted.map((t) => named(t?.arn, [], groups)),
      ].filter((g): g is PlanResource => g !== undefined);
    });
  };
  const byLb = new Map<string, Set<PlanResource>>();
  const route = (lb: PlanResource | undefined, to: PlanResource[]) => {
    if (!lb) return;
    let set = byLb.get(lb.address);
    if (!set) byLb.set(lb.address, (set = new Set()));
    for (const g of to) set.add(g);
  };
  for (const listener of listeners)
    route(
      named(listener.values.load_balancer_arn, references(plan, listener.address, 'load_balancer_arn'), lbs),
      forwarded(listener, 'default_action'),
    );
  for (const rule of live('aws_lb_listener_rule', 'aws_alb_listener_rule')) {
    const listener = named(
      rule.values.listener_arn,
      references(plan, rule.address, 'listener_arn'),
      listeners,
    );
    if (!listener) continue;
    route(
      named(listener.values.load_balancer_arn, references(plan, listener.address, 'load_balancer_arn'), lbs),
      forwarded(rule, 'action'),
    );
  }
  const registered = new Map<string, string[]>();
  for (const attachment of live('aws_lb_target_group_attachment', 'aws_alb_target_group_attachment')) {
    const group = named(
      attachment.values.target_group_arn,
      references(plan, attachment.address, 'target_group_arn'),
      groups,
    );
    const instance = named(
      attachment.values.target_id,
      references(plan, attachment.address, 'target_id'),
      instances,
    );
    if (group && instance)
      registered.set(group.address, [...(registered.get(group.address) ?? []), instance.address]);
  }
  const out = new Map<string, { instance: string; targetGroup: string }[]>();
  for (const [lb, set] of byLb)
    out.set(
      lb,
      [...set].flatMap((g) =>
        (registered.get(g.address) ?? []).map((instance) => ({ instance, targetGroup: g.address })),
      ),
    );
  return out;
}

/**
 * An RDS instance's identifier, the name DescribeDBInstances gives it; else (Terraform names it at apply,
 * `terraform-<timestamp>`) its address, as a role with no name is.
 */
function dbIdentifier(db: PlanResource): string {
  return typeof db.values.identifier === 'string' && db.values.identifier ? db.values.identifier : db.address;
}

function clusterIdentifier(cluster: PlanResource): string {
  const id = cluster.values.cluster_identifier;
  return typeof id === 'string' && id ? id : cluster.address;
}

/** The `aws_rds_cluster` of the document an Aurora instance belongs to: by identifier, or by reference. */
function clusterOf(instance: PlanResource, clusters: PlanResource[], plan: Values): PlanResource | undefined {
  const named = instance.values.cluster_identifier;
  if (typeof named === 'string' && named)
    return clusters.find((c) => c.values.cluster_identifier === named || c.values.id === named);
  const refs = references(plan, instance.address, 'cluster_identifier');
  return clusters.find((c) => refs.some((ref) => ref === c.address || ref.startsWith(`${c.address}.`)));
}
