// What the app asks of a forge, as one narrow interface: read and write pull-request comments (each with
// its author, so the app trusts only its own), set a commit status, write a Check Run (src/forge/check-runs.ts).
// Implementations: GitHub through an authenticated Octokit, and a dry run that only logs; the app hands either
// out only behind the tenant guard (src/forge/tenant-repos.ts): a call for a repository outside the caller's
// tenant is refused, logged and audited.
import type { Log } from '../log/logger.js';
import { githubCheckRuns, type CheckRunForge } from './check-runs.js';
import { truncateWords } from './truncate-words.js';

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

/** A pull-request comment and who wrote it (GitHub's `user.login`, `performed_via_github_app.id`). */
export interface ForgeComment {
  id: number;
  body: string;
  author?: string;
  viaApp?: number;
}

/** Who the forge writes as: the App (its comments carry `performed_via_github_app`) or the token's user. */
export interface ForgeIdentity {
  appId?: number;
  login?: string;
}

export interface Forge extends Partial<CheckRunForge> {
  listComments(repo: RepoRef, issue: number): Promise<ForgeComment[]>;
  /** who this forge's writes are attributed to (undefined: cannot tell, so no comment is trusted) */
  whoAmI(): Promise<ForgeIdentity | undefined>;
  createComment(repo: RepoRef, issue: number, body: string): Promise<void>;
  updateComment(repo: RepoRef, commentId: number, body: string): Promise<void>;
  /** Removes a duplicate the app itself posted (another writer raced it). */
  deleteComment(repo: RepoRef, commentId: number): Promise<void>;
  setStatus(repo: RepoRef, sha: string, status: CommitStatus): Promise<void>;
  /** For fix pull requests: the default branch and its head commit. */
  defaultBranch(repo: RepoRef): Promise<{ name: string; sha: string }>;
  /** A file's text and blob sha on a branch; undefined when it does not exist. */
  getFile(repo: RepoRef, path: string, branch: string): Promise<{ text: string; sha: string } | undefined>;
  createBranch(repo: RepoRef, name: string, fromSha: string): Promise<void>;
  putFile(
    repo: RepoRef,
    change: { path: string; branch: string; text: string; message: string; sha?: string },
  ): Promise<void>;
  createPullRequest(
    repo: RepoRef,
    pr: { head: string; base: string; title: string; body: string },
  ): Promise<string>;
}

/** The REST calls the GitHub forge makes (an Octokit's `request` fits). */
export type GithubRequest = (
  route: string,
  parameters: Record<string, unknown>,
) => Promise<{ data: unknown }>;

export function githubForge(request: GithubRequest, options: { appId?: number } = {}): Forge {
  let identity: Promise<ForgeIdentity | undefined> | undefined;
  return {
    // Check runs are written by GitHub Apps only.
    ...(options.appId !== undefined && githubCheckRuns(request)),
    whoAmI() {
      identity ??=
        options.appId !== undefined
          ? Promise.resolve({ appId: options.appId })
          : request('GET /user', {}).then(
              ({ data }) => ({ login: (data as { login: string }).login }),
              (error: unknown) => {
                identity = undefined; // asked again next time
                throw error;
              },
            );
      return identity;
    },
    async listComments({ owner, repo }, issue) {
      const out: ForgeComment[] = [];
      for (let page = 1; page <= 20; page++) {
        const { data } = await request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          owner,
          repo,
          issue_number: issue,
          per_page: 100,
          page,
        });
        const comments = data as {
          id: number;
          body?: string;
          user?: { login?: string } | null;
          performed_via_github_app?: { id?: number } | null;
        }[];
        out.push(
          ...comments.map((c) => ({
            id: c.id,
            body: c.body ?? '',
            author: c.user?.login,
            viaApp: c.performed_via_github_app?.id,
          })),
        );
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
    async deleteComment({ owner, repo }, commentId) {
      try {
        await request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', {
          owner,
          repo,
          comment_id: commentId,
        });
      } catch (error) {
        // Already gone (the other writer removed it): the goal is met.
        if ((error as { status?: number }).status !== 404) throw error;
      }
    },
    async defaultBranch({ owner, repo }) {
      const { data } = await request('GET /repos/{owner}/{repo}', { owner, repo });
      const name = (data as { default_branch: string }).default_branch;
      const ref = await request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
        owner,
        repo,
        ref: `heads/${name}`,
      });
      return { name, sha: (ref.data as { object: { sha: string } }).object.sha };
    },
    async getFile({ owner, repo }, path, branch) {
      try {
        const { data } = await request('GET /repos/{owner}/{repo}/contents/{path}', {
          owner,
          repo,
          path,
          ref: branch,
        });
        const file = data as { content?: string; sha: string; type?: string };
        if (file.type && file.type !== 'file') return undefined;
        return { text: Buffer.from(file.content ?? '', 'base64').toString('utf8'), sha: file.sha };
      } catch (error) {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }
    },
    async createBranch({ owner, repo }, name, fromSha) {
      await request('POST /repos/{owner}/{repo}/git/refs', {
        owner,
        repo,
        ref: `refs/heads/${name}`,
        sha: fromSha,
      });
    },
    async putFile({ owner, repo }, change) {
      await request('PUT /repos/{owner}/{repo}/contents/{path}', {
        owner,
        repo,
        path: change.path,
        branch: change.branch,
        message: change.message,
        content: Buffer.from(change.text, 'utf8').toString('base64'),
        ...(change.sha && { sha: change.sha }),
      });
    },
    async createPullRequest({ owner, repo }, pr) {
      const { data } = await request('POST /repos/{owner}/{repo}/pulls', { owner, repo, ...pr });
      return (data as { html_url: string }).html_url;
    },
    async setStatus({ owner, repo }, sha, status) {
      await request('POST /repos/{owner}/{repo}/statuses/{sha}', {
        owner,
        repo,
        sha,
        state: status.state,
        description: truncateWords(status.description, 140),
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
    whoAmI: async () => undefined,
    async createCheckRun(repo, run) {
      const { annotations, ...rest } = run;
      log.info(
        { dryRun: true, slug: `${repo.owner}/${repo.repo}`, ...rest, annotations: annotations.length },
        'would create check run',
      );
      return 0;
    },
    async createComment(repo, issue, body) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, issue, body }, 'would comment');
    },
    async updateComment(repo, commentId, body) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, commentId, body }, 'would edit comment');
    },
    async deleteComment(repo, commentId) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, commentId }, 'would delete comment');
    },
    async setStatus(repo, sha, status) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, sha, ...status }, 'would set status');
    },
    defaultBranch: async () => ({ name: 'main', sha: '0'.repeat(40) }),
    getFile: async () => undefined,
    async createBranch(repo, name) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, branch: name }, 'would create branch');
    },
    async putFile(repo, change) {
      log.info(
        { dryRun: true, slug: `${repo.owner}/${repo.repo}`, path: change.path, branch: change.branch },
        'would commit',
      );
    },
    async createPullRequest(repo, pr) {
      log.info({ dryRun: true, slug: `${repo.owner}/${repo.repo}`, ...pr }, 'would open pull request');
      return '';
    },
  };
}

/** A forge call refused by the tenant guard (already logged and audited). */
export class ForgeRefused extends Error {}
