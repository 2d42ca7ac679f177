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
