// An account's network state for the `cloudnet` source, in the shapes `aws ec2 describe-*` and
// `aws elbv2 describe-*` print: instances, security groups, subnets, route tables, network ACLs, VPC
// peerings, and the application/network load balancers with their listeners, target groups and the
// targets registered in each (`target_health`: `{TargetGroupArn, TargetHealthDescriptions}` per group,
// since DescribeTargetHealth answers for one group without naming it). Every list paged to its end.
import {
  paginateDescribeInstances,
  paginateDescribeNetworkAcls,
  paginateDescribeRouteTables,
  paginateDescribeSecurityGroups,
  paginateDescribeSubnets,
  paginateDescribeVpcPeeringConnections,
} from '@aws-sdk/client-ec2';
import {
  DescribeTargetHealthCommand,
  paginateDescribeListeners,
  paginateDescribeLoadBalancers,
  paginateDescribeTargetGroups,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { AccountClients } from './clients.js';
import { all, mapLimit, step } from './steps.js';

/** EC2's largest page (DescribeInstances takes 5..1000). */
const EC2_PAGE = 1000;
/** ELBv2's largest page. */
const ELB_PAGE = 400;
const AT_ONCE = 8;

export async function pullNetwork(
  clients: AccountClients,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const client = clients.ec2;
  const pages = { client, pageSize: EC2_PAGE };
  // A terminated instance stays in DescribeInstances for about an hour: gone, not a machine to reach.
  const reservations = (
    await step(signal, 'ec2:DescribeInstances', () =>
      all(signal, paginateDescribeInstances(pages, {}), (p) => p.Reservations),
    )
  )
    .map((r) => ({ ...r, Instances: r.Instances?.filter((i) => i.State?.Name !== 'terminated') }))
    .filter((r) => r.Instances?.length);
  const security_groups = await step(signal, 'ec2:DescribeSecurityGroups', () =>
    all(signal, paginateDescribeSecurityGroups(pages, {}), (p) => p.SecurityGroups),
  );
  const subnets = await step(signal, 'ec2:DescribeSubnets', () =>
    all(signal, paginateDescribeSubnets(pages, {}), (p) => p.Subnets),
  );
  const route_tables = await step(signal, 'ec2:DescribeRouteTables', () =>
    all(signal, paginateDescribeRouteTables({ client, pageSize: 100 }, {}), (p) => p.RouteTables),
  );
  const network_acls = await step(signal, 'ec2:DescribeNetworkAcls', () =>
    all(signal, paginateDescribeNetworkAcls({ client, pageSize: 1000 }, {}), (p) => p.NetworkAcls),
  );
  const vpc_peerings = await step(signal, 'ec2:DescribeVpcPeeringConnections', () =>
    all(
      signal,
      paginateDescribeVpcPeeringConnections({ client, pageSize: 1000 }, {}),
      (p) => p.VpcPeeringConnections,
    ),
  );

  const elb = { client: clients.elbv2, pageSize: ELB_PAGE };
  const load_balancers = await step(signal, 'elasticloadbalancing:DescribeLoadBalancers', () =>
    all(signal, paginateDescribeLoadBalancers(elb, {}), (p) => p.LoadBalancers),
  );
  // Per balancer and per group: one call each, eight at a time.
  const listeners = (
    await mapLimit(load_balancers, AT_ONCE, (lb) =>
      step(signal, 'elasticloadbalancing:DescribeListeners', () =>
        all(
          signal,
          paginateDescribeListeners(elb, { LoadBalancerArn: lb.LoadBalancerArn }),
          (p) => p.Listeners,
        ),
      ),
    )
  ).flat();
  const target_groups = await step(signal, 'elasticloadbalancing:DescribeTargetGroups', () =>
    all(signal, paginateDescribeTargetGroups(elb, {}), (p) => p.TargetGroups),
  );
  // Only the groups a load balancer forwards to can route anywhere.
  const target_health = await mapLimit(
    target_groups.filter((g) => g.LoadBalancerArns?.length),
    AT_ONCE,
    async (group) => {
      const answer = await step(signal, 'elasticloadbalancing:DescribeTargetHealth', () =>
        clients.elbv2.send(new DescribeTargetHealthCommand({ TargetGroupArn: group.TargetGroupArn }), {
          abortSignal: signal,
        }),
      );
      return {
        TargetGroupArn: group.TargetGroupArn,
        TargetHealthDescriptions: answer.TargetHealthDescriptions ?? [],
      };
    },
  );
  return {
    provider: 'aws',
    instances: { Reservations: reservations },
    security_groups,
    subnets,
    route_tables,
    network_acls,
    vpc_peerings,
    load_balancers,
    listeners,
    target_groups,
    target_health,
  };
}
