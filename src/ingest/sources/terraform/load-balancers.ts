// What a Terraform plan or state's load balancers forward to: through their listeners' and listener rules'
// forward actions to target groups, and through those groups' attachments to instances, so that the entry
// (terraform.ts) draws each load balancer's ROUTES_TO to the instances behind it.
import { blockReferences, references, type PlanResource, type Values } from './plan-walk.js';

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
export function loadBalancerTargets(
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
