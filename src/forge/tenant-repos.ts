// Which tenant owns which repository, and the guard every forge call goes through. REPO_ALLOWLIST names each
// tenant's repositories: `owner/repo` and `owner/*` belong to the default tenant (the form before tenants
// had repositories), `<tenant>:owner/repo` and `<tenant>:owner/*` to that tenant. A repository belongs to
// one tenant at most, so settings refuse a name two tenants claim (also `owner/*` against `owner/repo`).
// A call for a repository outside the caller's tenant (a verdict's comment or status, a fix pull request,
// even a read of its files) is refused, logged with the slug and tenant, audited (`forge.refused`), and
// thrown as ForgeRefused: nothing reaches GitHub.
import type { AuditLog } from '../audit/audit-log.js';
import { DEFAULT_TENANT, TENANT_NAME } from '../engine/tenant.js';
import type { Log } from '../log/logger.js';
import { RepoAllowlist } from './allowlist.js';
import { ForgeRefused, type Forge, type RepoRef } from './forge.js';
import type { CheckRunForge } from './check-runs.js';

/** Who asks the forge: the tenant whose repositories it may touch, and what asked (for the audit record). */
export interface ForgeCaller {
  tenant: string;
  /** `gate-verdict`, `webhook`, or the principal of an API request (`token:<id>`) */
  actor: string;
  requestId?: string;
}

export class TenantRepos {
  private readonly byTenant = new Map<string, RepoAllowlist>();

  constructor(entries: ReadonlyMap<string, readonly string[]>) {
    for (const [tenant, list] of entries) this.byTenant.set(tenant, new RepoAllowlist(list));
  }

  /**
   * `REPO_ALLOWLIST`: entries `owner/repo`, `owner/*` (default tenant) or `<tenant>:owner/repo`,
   * `<tenant>:owner/*`, comma separated. Throws naming the entry that is malformed or claimed twice.
   */
  static parse(text: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const claims: { tenant: string; owner: string; repo: string }[] = [];
    for (const raw of text.split(',')) {
      const entry = raw.trim();
      if (!entry) continue;
      const colon = entry.indexOf(':');
      const tenant = colon < 0 ? DEFAULT_TENANT : entry.slice(0, colon).trim();
      const name = colon < 0 ? entry : entry.slice(colon + 1).trim();
      if (!TENANT_NAME.test(tenant))
        throw new Error(
          `entry ${JSON.stringify(entry)} names tenant ${JSON.stringify(tenant)}, which is not a tenant name (lowercase letters, digits, - and _)`,
        );
      RepoAllowlist.parse(name);
      const [owner, repo] = name.toLowerCase().split('/');
      const rival = claims.find(
        (c) =>
          c.tenant !== tenant && c.owner === owner && (c.repo === repo || c.repo === '*' || repo === '*'),
      );
      if (rival)
        throw new Error(
          `entry ${JSON.stringify(entry)} gives tenant ${JSON.stringify(tenant)} a repository tenant ${JSON.stringify(rival.tenant)} already has (${rival.owner}/${rival.repo}): a repository belongs to one tenant`,
        );
      claims.push({ tenant, owner, repo });
      out.set(tenant, [...(out.get(tenant) ?? []), name]);
    }
    return out;
  }

  /** Whether the tenant may write to (and read through the forge) this repository. */
  allows(tenant: string, slug: string): boolean {
    return this.byTenant.get(tenant)?.allows(slug) ?? false;
  }

  /** The tenant the repository belongs to, if any names it. */
  tenantOf(slug: string): string | undefined {
    for (const [tenant, list] of this.byTenant) if (list.allows(slug)) return tenant;
    return undefined;
  }

  get empty(): boolean {
    return [...this.byTenant.values()].every((list) => list.empty);
  }
}

/**
 * The forge as one tenant may use it: every call (reads too, so no other tenant's files or comments are
 * read either) for a repository outside the tenant's repositories is refused, logged, audited and thrown.
 */
export function tenantForge(
  inner: Forge,
  repos: TenantRepos,
  caller: ForgeCaller,
  sinks: { log: Log; audit?: Pick<AuditLog, 'append'> },
): Forge {
  const guard = (repo: RepoRef, what: string) => {
    const slug = `${repo.owner}/${repo.repo}`;
    if (repos.allows(caller.tenant, slug)) return;
    const owner = repos.tenantOf(slug);
    const reason = repos.empty
      ? 'REPO_ALLOWLIST is empty'
      : owner !== undefined
        ? 'repository of another tenant'
        : `repository not in REPO_ALLOWLIST for tenant ${caller.tenant}`;
    sinks.log.warn(
      { slug, tenant: caller.tenant, write: what, actor: caller.actor, reason },
      `forge write refused: ${reason}`,
    );
    sinks.audit?.append('forge.refused', {
      subject: caller.actor,
      tenant: caller.tenant,
      fields: {
        slug,
        write: what,
        reason,
        ...(caller.requestId !== undefined && { request_id: caller.requestId }),
      },
    });
    throw new ForgeRefused(`${slug} is not a repository of tenant ${caller.tenant} (REPO_ALLOWLIST)`);
  };
  // Check runs are optional on a forge (Apps only): every method is still listed here, so one added to
  // CheckRunForge does not compile until it is guarded too.
  const checkRuns: { [K in keyof CheckRunForge]-?: CheckRunForge[K] | undefined } = {
    listCheckRuns:
      inner.listCheckRuns &&
      (async (repo, sha, name) => {
        guard(repo, 'read check runs');
        return inner.listCheckRuns!(repo, sha, name);
      }),
    createCheckRun:
      inner.createCheckRun &&
      (async (repo, run) => {
        guard(repo, 'check run');
        return inner.createCheckRun!(repo, run);
      }),
    updateCheckRun:
      inner.updateCheckRun &&
      (async (repo, id, run, annotations) => {
        guard(repo, 'check run');
        await inner.updateCheckRun!(repo, id, run, annotations);
      }),
    listFiles:
      inner.listFiles &&
      (async (repo, sha) => {
        guard(repo, 'read files');
        return inner.listFiles!(repo, sha);
      }),
  };
  return {
    ...(Object.fromEntries(
      Object.entries(checkRuns).filter(([, method]) => method),
    ) as Partial<CheckRunForge>),
    // Who the forge writes as names no repository: nothing to guard.
    whoAmI: () => inner.whoAmI(),
    async listComments(repo, issue) {
      guard(repo, 'read comments');
      return inner.listComments(repo, issue);
    },
    async createComment(repo, issue, body) {
      guard(repo, 'comment');
      await inner.createComment(repo, issue, body);
    },
    async updateComment(repo, id, body) {
      guard(repo, 'comment');
      await inner.updateComment(repo, id, body);
    },
    async deleteComment(repo, id) {
      guard(repo, 'comment');
      await inner.deleteComment(repo, id);
    },
    async setStatus(repo, sha, status) {
      guard(repo, 'status');
      await inner.setStatus(repo, sha, status);
    },
    async defaultBranch(repo) {
      guard(repo, 'read branch');
      return inner.defaultBranch(repo);
    },
    async getFile(repo, path, branch) {
      guard(repo, 'read file');
      return inner.getFile(repo, path, branch);
    },
    async createBranch(repo, name, sha) {
      guard(repo, 'branch');
      await inner.createBranch(repo, name, sha);
    },
    async putFile(repo, change) {
      guard(repo, 'commit');
      await inner.putFile(repo, change);
    },
    async createPullRequest(repo, pr) {
      guard(repo, 'pull request');
      return inner.createPullRequest(repo, pr);
    },
  };
}
