// Who may assume a role, from its trust policy (PMapper's STS edges; AWS "IAM JSON policy elements:
// Principal"):
// - a user or role named by ARN (or a role's sessions, `assumed-role/<role>/<session>`) assumes it;
// - an account root (`arn:aws:iam::<account>:root` or the bare id) admits that account's principals whose
//   own policies allow `sts:AssumeRole` on the role;
// - a service (`lambda.amazonaws.com`) is recorded: PassRole primitives pass the role to it;
// - a GitHub Actions OIDC provider (`token.actions.githubusercontent.com`) admits the repositories its
//   `sub` condition names when it has a wildcard (`repo:octo/app:*`); with no `sub` condition at all (or
//   `repo:*`), every repository on GitHub: an internet start. A `sub` pinned to one ref admits no wildcard;
// - a SAML provider admits whoever it signs in (IdentityProvider ASSUMES the role).
import type { Directory, Principal } from './directory.js';
import { list, readCondition, type Statement } from './policy.js';
import { judgeTime } from './time-condition.js';

export const GITHUB_OIDC = 'token.actions.githubusercontent.com';

export interface RoleTrust {
  assumedBy: { from: Principal; via: string; conditional: boolean; until?: number }[];
  /** GitHub repositories (`github.com/<owner>/<repo>`) admitted through the Actions OIDC provider */
  repositories: string[];
  /** every GitHub repository may assume it */
  anyRepository: boolean;
  /** SAML providers (by name) that sign users into it */
  samlProviders: string[];
}

const ACCOUNT_ID = /^\d{12}$/;
const ASSUME_ACTIONS = ['sts:AssumeRole', 'sts:AssumeRoleWithWebIdentity', 'sts:AssumeRoleWithSAML'];

export function readTrust(role: Principal, directory: Directory): RoleTrust {
  const out: RoleTrust = { assumedBy: [], repositories: [], anyRepository: false, samlProviders: [] };
  for (const s of role.trust ?? []) {
    if (s.Effect !== 'Allow' || !s.Principal || typeof s.Principal !== 'object') continue;
    if (
      !list(s.Action).some((a) =>
        ASSUME_ACTIONS.some((x) => a === '*' || x.toLowerCase() === a.toLowerCase()),
      )
    )
      continue;
    const condition = readCondition(s.Condition);
    const conditional = condition.unknown.length > 0;
    // A trust that holds only at other times admits no one now (DECISIONS "Time conditions").
    const time = condition.time ? judgeTime(condition.time, directory.now) : undefined;
    if (time && !time.holds) continue;
    const principal = s.Principal as Record<string, unknown>;
    const before = out.assumedBy.length;
    for (const aws of list(principal.AWS)) awsPrincipal(role, aws, conditional, directory, out);
    if (time && time.until !== Infinity)
      for (const entry of out.assumedBy.slice(before))
        entry.until = Math.min(entry.until ?? Infinity, time.until);
    for (const federated of list(principal.Federated)) federatedPrincipal(federated, s, out);
  }
  return out;
}

function awsPrincipal(
  role: Principal,
  aws: string,
  conditional: boolean,
  directory: Directory,
  out: RoleTrust,
) {
  const root = ACCOUNT_ID.test(aws) ? aws : /^arn:aws[a-z-]*:iam::(\d{12}):root$/.exec(aws)?.[1];
  if (root) {
    // The account delegates to its own identity policies: principals allowed sts:AssumeRole on the role.
    for (const p of [...directory.users, ...directory.roles]) {
      if (p === role || p.home !== root || !p.permissions.access('sts:AssumeRole')) continue;
      const access = p.permissions.access('sts:AssumeRole', role.arn);
      if (access)
        out.assumedBy.push({
          from: p,
          via: 'trust-account-root',
          conditional: conditional || access.strength === 'conditional',
        });
    }
    return;
  }
  const session = /^arn:aws[a-z-]*:sts::(\d{12}):assumed-role\/([^/]+)\//.exec(aws);
  const from = session
    ? directory.roles.find((r) => r.name === session[2] && r.home === session[1])
    : directory.byArn.get(aws);
  if (from && from !== role) out.assumedBy.push({ from, via: 'trust-policy', conditional });
}

function federatedPrincipal(federated: string, s: Statement, out: RoleTrust) {
  const saml = /:saml-provider\/(.+)$/.exec(federated);
  if (saml) {
    out.samlProviders.push(saml[1]);
    return;
  }
  if (!federated.endsWith(`oidc-provider/${GITHUB_OIDC}`) && federated !== GITHUB_OIDC) return;
  const subjects = subjectsOf(s.Condition);
  if (!subjects) {
    out.anyRepository = true;
    return;
  }
  for (const subject of subjects) {
    const match = /^repo:([^/:]+)\/([^:]+)(?::(.*))?$/.exec(subject);
    if (subject === '*' || /^repo:\*/.test(subject)) out.anyRepository = true;
    else if (!match) continue;
    else if (!/[*?]/.test(`${match[1]}/${match[2]}`) && /[*?]/.test(match[3] ?? '*'))
      out.repositories.push(`github.com/${match[1]}/${match[2]}`.toLowerCase());
  }
}

/** The `sub` values a GitHub OIDC trust admits; undefined when it does not restrict `sub`. */
function subjectsOf(condition: Statement['Condition']): string[] | undefined {
  if (!condition) return undefined;
  let subjects: string[] | undefined;
  for (const block of Object.values(condition)) {
    if (!block || typeof block !== 'object') continue;
    for (const [key, value] of Object.entries(block))
      if (key.toLowerCase() === `${GITHUB_OIDC}:sub`) subjects = [...(subjects ?? []), ...list(value)];
  }
  return subjects;
}
