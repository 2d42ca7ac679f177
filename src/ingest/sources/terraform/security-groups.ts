// Security groups of a Terraform plan or state in the shape cloudnet reads (DescribeSecurityGroups): each
// `aws_security_group` with its inline rules, and the standalone rules (`aws_security_group_rule`,
// `aws_vpc_security_group_ingress_rule`) merged into the group they point at, so that cloudnet decides
// exposure and group-to-group reachability as it does for a scan.
import { idOf, pointed, type PlanResource, type Values } from './plan-walk.js';

/** Security groups in DescribeSecurityGroups' shape, inline and standalone rules merged. */
export function securityGroups(resources: PlanResource[], plan: Values): Map<string, Values> {
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
