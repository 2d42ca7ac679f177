// What the app asks of a forge, as one narrow interface: read and write pull-request comments, set a
// commit status. Implementations: GitHub through an authenticated Octokit, a dry run that only logs, and
// an allowlist guard in front of either (a write outside REPO_ALLOWLIST is refused and logged).
import type { Log } from '../log/logger.js';
import type { RepoAllowlist } from './allowlist.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface CommitStatus {
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  targetUrl?: string;
  context: string;
}

export interface Forge {
  listComments(repo: RepoRef, issue: number): Promise<{ id: number; body: string }[]>;
  createComment(repo: RepoRef, issue: number, body: string): Promise<void>;
  updateComment(repo: RepoRef, commentId: number, body: string): Promise<void>;
  setStatus(repo: RepoRef, sha: string, status: CommitStatus): Promise<void>;
}

/** The REST calls the GitHub forge makes (an Octokit's `request` fits). */
export type GithubRequest = (
  route: string,
  parameters: Record<string, unknown>,
) => Promise<{ data: unknown }>;

export function githubForge(request: GithubRequest): Forge {
  return {
    async listComments({ owner, repo }, issue) {
      const out: { id: number; body: string }[] = [];
      for (let page = 1; page <= 20; page++) {
        const { data } = await request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          owner,
          repo,
          issue_number: issue,
          per_page: 100,
          page,
        });
        const comments = data as { id: number; body?: string }[];
        out.push(...comments.map((c) => ({ id: c.id, body: c.body ?? '' })));
        if (comments.length < 100) break;
      }
      return out;
    },
    async createComment({ owner, repo }, issue, body) {
      await request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        owner,
        repo,
        issue_number: issue,
        body,
      });
    },
    async updateComment({ owner, repo }, commentId, body) {
      await request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
        owner,
        repo,
        comment_id: commentId,
        body,
      });
    },
    async setStatus({ owner, repo }, sha, status) {
      await request('POST /repos/{owner}/{repo}/statuses/{sha}', {
        owner,
        repo,
        sha,
        state: status.state,
        description: status.description.slice(0, 140),
        context: status.context,
        ...(status.targetUrl && { target_url: status.targetUrl }),
      });
    },
  };
}

/** No forge credentials: log what would be posted, post nothing. */
export function dryRunForge(log: Log): Forge {
  return {
    listComments: async () => [],
    async createComment(repo, issue, body) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, issue, body }, 'would comment');
    },
    async updateComment(repo, commentId, body) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, commentId, body }, 'would edit comment');
    },
    async setStatus(repo, sha, status) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, sha, ...status }, 'would set status');
    },
  };
}

export class ForgeRefused extends Error {}

/** Writes only to allowlisted repositories; reads pass. A refusal is logged with the slug and thrown. */
export function allowlisted(inner: Forge, allowlist: RepoAllowlist, log: Log): Forge {
  const guard = (repo: RepoRef, what: string) => {
    const slug = `${repo.owner}/${repo.repo}`;
    if (allowlist.allows(slug)) return;
    log.warn(
      { slug, write: what },
      allowlist.empty
        ? 'forge write refused: REPO_ALLOWLIST is empty'
        : 'forge write refused: repository not in REPO_ALLOWLIST',
    );
    throw new ForgeRefused(`${slug} is not in REPO_ALLOWLIST`);
  };
  return {
    listComments: (repo, issue) => inner.listComments(repo, issue),
    async createComment(repo, issue, body) {
      guard(repo, 'comment');
      await inner.createComment(repo, issue, body);
    },
    async updateComment(repo, id, body) {
      guard(repo, 'comment');
      await inner.updateComment(repo, id, body);
    },
    async setStatus(repo, sha, status) {
      guard(repo, 'status');
      await inner.setStatus(repo, sha, status);
    },
  };
}
