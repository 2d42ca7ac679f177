// The load balancers of a `cloudnet` report (the `aws elbv2 describe-*` shapes): each application or
// network load balancer is a LoadBalancer node named `<account>/<name>`, as custodian and terraform name it
// (internet exposed when `internet-facing`), and ROUTES_TO the instances registered in the target groups it
// forwards to. Which groups a balancer forwards to is AWS's own association (DescribeTargetGroups'
// `LoadBalancerArns`: a group is associated with a balancer through a listener's or rule's forward action,
// so a redirecting or fixed-response listener adds none); the registered targets are DescribeTargetHealth's
// per group (`target_health: [{TargetGroupArn, TargetHealthDescriptions}]`). A target that is no instance
// of the report (an IP, a Lambda function, an instance not described) routes nowhere; `unused` targets
// (registered in a zone the balancer does not serve) neither.
import { qualify } from './account.js';
import type { EnvelopeBuilder } from './envelope-builder.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS API shapes, read field by field
type Record_ = Record<string, any>;

export interface BalancerLists {
  load_balancers?: Record_[];
  listeners?: Record_[];
  target_groups?: Record_[];
  target_health?: Record_[];
}

/** `arn:aws:elasticloadbalancing:<region>:<account>:loadbalancer/app/<name>/<id>` -> account */
function arnAccount(arn: unknown): string | undefined {
  return typeof arn === 'string'
    ? /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):/.exec(arn)?.[1]
    : undefined;
}

/** Draws the balancers and their routes; `instanceNode` names an instance of the report by its id. */
export function drawLoadBalancers(
  out: EnvelopeBuilder,
  lists: BalancerLists,
  instanceNode: (instanceId: string) => string | undefined,
  accountOf: (owner: unknown) => string | undefined,
): string[] {
  const warnings: string[] = [];
  const listenersOf = new Map<string, string[]>();
  for (const l of lists.listeners ?? [])
    if (typeof l.LoadBalancerArn === 'string')
      listenersOf.set(l.LoadBalancerArn, [
        ...(listenersOf.get(l.LoadBalancerArn) ?? []),
        `${l.Protocol ?? '?'}:${l.Port ?? '?'}`,
      ]);
  const balancers = new Map<string, string>();
  for (const lb of lists.load_balancers ?? []) {
    if (typeof lb.LoadBalancerName !== 'string' || typeof lb.LoadBalancerArn !== 'string') continue;
    const account = accountOf(arnAccount(lb.LoadBalancerArn));
    const external = lb.Scheme === 'internet-facing';
    balancers.set(
      lb.LoadBalancerArn,
      out.node('LoadBalancer', qualify(lb.LoadBalancerName, account), {
        account,
        arn: lb.LoadBalancerArn,
        scheme: lb.Scheme,
        lb_type: lb.Type,
        dns_name: lb.DNSName,
        vpc_id: lb.VpcId,
        listeners: listenersOf.get(lb.LoadBalancerArn)?.sort(),
        ...(external && { internet_exposed: true, exposure_basis: 'scheme:internet-facing' }),
      }),
    );
  }
  const targetsOf = new Map(
    (lists.target_health ?? []).map((h) => [
      h.TargetGroupArn,
      (h.TargetHealthDescriptions ?? []) as Record_[],
    ]),
  );
  const unknown = new Set<string>();
  for (const group of lists.target_groups ?? []) {
    const targets = (targetsOf.get(group.TargetGroupArn) ?? []).filter(
      (t) => typeof t.Target?.Id === 'string' && t.TargetHealth?.State !== 'unused',
    );
    for (const lbArn of group.LoadBalancerArns ?? []) {
      const lb = balancers.get(lbArn);
      if (!lb) continue;
      for (const target of targets) {
        const vm = instanceNode(target.Target.Id);
        if (!vm) {
          if (String(target.Target.Id).startsWith('i-')) unknown.add(target.Target.Id);
          continue;
        }
        out.edge('ROUTES_TO', lb, vm, {
          properties: {
            target_group: group.TargetGroupName ?? group.TargetGroupArn,
            port: target.Target.Port,
          },
        });
      }
    }
  }
  if (unknown.size)
    warnings.push(
      `cloudnet report: load balancer targets not among the report's instances (no route drawn): ${[
        ...unknown,
      ]
        .sort()
        .slice(0, 5)
        .join(', ')}${unknown.size > 5 ? ', ...' : ''}`,
    );
  return warnings;
}
