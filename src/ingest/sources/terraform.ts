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
import { accountParameter, qualify } from './account.js';
import { createCloudnetSource } from './cloudnet.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { createIamSource } from './iam.js';
import { isRawState, showJsonOfRawState } from './terraform-state.js';
import type { IngestSource } from './source.js';
import { accountOf, arnRegionOf, regionOf } from './terraform/account-region.js';
import { bucketNodes } from './terraform/buckets.js';
import { admittedInstances, clusterIdentifier, clusterOf, dbIdentifier } from './terraform/databases.js';
import { authorizationDetails, roleOfProfile } from './terraform/iam.js';
import { instanceRecord } from './terraform/instances.js';
import { loadBalancerTargets } from './terraform/load-balancers.js';
import {
  isState,
  ofType,
  planResources,
  pointed,
  readPlan,
  tagList,
  type Values,
} from './terraform/plan-walk.js';
import { securityGroups } from './terraform/security-groups.js';

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
