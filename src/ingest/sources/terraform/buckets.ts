// Buckets of a Terraform plan or state, named and marked as custodian names them: exposed by a public ACL
// (canned, an `aws_s3_bucket_acl`, or in a state the grants S3 holds) unless a public access block ignores
// it, or by a policy letting anyone in (`aws_s3_bucket_policy`, the bucket's own `policy`, or an
// `aws_iam_policy_document` the plan holds for it). A bucket's ACL, access block and policies are found
// through one index of the document (BucketLinks), by the bucket's name or by reference: one lookup per
// bucket, not a scan of the plan (issue 31: 20,000 buckets held the event loop 6.7 s).
import { bucketExposure, bucketPolicyExposure, eitherExposure } from '../../../markers/exposure.js';
import { crownJewel, readTags } from '../../../markers/crown-jewel.js';
import { qualify } from '../account.js';
import type { EnvelopeBuilder } from '../envelope-builder.js';
import {
  isState,
  ofType,
  references,
  tagList,
  type PlanModule,
  type PlanResource,
  type Values,
} from './plan-walk.js';

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTHENTICATED_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';
/** canned ACLs as the grants S3 stores for them */
const CANNED_ACL: Readonly<Record<string, { URI: string; Permission: string }[]>> = {
  'public-read': [{ URI: ALL_USERS, Permission: 'READ' }],
  'public-read-write': [
    { URI: ALL_USERS, Permission: 'READ' },
    { URI: ALL_USERS, Permission: 'WRITE' },
  ],
  'authenticated-read': [{ URI: AUTHENTICATED_USERS, Permission: 'READ' }],
};

/** Each bucket of the document, and each bucket a policy of the document names, as a Bucket node. */
export function bucketNodes(
  out: EnvelopeBuilder,
  resources: readonly PlanResource[],
  plan: Values,
  account: string | undefined,
  region: string | undefined,
): void {
  const links = new BucketLinks(resources, plan);
  for (const bucket of ofType(resources, 'aws_s3_bucket')) {
    const name = bucket.values.bucket;
    if (typeof name !== 'string') continue;
    const acl = links.of('aws_s3_bucket_acl', bucket)[0];
    const block = links.of('aws_s3_bucket_public_access_block', bucket).find((r) => !r.deleted);
    const grants = [
      ...aclGrants(bucket.values.acl, acl?.deleted ? undefined : acl?.values),
      ...(isState(plan) ? heldGrants(bucket.values.grant) : []),
    ];
    const exposure = bucketExposure(
      grants.map((g) => ({ Grantee: { URI: g.URI }, Permission: g.Permission })),
    );
    const blocked = block?.values.block_public_acls === true && block.values.ignore_public_acls === true;
    // A public policy is ignored (S3 admits only the owner's account and AWS services) under
    // `restrict_public_buckets`.
    const restricted = block?.values.restrict_public_buckets === true;
    const policy = bucketPolicy(bucket, links.of('aws_s3_bucket_policy', bucket), plan);
    const byPolicy = restricted || policy === 'unknown' ? {} : bucketPolicyExposure(policy);
    const opened = eitherExposure(blocked ? {} : exposure, byPolicy);
    const tags = readTags(tagList(bucket.values.tags));
    out.node('Bucket', qualify(name, account), {
      account,
      region,
      terraform_address: bucket.address,
      ...(opened.internet_exposed && !bucket.deleted
        ? opened
        : policy === 'unknown' && !restricted && !bucket.deleted
          ? // Its policy is known only at apply (built from values the plan does not know): left unstated.
            { exposure_basis: 'terraform:policy-known-after-apply' }
          : {
              internet_exposed: false,
              public_access: false,
              exposure_basis:
                blocked && (restricted || policy === undefined)
                  ? 'terraform:public-access-block'
                  : policy === undefined
                    ? 'terraform:no-public-acl'
                    : 'terraform:no-public-acl-or-policy',
            }),
      ...crownJewel({ label: 'Bucket', name, tags }),
    });
  }
  // A policy on a bucket the document does not hold (another configuration's, named by its name) names that
  // bucket, stated exposed when the policy opens it; else its exposure is not said (its ACL is not known).
  for (const policy of ofType(resources, 'aws_s3_bucket_policy')) {
    const name = policy.values.bucket;
    if (policy.deleted || typeof name !== 'string' || links.onBucketOfDocument(policy)) continue;
    const exposure = bucketPolicyExposure(
      typeof policy.values.policy === 'string' ? policy.values.policy : deferredPolicyDocument(plan, policy),
    );
    out.node('Bucket', qualify(name, account), {
      account,
      region,
      terraform_address: policy.address,
      ...(exposure.internet_exposed && exposure),
    });
  }
}

/** The types that name a bucket (`bucket`: its name, or a reference to an `aws_s3_bucket` of the document). */
const LINKED = ['aws_s3_bucket_acl', 'aws_s3_bucket_public_access_block', 'aws_s3_bucket_policy'] as const;
type Linked = (typeof LINKED)[number];

/**
 * Which ACLs, access blocks and policies name which bucket: by the bucket's name (`bucket = "exports"`) or by a
 * reference to its address (`aws_s3_bucket.exports.id` names `aws_s3_bucket.exports`), each list in document
 * order, as a scan of the document would find them.
 */
class BucketLinks {
  private readonly byName = new Map<string, PlanResource[]>();
  private readonly byAddress = new Map<string, PlanResource[]>();
  private readonly position = new Map<PlanResource, number>();
  private readonly bucketNames = new Set<string>();
  private readonly bucketAddresses = new Set<string>();
  private readonly refPrefixes = new Map<PlanResource, string[]>();

  constructor(resources: readonly PlanResource[], plan: Values) {
    resources.forEach((r, i) => this.position.set(r, i));
    for (const bucket of ofType(resources, 'aws_s3_bucket')) {
      if (typeof bucket.values.bucket === 'string') this.bucketNames.add(bucket.values.bucket);
      this.bucketAddresses.add(bucket.address);
    }
    for (const type of LINKED)
      for (const r of ofType(resources, type)) {
        const name = r.values.bucket;
        if (typeof name === 'string') push(this.byName, `${type}|${name}`, r);
        const prefixes = new Set(references(plan, r.address, 'bucket').flatMap(addressPrefixes));
        this.refPrefixes.set(r, [...prefixes]);
        for (const prefix of prefixes) push(this.byAddress, `${type}|${prefix}`, r);
      }
  }

  /** The resources of `type` naming the bucket, in document order. */
  of(type: Linked, bucket: PlanResource): PlanResource[] {
    const name = bucket.values.bucket;
    const byName = typeof name === 'string' ? (this.byName.get(`${type}|${name}`) ?? []) : [];
    const byAddress = this.byAddress.get(`${type}|${bucket.address}`) ?? [];
    if (!byAddress.length) return byName;
    if (!byName.length) return byAddress;
    return [...new Set([...byName, ...byAddress])].sort(
      (a, b) => this.position.get(a)! - this.position.get(b)!,
    );
  }

  /** Whether a linked resource names a bucket the document holds (by its name, or by reference). */
  onBucketOfDocument(r: PlanResource): boolean {
    const name = r.values.bucket;
    if (typeof name === 'string' && this.bucketNames.has(name)) return true;
    return (this.refPrefixes.get(r) ?? []).some((prefix) => this.bucketAddresses.has(prefix));
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The addresses a reference names: itself and each part before a dot (`aws_s3_bucket.b.id`:
 * `aws_s3_bucket.b.id`, `aws_s3_bucket.b`, `aws_s3_bucket`), so that a reference names an address exactly
 * when it is that address or starts with it and a dot.
 */
function addressPrefixes(ref: string): string[] {
  const out = [ref];
  for (let at = ref.indexOf('.'); at >= 0; at = ref.indexOf('.', at + 1)) out.push(ref.slice(0, at));
  return out;
}

const dataDocuments = new WeakMap<Values, Map<string, Values>>();

/** The plan's data sources' values by address (the last of an address wins), walked once per document. */
function dataSources(plan: Values): Map<string, Values> {
  let index = dataDocuments.get(plan);
  if (index) return index;
  const built = new Map<string, Values>();
  const walk = (module: PlanModule | undefined) => {
    for (const x of module?.resources ?? []) if (x.mode === 'data') built.set(x.address, x.values as Values);
    for (const child of module?.child_modules ?? []) walk(child);
  };
  walk(plan.planned_values?.root_module);
  dataDocuments.set(plan, (index = built));
  return index;
}

/**
 * The bucket's policy: an `aws_s3_bucket_policy` of the document for it (none when the plan deletes it), else
 * the bucket's own `policy` (an argument before provider 4, and what a state holds whatever set it). In a
 * plan with an `aws_s3_bucket_policy`, the bucket's own value is the policy before the change and is not read.
 * `unknown` when the policy is known only after apply (built from a value the plan does not know).
 */
function bucketPolicy(bucket: PlanResource, standalone: PlanResource[], plan: Values): unknown {
  const live = standalone.find((r) => !r.deleted);
  if (live)
    return typeof live.values.policy === 'string' && live.values.policy
      ? live.values.policy
      : (deferredPolicyDocument(plan, live) ?? 'unknown');
  if (standalone.length) return undefined;
  const own = bucket.values.policy;
  return typeof own === 'string' && own ? own : undefined;
}

/**
 * A policy written `policy = data.aws_iam_policy_document.<name>.json` whose document Terraform reads only at
 * apply (its statements use values the plan does not know, such as a new bucket's ARN): the plan still holds
 * the data source's statements, with what it knows of them, under `planned_values`. Read as the JSON they will
 * print; undefined when the policy is not such a document, merges others (`source_policy_documents`,
 * `override_policy_documents`, `source_json`, `override_json`), or has a condition whose values are known
 * only at apply (it confines to something not known here). A principal not yet known is no `*` (a literal `*`
 * is always known), so it never makes a statement public.
 */
function deferredPolicyDocument(plan: Values, r: PlanResource): Values | undefined {
  const ref = references(plan, r.address, 'policy').find((x) =>
    /(^|\.)data\.aws_iam_policy_document\.[^.]+$/.test(x),
  );
  if (!ref) return undefined;
  const doc = dataSources(plan).get(ref);
  if (!doc || !Array.isArray(doc.statement)) return undefined;
  const given = (v: unknown) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length);
  if (
    ['source_policy_documents', 'override_policy_documents', 'source_json', 'override_json'].some((k) =>
      given(doc[k]),
    )
  )
    return undefined;
  const statements = doc.statement as Values[];
  const conditions = statements.flatMap((st) => (st?.condition ?? []) as Values[]);
  if (
    conditions.some((c) => !Array.isArray(c?.values) || c.values.some((v: unknown) => typeof v !== 'string'))
  )
    return undefined;
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return {
    Statement: statements.map((st) => {
      const principal: Record<string, string[]> = {};
      for (const p of (st.principals ?? []) as Values[])
        if (typeof p?.type === 'string')
          principal[p.type] = [...(principal[p.type] ?? []), ...strings(p.identifiers)];
      const condition: Record<string, Record<string, string[]>> = {};
      for (const c of (st.condition ?? []) as Values[])
        if (typeof c?.test === 'string' && typeof c.variable === 'string')
          condition[c.test] = { ...condition[c.test], [c.variable]: strings(c.values) };
      return {
        Effect: st.effect ?? 'Allow',
        // A principal of type `*` prints as `"Principal": "*"`.
        Principal: principal['*']?.includes('*') ? '*' : principal,
        Action: strings(st.actions),
        ...(Object.keys(condition).length && { Condition: condition }),
      };
    }),
  };
}

function aclGrants(cannedOnBucket: unknown, acl: Values | undefined): { URI: string; Permission: string }[] {
  const canned =
    typeof acl?.acl === 'string' ? acl.acl : typeof cannedOnBucket === 'string' ? cannedOnBucket : undefined;
  const grants = [...(canned ? (CANNED_ACL[canned] ?? []) : [])];
  for (const policy of (acl?.access_control_policy ?? []) as Values[])
    for (const grant of (policy.grant ?? []) as Values[])
      for (const grantee of (grant.grantee ?? []) as Values[])
        if (typeof grantee.uri === 'string') grants.push({ URI: grantee.uri, Permission: grant.permission });
  return grants;
}

/**
 * The grants a state holds on the bucket itself (`grant`, which the provider reads back from S3 whatever set
 * them: the bucket's `acl`, an `aws_s3_bucket_acl`, or the console). Read in a state only: a plan carries the
 * bucket's grants as they were before the change, which an `aws_s3_bucket_acl` of the plan may replace.
 */
function heldGrants(grants: unknown): { URI: string; Permission: string }[] {
  const out: { URI: string; Permission: string }[] = [];
  for (const grant of (Array.isArray(grants) ? grants : []) as Values[])
    if (typeof grant?.uri === 'string' && grant.uri)
      for (const Permission of (Array.isArray(grant.permissions) ? grant.permissions : []) as string[])
        out.push({ URI: grant.uri, Permission });
  return out;
}
