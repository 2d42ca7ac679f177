// What the loopback AWS serves: the estate a test declares, account by account, in the SDK's own shapes
// (the @aws-sdk/client-* model types), and the paging every list action shares.
import type {
  NetworkAcl,
  Reservation,
  RouteTable,
  SecurityGroup,
  Subnet,
  VpcPeeringConnection,
} from '@aws-sdk/client-ec2';
import type {
  LoadBalancer,
  Listener,
  TargetGroup,
  TargetHealthDescription,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { DBInstance } from '@aws-sdk/client-rds';
import type { FunctionConfiguration } from '@aws-sdk/client-lambda';
import type { Grant, PublicAccessBlockConfiguration, Tag } from '@aws-sdk/client-s3';

/** A policy document as a test writes it (the stand-in URL-encodes it, as IAM sends documents). */
export type PolicyDocument = { Version?: string; Statement: unknown[] };

export interface StandInRole {
  RoleName: string;
  Path?: string;
  AssumeRolePolicyDocument: PolicyDocument;
  RolePolicyList?: { PolicyName: string; PolicyDocument: PolicyDocument }[];
  AttachedManagedPolicies?: { PolicyName: string; PolicyArn: string }[];
  InstanceProfileNames?: string[];
  Tags?: { Key: string; Value: string }[];
}

export interface StandInUser {
  UserName: string;
  UserPolicyList?: { PolicyName: string; PolicyDocument: PolicyDocument }[];
  AttachedManagedPolicies?: { PolicyName: string; PolicyArn: string }[];
  GroupList?: string[];
}

export interface StandInManagedPolicy {
  PolicyName: string;
  Arn: string;
  Document: PolicyDocument;
}

export interface StandInBucket {
  Name: string;
  CreationDate?: Date;
  /** GetBucketPolicy's document; absent: 404 NoSuchBucketPolicy */
  Policy?: PolicyDocument;
  /** GetBucketAcl's grants beyond the owner's FULL_CONTROL */
  Grants?: Grant[];
  /** absent: 404 NoSuchPublicAccessBlockConfiguration */
  PublicAccessBlock?: PublicAccessBlockConfiguration;
  /** absent: 404 NoSuchTagSet */
  Tags?: Tag[];
}

export interface AccountEstate {
  reservations?: Reservation[];
  securityGroups?: SecurityGroup[];
  subnets?: Subnet[];
  routeTables?: RouteTable[];
  networkAcls?: NetworkAcl[];
  vpcPeerings?: VpcPeeringConnection[];
  roles?: StandInRole[];
  users?: StandInUser[];
  policies?: StandInManagedPolicy[];
  buckets?: StandInBucket[];
  dbInstances?: DBInstance[];
  loadBalancers?: LoadBalancer[];
  listeners?: Listener[];
  targetGroups?: TargetGroup[];
  /** DescribeTargetHealth's answer per target group ARN */
  targetHealth?: Record<string, TargetHealthDescription[]>;
  functions?: FunctionConfiguration[];
}

export interface Estate {
  /** by 12-digit account id */
  accounts: Record<string, AccountEstate>;
  /** The long-term key the tests hand the SDK, and whose it is. */
  caller: { account: string; userName: string; accessKeyId: string; secretAccessKey: string };
  /** Role ARNs AssumeRole grants (their account is the ARN's); any other: AccessDenied. */
  assumable: string[];
}

/** An opaque token for the item at `offset` (AWS's tokens are opaque too; a test never reads one). */
export function tokenAt(offset: number): string {
  return Buffer.from(`standin:${offset}`).toString('base64url');
}

export class BadToken extends Error {}

/**
 * One page of `items`: at most `asked` (the request's MaxResults / MaxItems / MaxRecords), and at most the
 * stand-in's `cap` (so a small estate still pages), from the item a token names.
 */
export function page<T>(
  items: readonly T[],
  token: string | null | undefined,
  asked: string | null | undefined,
  cap: number,
): { items: T[]; next?: string } {
  let offset = 0;
  if (token) {
    const match = /^standin:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
    if (!match) throw new BadToken(`invalid pagination token ${token}`);
    offset = Number(match[1]);
  }
  const size = Math.min(asked ? Number(asked) : cap, cap);
  const slice = items.slice(offset, offset + size);
  return { items: slice, next: offset + size < items.length ? tokenAt(offset + size) : undefined };
}
