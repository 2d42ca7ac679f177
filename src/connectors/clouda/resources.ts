// An account's buckets, databases and functions for the `custodian` source, as Cloud Custodian records
// them (the API's shapes plus its augmentations): S3 buckets with `Policy` (GetBucketPolicy's document),
// `Acl` (GetBucketAcl), `Tags` (GetBucketTagging) and `c7n:PublicAccessBlock` (GetPublicAccessBlock, the
// annotation of Custodian's `check-public-block` filter); RDS instances (DescribeDBInstances); Lambda
// functions (ListFunctions, each naming its execution role). The 404s that mean "none" (no policy, no
// block, no tags) are answers; any other error fails the account, since a bucket read in part would
// retract what the complete snapshot did not see.
import { paginateListFunctions } from '@aws-sdk/client-lambda';
import { paginateDescribeDBInstances } from '@aws-sdk/client-rds';
import {
  GetBucketAclCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetPublicAccessBlockCommand,
  paginateListBuckets,
} from '@aws-sdk/client-s3';
import type { AccountClients } from './clients.js';
import { all, mapLimit, step } from './steps.js';

const BUCKETS_AT_ONCE = 8;

/** The custodian body's policies: one per resource type, each named `clouda-<type>`. */
export interface CustodianPolicy {
  policy: string;
  resource: string;
  resources: Record<string, unknown>[];
}

/** An S3 answer that means "this bucket has none", read as undefined. */
async function absentOn<T>(codes: string[], run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (codes.includes((error as { name?: string }).name ?? '')) return undefined;
    throw error;
  }
}

export async function pullBuckets(
  clients: AccountClients,
  signal: AbortSignal,
): Promise<Record<string, unknown>[]> {
  const s3 = clients.s3;
  const buckets = await step(signal, 's3:ListAllMyBuckets', () =>
    all(signal, paginateListBuckets({ client: s3, pageSize: 1000 }, {}), (p) => p.Buckets),
  );
  // Each bucket's four reads at once, eight buckets at a time: the calls are latency-bound, not rate-bound.
  const read = async (Name: string, CreationDate: Date | undefined) => {
    const Bucket = Name;
    const [policy, acl, block, tagging] = await Promise.all([
      step(signal, 's3:GetBucketPolicy', () =>
        absentOn(['NoSuchBucketPolicy'], () => s3.send(new GetBucketPolicyCommand({ Bucket }))),
      ),
      step(signal, 's3:GetBucketAcl', () => s3.send(new GetBucketAclCommand({ Bucket }))),
      step(signal, 's3:GetBucketPublicAccessBlock', () =>
        absentOn(['NoSuchPublicAccessBlockConfiguration'], () =>
          s3.send(new GetPublicAccessBlockCommand({ Bucket })),
        ),
      ),
      step(signal, 's3:GetBucketTagging', () =>
        absentOn(['NoSuchTagSet'], () => s3.send(new GetBucketTaggingCommand({ Bucket }))),
      ),
    ]);
    return {
      Name,
      CreationDate,
      ...(policy?.Policy !== undefined && { Policy: policy.Policy }),
      Acl: { Owner: acl.Owner, Grants: acl.Grants ?? [] },
      ...(tagging?.TagSet && { Tags: tagging.TagSet }),
      ...(block?.PublicAccessBlockConfiguration && {
        'c7n:PublicAccessBlock': block.PublicAccessBlockConfiguration,
      }),
    };
  };
  const named = buckets.filter((b): b is typeof b & { Name: string } => typeof b.Name === 'string');
  return mapLimit(named, BUCKETS_AT_ONCE, (b) => read(b.Name, b.CreationDate));
}

export async function pullResources(
  clients: AccountClients,
  signal: AbortSignal,
): Promise<CustodianPolicy[]> {
  const buckets = await pullBuckets(clients, signal);
  const databases = await step(signal, 'rds:DescribeDBInstances', () =>
    all(
      signal,
      paginateDescribeDBInstances({ client: clients.rds, pageSize: 100 }, {}),
      (p) => p.DBInstances,
    ),
  );
  const functions = await step(signal, 'lambda:ListFunctions', () =>
    all(signal, paginateListFunctions({ client: clients.lambda, pageSize: 50 }, {}), (p) => p.Functions),
  );
  return [
    { policy: 'clouda-s3', resource: 'aws.s3', resources: buckets },
    { policy: 'clouda-rds', resource: 'aws.rds', resources: databases as Record<string, unknown>[] },
    { policy: 'clouda-lambda', resource: 'aws.lambda', resources: functions as Record<string, unknown>[] },
  ];
}
