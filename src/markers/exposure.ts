// internet_exposed and public_access (spec "Marker derivation") from the raw provider records: an
// internet-facing load balancer scheme, a VM with a public IP address, a storage ACL granting all users or
// any authenticated user (public_access when everyone may READ), a publicly accessible database, an IAM
// role whose trust admits `*` (public_access when without condition).

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTHENTICATED_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';

export interface Exposure {
  internet_exposed?: boolean;
  public_access?: boolean;
  exposure_basis?: string;
}

export function bucketExposure(grants: unknown): Exposure {
  const list = Array.isArray(grants) ? (grants as { Grantee?: { URI?: string }; Permission?: string }[]) : [];
  const everyone = list.filter((g) => g.Grantee?.URI === ALL_USERS);
  const anyAccount = list.filter((g) => g.Grantee?.URI === AUTHENTICATED_USERS);
  if (!everyone.length && !anyAccount.length) return {};
  const readable = everyone.some((g) => g.Permission === 'READ' || g.Permission === 'FULL_CONTROL');
  return {
    internet_exposed: true,
    ...(readable && { public_access: true }),
    exposure_basis: everyone.length
      ? `acl:AllUsers:${everyone.map((g) => g.Permission).join('+')}`
      : `acl:AuthenticatedUsers:${anyAccount.map((g) => g.Permission).join('+')}`,
  };
}

/** An AssumeRolePolicyDocument as boto returns it (an object) or as recorded (URL-encoded JSON). */
export function readPolicyDocument(raw: unknown): { Statement?: unknown } | undefined {
  if (raw && typeof raw === 'object') return raw as { Statement?: unknown };
  if (typeof raw !== 'string') return undefined;
  try {
    return JSON.parse(raw.trim().startsWith('{') ? raw : decodeURIComponent(raw)) as { Statement?: unknown };
  } catch {
    return undefined;
  }
}

export function roleTrustExposure(trust: unknown): Exposure {
  const doc = readPolicyDocument(trust);
  const statements = Array.isArray(doc?.Statement) ? doc!.Statement : doc?.Statement ? [doc.Statement] : [];
  for (const s of statements as { Effect?: string; Principal?: unknown; Condition?: unknown }[]) {
    if (s.Effect !== 'Allow') continue;
    const principal = s.Principal;
    const star =
      principal === '*' ||
      (principal !== null &&
        typeof principal === 'object' &&
        [(principal as { AWS?: unknown }).AWS].flat().includes('*'));
    if (!star) continue;
    const conditioned = s.Condition !== undefined && Object.keys(s.Condition as object).length > 0;
    return {
      internet_exposed: true,
      ...(!conditioned && { public_access: true }),
      exposure_basis: conditioned ? 'trust:*:with-condition' : 'trust:*',
    };
  }
  return {};
}

/**
 * Condition keys that, given fixed values, confine a grant to `*` to known parties, so that S3 does not count
 * the statement public (S3 user guide, "The meaning of public"; `aws:PrincipalOrgID` and
 * `aws:PrincipalAccount` fix the principal's organization or account likewise). `aws:SourceIp` confines it
 * unless a range is the whole internet. Any other key (`aws:SecureTransport`, `aws:Referer`, a header) leaves
 * the statement public.
 */
const CONFINING_KEYS = new Set([
  'aws:sourcearn',
  'aws:sourcevpc',
  'aws:sourcevpce',
  'aws:sourceowner',
  'aws:sourceaccount',
  'aws:userid',
  'aws:principalorgid',
  'aws:principalaccount',
  'aws:principalarn',
  's3:x-amz-server-side-encryption-aws-kms-key-id',
  's3:dataaccesspointaccount',
  's3:dataaccesspointarn',
]);
const CONFINING_OPERATOR =
  /^(?:ForAnyValue:|ForAllValues:)?(?:StringEquals|StringEqualsIgnoreCase|StringLike|ArnEquals|ArnLike|IpAddress)$/i;
/** Actions that read a bucket's data (public_access, as an ACL's READ), then those that change it. */
const READ_ACTIONS = ['s3:GetObject', 's3:ListBucket'];
const WRITE_ACTIONS = ['s3:PutObject', 's3:DeleteObject', 's3:PutObjectAcl', 's3:PutBucketPolicy'];

interface PolicyStatement {
  Effect?: unknown;
  Principal?: unknown;
  Action?: unknown;
  Condition?: unknown;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );

/** Principal `*`, or `{"AWS": "*"}` (a list holding `*` alike): anyone, signed or not. */
function anyone(principal: unknown): boolean {
  if (principal === '*') return true;
  return (
    principal !== null &&
    typeof principal === 'object' &&
    list((principal as { AWS?: unknown }).AWS).includes('*')
  );
}

/** A statement's condition confines it: a confining key with fixed values, or source ranges short of the internet. */
function confined(condition: unknown): boolean {
  if (!condition || typeof condition !== 'object') return false;
  for (const [operator, tests] of Object.entries(condition as Record<string, unknown>)) {
    // Only a test that the request's value equals (or lies in) the ones named confines: a negated one
    // (`StringNotEquals`, `NotIpAddress`) admits everyone else, `…IfExists` admits a request without the key,
    // and `Null` or `Bool` only ask whether a key is there.
    if (!CONFINING_OPERATOR.test(operator) || !tests || typeof tests !== 'object') continue;
    for (const [key, values] of Object.entries(tests as Record<string, unknown>)) {
      const fixed = list(values).every((v) => typeof v === 'string' && !/[*?]/.test(v));
      if (CONFINING_KEYS.has(key.toLowerCase()) && fixed && list(values).length) return true;
      if (
        key.toLowerCase() === 'aws:sourceip' &&
        list(values).length &&
        list(values).every((v) => typeof v === 'string' && !/\/0$/.test(v))
      )
        return true;
    }
  }
  return false;
}

/**
 * A bucket policy (a JSON string or object) that lets anyone (`Principal: "*"`) act on the bucket's data with
 * no condition that confines it: internet exposed, and public_access when anyone may read (get or list). A
 * Deny to anyone with no condition takes back the actions it covers. Empty when the policy opens nothing.
 */
export function bucketPolicyExposure(policy: unknown): Exposure {
  const doc = readPolicyDocument(policy);
  const statements = list(doc?.Statement) as PolicyStatement[];
  const matches = (s: PolicyStatement, action: string) =>
    list(s.Action).some((a) => typeof a === 'string' && glob(a).test(action));
  const denied = (action: string) =>
    statements.some((s) => s.Effect === 'Deny' && anyone(s.Principal) && !s.Condition && matches(s, action));
  const open = statements.filter(
    (s) => s.Effect === 'Allow' && anyone(s.Principal) && !confined(s.Condition),
  );
  const granted = (actions: string[]) => actions.filter((a) => open.some((s) => matches(s, a)) && !denied(a));
  const read = granted(READ_ACTIONS);
  const write = granted(WRITE_ACTIONS);
  if (!read.length && !write.length) return {};
  // Named by the actions the open statements write (`s3:*`, `s3:GetObject`) that reach the bucket's data.
  const written = open
    .flatMap((s) => list(s.Action))
    .filter((a): a is string => typeof a === 'string' && [...read, ...write].some((x) => glob(a).test(x)));
  return {
    internet_exposed: true,
    ...(read.length > 0 && { public_access: true }),
    exposure_basis: `policy:*:${[...new Set(written)].join('+')}`,
  };
}

/**
 * What a bucket's ACL and policy say together: exposed when either opens it, publicly readable when either
 * lets anyone read, with both bases named; empty when neither opens it.
 */
export function eitherExposure(...exposures: Exposure[]): Exposure {
  const opened = exposures.filter((e) => e.internet_exposed);
  if (!opened.length) return {};
  return {
    internet_exposed: true,
    ...(opened.some((e) => e.public_access) && { public_access: true }),
    exposure_basis: opened.map((e) => e.exposure_basis).join(' '),
  };
}
