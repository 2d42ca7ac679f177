// RDS databases of a Terraform plan or state: the identifier each is named by (as DescribeDBInstances names
// it, else its address), the `aws_rds_cluster` an Aurora instance belongs to, and the instances its security
// groups admit by group, from which the entry (terraform.ts) draws CONNECTS_TO as cloudnet draws instance to
// instance.
import { references, type PlanResource, type Values } from './plan-walk.js';

/**
 * The instances (by address) a resource's security groups admit by group (`UserIdGroupPairs`), each with the
 * rule that admits it (`<their group>-><its group>`); the first rule found for each instance.
 */
export function admittedInstances(
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
 * An RDS instance's identifier, the name DescribeDBInstances gives it; else (Terraform names it at apply,
 * `terraform-<timestamp>`) its address, as a role with no name is.
 */
export function dbIdentifier(db: PlanResource): string {
  return typeof db.values.identifier === 'string' && db.values.identifier ? db.values.identifier : db.address;
}

export function clusterIdentifier(cluster: PlanResource): string {
  const id = cluster.values.cluster_identifier;
  return typeof id === 'string' && id ? id : cluster.address;
}

/** The `aws_rds_cluster` of the document an Aurora instance belongs to: by identifier, or by reference. */
export function clusterOf(
  instance: PlanResource,
  clusters: PlanResource[],
  plan: Values,
): PlanResource | undefined {
  const named = instance.values.cluster_identifier;
  if (typeof named === 'string' && named)
    return clusters.find((c) => c.values.cluster_identifier === named || c.values.id === named);
  const refs = references(plan, instance.address, 'cluster_identifier');
  return clusters.find((c) => refs.some((ref) => ref === c.address || ref.startsWith(`${c.address}.`)));
}
