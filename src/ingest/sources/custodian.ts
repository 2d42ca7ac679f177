// Source `custodian`: Cloud Custodian resources wrapped as the spec's `{provider, account_id, policies:
// [{policy, resource, resources}]}` (DECISIONS.md). Resources are the raw provider records Custodian
// emits (AWS API shapes plus its augmentations: Tags, Acl, AttachedManagedPolicies, ...). Load balancers,
// VMs, IAM roles, buckets and databases become nodes with the spec's markers (src/markers/); names are
// qualified by the account (`<account>/<name>`), a VM is named by its Name tag (its instance id kept).
// A VM with an instance profile whose role the report holds ASSUMES it (`instance_profiles`, the
// ListInstanceProfiles answer, maps profiles to roles), priced on its metadata service posture
// (docs/model.md). A bucket's Block Public Access settings (`c7n:PublicAccessBlock`, the annotation of
// Custodian's `check-public-block` filter) take back what they block. A Lambda function is a workload
// (`Service` `<account>/lambda/<name>`) that ASSUMES its execution role. Unknown resource types are
// reported as warnings, not refused.
import { sharedNameTags, sharedNameWarning, vmName } from '../../identity/vm-name.js';
import { crownJewel, readTags } from '../../markers/crown-jewel.js';
import {
  bucketExposure,
  bucketPolicyExposure,
  eitherExposure,
  roleTrustExposure,
  type Exposure,
} from '../../markers/exposure.js';
import { imdsPrice } from '../../model/probability.js';
import { accountParameter, parseIamArn, qualify } from './account.js';
import { instanceProfileAlias } from './iam.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

/** A raw provider record: its fields are checked (typeof) where they are read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS API shapes vary by service and version
type ProviderRecord = Record<string, any>;

interface CustodianReport {
  provider: string;
  account_id: string;
  region?: string;
  /** optional: iam ListInstanceProfiles' InstanceProfiles, to join an instance's profile to its role */
  instance_profiles?: { InstanceProfileName: string; Roles?: { RoleName: string }[] }[];
  policies: { policy: string; resource: string; resources: ProviderRecord[] }[];
}

type Kind = 'lb' | 'vm' | 'role' | 'bucket' | 'db' | 'fn';

/** Custodian resource types (with or without the `aws.` prefix) by what they are. */
const KINDS: Readonly<Record<string, Kind>> = {
  elb: 'lb',
  'app-elb': 'lb',
  elbv2: 'lb',
  ec2: 'vm',
  'iam-role': 'role',
  s3: 'bucket',
  rds: 'db',
  lambda: 'fn',
};

export function createCustodianSource(): IngestSource {
  const check = reportSchema<CustodianReport>('custodian', {
    type: 'object',
    required: ['provider', 'account_id', 'policies'],
    properties: {
      provider: { const: 'aws' },
      account_id: { type: 'string', pattern: '^\\d{12}$' },
      region: { type: 'string' },
      instance_profiles: {
        type: 'array',
        items: {
          type: 'object',
          required: ['InstanceProfileName'],
          properties: { InstanceProfileName: { type: 'string' } },
        },
      },
      policies: {
        type: 'array',
        items: {
          type: 'object',
          required: ['policy', 'resource', 'resources'],
          properties: {
            policy: { type: 'string', minLength: 1 },
            resource: { type: 'string', minLength: 1 },
            resources: { type: 'array', items: { type: 'object' } },
          },
        },
      },
    },
  });
  return {
    name: 'custodian',
    version: '2',
    description:
      'Cloud Custodian resources {provider, account_id, policies[]}: LBs, VMs, IAM roles, buckets, databases.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      // `custodian run` writes each policy's resources.json as a bare list: say how to send it, rather than
      // that a list is not an object.
      if (Array.isArray(body))
        throw reportProblem('custodian', [
          {
            pointer: '/',
            detail:
              'a list of resources, as `custodian run` writes resources.json: send it as {provider: "aws", ' +
              'account_id, policies: [{policy, resource, resources: <the list>}]} (the policy, its resource type ' +
              'and the account are in the metadata.json beside it)',
          },
        ]);
      const report = check(body);
      const asked = accountParameter(query);
      if (asked && asked !== report.account_id) {
        throw reportProblem('custodian', [
          { pointer: '/account_id', value: report.account_id, detail: `differs from ?account=${asked}` },
        ]);
      }
      const account = report.account_id;
      const out = new EnvelopeBuilder('custodian', 'asset', receivedAt);
      const warnings: string[] = [];
      const roles = new Map<string, string>();
      const profiles: { vm: string; profile: string; tokens: string | undefined }[] = [];
      // Every policy's instances: a Name tag two of them carry names neither.
      const sharedVmNames = sharedNameTags(
        report.policies
          .filter((policy) => KINDS[policy.resource.replace(/^aws\./, '')] === 'vm')
          .flatMap((policy) => policy.resources)
          .flatMap((r) =>
            typeof r.InstanceId === 'string'
              ? [{ instanceId: r.InstanceId as string, tags: readTags(r.Tags), account }]
              : [],
          ),
      );
      warnings.push(...sharedNameWarning(sharedVmNames));
      for (const [index, policy] of report.policies.entries()) {
        const kind = KINDS[policy.resource.replace(/^aws\./, '')];
        if (!kind) {
          warnings.push(
            `custodian report: /policies/${index}/resource ${JSON.stringify(policy.resource)} is not used`,
          );
          continue;
        }
        for (const resource of policy.resources) {
          const common = { account, custodian_policy: policy.policy, region: report.region };
          if (kind === 'lb') {
            const name = resource.LoadBalancerName;
            if (typeof name !== 'string') continue;
            const tags = readTags(resource.Tags);
            const external = resource.Scheme === 'internet-facing';
            out.node('LoadBalancer', qualify(name, account), {
              ...common,
              scheme: resource.Scheme,
              arn: resource.LoadBalancerArn,
              dns_name: resource.DNSName,
              ...(external && { internet_exposed: true, exposure_basis: 'scheme:internet-facing' }),
              ...crownJewel({ label: 'LoadBalancer', name, tags }),
            });
          } else if (kind === 'vm') {
            const id = resource.InstanceId;
            if (typeof id !== 'string') continue;
            const tags = readTags(resource.Tags);
            // Named by its Name tag, the VM stays reachable by its instance id (DECISIONS.md "Names"); by its
            // instance id when other instances carry the same tag (src/identity/vm-name.ts).
            const { name, aliases, name_tag } = vmName({ instanceId: id, tags, account }, sharedVmNames);
            const vm = out.node('VirtualMachine', name, {
              ...common,
              instance_id: id,
              aliases,
              name_tag,
              public_ip: resource.PublicIpAddress,
              private_ip: resource.PrivateIpAddress,
              subnet_id: resource.SubnetId,
              vpc_id: resource.VpcId,
              instance_profile_arn: resource.IamInstanceProfile?.Arn,
              imds_tokens: resource.MetadataOptions?.HttpTokens,
              ...(typeof resource.PublicIpAddress === 'string' && {
                internet_exposed: true,
                exposure_basis: 'public-ip',
              }),
              ...crownJewel({ label: 'VirtualMachine', name: tags.name || id, tags }),
            });
            const profile = resource.IamInstanceProfile?.Arn;
            if (typeof profile === 'string')
              profiles.push({
                vm,
                profile: profile.split('/').pop()!,
                tokens: resource.MetadataOptions?.HttpTokens,
              });
          } else if (kind === 'role') {
            const name = resource.RoleName;
            if (typeof name !== 'string') continue;
            const tags = readTags(resource.Tags);
            const managed = (resource.AttachedManagedPolicies ?? resource['c7n:attached-policies'] ?? []).map(
              (p: { PolicyArn?: string; PolicyName?: string }) => p.PolicyArn ?? p.PolicyName ?? '',
            );
            const id = out.node('IAM_Role', qualify(name, account), {
              ...common,
              arn: resource.Arn,
              managed_policies: managed.length ? managed : undefined,
              ...roleTrustExposure(resource.AssumeRolePolicyDocument),
              ...crownJewel({ label: 'IAM_Role', name, tags, managedPolicies: managed }),
            });
            roles.set(name, id);
          } else if (kind === 'bucket') {
            const name = resource.Name;
            if (typeof name !== 'string') continue;
            const tags = readTags(resource.Tags);
            out.node('Bucket', qualify(name, account), {
              ...common,
              // Its ACL or its policy (GetBucketPolicy's `Policy`, as terraform reads `aws_s3_bucket_policy`),
              // less what its Block Public Access settings take back.
              ...blockedExposure(
                bucketExposure(resource.Acl?.Grants),
                resource.Policy !== undefined ? bucketPolicyExposure(resource.Policy) : {},
                resource['c7n:PublicAccessBlock'],
              ),
              has_bucket_policy: resource.Policy !== undefined ? true : undefined,
              ...crownJewel({ label: 'Bucket', name, tags }),
            });
          } else if (kind === 'fn') {
            const name = resource.FunctionName;
            if (typeof name !== 'string') continue;
            const fn = out.node('Service', qualify(`lambda/${name}`, account), {
              ...common,
              arn: resource.FunctionArn,
              runtime: resource.Runtime,
              lambda: true,
            });
            const role = typeof resource.Role === 'string' ? parseIamArn(resource.Role) : undefined;
            if (role?.kind === 'role')
              out.edge(
                'ASSUMES',
                fn,
                out.node('IAM_Role', qualify(role.name, role.account), { account: role.account }),
                {
                  properties: { via: 'lambda-execution-role' },
                },
              );
          } else {
            const name = resource.DBInstanceIdentifier;
            if (typeof name !== 'string') continue;
            const tags = readTags(resource.Tags ?? resource.TagList);
            out.node('Database', qualify(name, account), {
              ...common,
              engine: resource.Engine,
              arn: resource.DBInstanceArn,
              publicly_accessible: resource.PubliclyAccessible === true,
              ...(resource.PubliclyAccessible === true && {
                internet_exposed: true,
                exposure_basis: 'publicly-accessible',
              }),
              ...crownJewel({ label: 'Database', name, tags }),
            });
          }
        }
      }
      // An instance's profile names its role: ListInstanceProfiles when given (the role joined by name in the
      // account, whichever report holds it), else a role of the profile's name in this report, else the
      // profile's alias `<account>/instance-profile/<name>`, which the iam source's InstanceProfileList
      // resolves to the role in the graph writer (as cloudnet does).
      const profileRoles = new Map(
        (report.instance_profiles ?? []).map((p) => [p.InstanceProfileName, p.Roles?.[0]?.RoleName]),
      );
      for (const { vm, profile, tokens } of profiles) {
        const named = profileRoles.get(profile);
        const role =
          (named && (roles.get(named) ?? out.node('IAM_Role', qualify(named, account), { account }))) ||
          roles.get(profile) ||
          out.node('IAM_Role', instanceProfileAlias(profile, account), {
            account,
            instance_profile: profile,
          });
        const price = imdsPrice(tokens);
        out.edge('ASSUMES', vm, role, {
          exploit_probability: price,
          weight_basis: 'heuristic',
          properties: { via: 'instance-profile', imds_tokens: tokens },
        });
      }
      return { envelopes: [out.build()], warnings };
    },
  };
}

/**
 * A bucket's exposure through its ACL and its policy, less what its Block Public Access settings take back
 * (`IgnorePublicAcls` the ACL, `RestrictPublicBuckets` the policy): stated closed when they close it.
 */
function blockedExposure(acl: Exposure, policy: Exposure, block: unknown): Exposure {
  const settings = (block && typeof block === 'object' ? block : {}) as Record<string, unknown>;
  const kept = eitherExposure(
    settings.IgnorePublicAcls === true ? {} : acl,
    settings.RestrictPublicBuckets === true ? {} : policy,
  );
  if (kept.internet_exposed || !eitherExposure(acl, policy).internet_exposed) return kept;
  const taken = [
    acl.internet_exposed && settings.IgnorePublicAcls === true && 'IgnorePublicAcls',
    policy.internet_exposed && settings.RestrictPublicBuckets === true && 'RestrictPublicBuckets',
  ].filter(Boolean);
  return { internet_exposed: false, exposure_basis: `public-access-block:${taken.join('+')}` };
}
