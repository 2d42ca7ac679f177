// Instances of a Terraform plan or state in the shape cloudnet reads (DescribeInstances), and what decides
// whether one holds a public address: the address it is given at launch or holds, an Elastic IP associated
// with it, a subnet that maps one, and whether its subnet's route table reaches an internet gateway at all.
// Its instance profile is named here too, written or referred to.
import {
  blockReferences,
  idOf,
  isState,
  planResources,
  pointed,
  references,
  type PlanResource,
  type Values,
} from './plan-walk.js';

/** An instance in DescribeInstances' shape. */
export function instanceRecord(r: PlanResource, plan: Values, account: string | undefined): Values {
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
