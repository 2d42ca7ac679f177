// GitHub's Checks API as the app uses it (GitHub Apps only: a personal or fine-grained token cannot write
// check runs, so token mode sets the commit status alone), and the repository's file list at a commit (the
// app looks up where a route's resources are declared). Annotations go at most 50 per request, as GitHub
// requires: the first 50 with the create call, the rest in updates (GitHub appends them).
import type { GithubRequest, RepoRef } from './forge.js';

/** GitHub's limit of annotations per create or update request */
export const ANNOTATIONS_PER_REQUEST = 50;

export interface CheckAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  title?: string;
  message: string;
}

export interface CheckRunWrite {
  name: string;
  headSha: string;
  conclusion: 'success' | 'failure' | 'neutral' | 'action_required';
  /** `in_progress` while there is nothing to judge yet; completed otherwise */
  status: 'in_progress' | 'completed';
  detailsUrl?: string;
  /** what this run's annotations are (a digest): a run whose annotations differ is not updated in place */
  externalId: string;
  title: string;
  summary: string;
  text?: string;
  annotations: CheckAnnotation[];
}

export interface CheckRunSeen {
  id: number;
  appId?: number;
  externalId: string | null;
  title: string | null;
  summary: string | null;
  conclusion: string | null;
  status: string;
}

export interface CheckRunForge {
  listCheckRuns(repo: RepoRef, sha: string, name: string): Promise<CheckRunSeen[]>;
  createCheckRun(repo: RepoRef, run: CheckRunWrite): Promise<number>;
  /** texts and conclusion; `annotations` are appended to those the run has */
  updateCheckRun(
    repo: RepoRef,
    id: number,
    run: CheckRunWrite,
    annotations: CheckAnnotation[],
  ): Promise<void>;
  /** the paths of the repository's files at a commit, or undefined when the tree cannot be read */
  listFiles(repo: RepoRef, sha: string): Promise<string[] | undefined>;
}

export function githubCheckRuns(request: GithubRequest): CheckRunForge {
  const output = (run: CheckRunWrite, annotations: CheckAnnotation[]) => ({
    title: run.title,
    summary: run.summary,
    ...(run.text !== undefined && { text: run.text }),
    annotations: annotations.map((a) => ({
      path: a.path,
      start_line: a.startLine,
      end_line: a.endLine,
      annotation_level: a.level,
      message: a.message,
      ...(a.title && { title: a.title }),
    })),
  });
  const fields = (run: CheckRunWrite) => ({
    status: run.status,
    ...(run.status === 'completed' && { conclusion: run.conclusion }),
    external_id: run.externalId,
    ...(run.detailsUrl && { details_url: run.detailsUrl }),
  });
  const update = async (repo: RepoRef, id: number, run: CheckRunWrite, annotations: CheckAnnotation[]) => {
    for (let at = 0; at === 0 || at < annotations.length; at += ANNOTATIONS_PER_REQUEST)
      await request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        ...repo,
        check_run_id: id,
        ...fields(run),
        output: output(run, annotations.slice(at, at + ANNOTATIONS_PER_REQUEST)),
      });
  };
  return {
    async listCheckRuns(repo, sha, name) {
      const { data } = await request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        ...repo,
        ref: sha,
        check_name: name,
        filter: 'all',
        per_page: 100,
      });
      const runs =
        (
          data as {
            check_runs?: {
              id: number;
              app?: { id?: number } | null;
              external_id?: string | null;
              output?: { title?: string | null; summary?: string | null };
              conclusion?: string | null;
              status: string;
            }[];
          }
        ).check_runs ?? [];
      return runs.map((r) => ({
        id: r.id,
        appId: r.app?.id,
        externalId: r.external_id ?? null,
        title: r.output?.title ?? null,
        summary: r.output?.summary ?? null,
        conclusion: r.conclusion ?? null,
        status: r.status,
      }));
    },
    async createCheckRun(repo, run) {
      const { data } = await request('POST /repos/{owner}/{repo}/check-runs', {
        ...repo,
        name: run.name,
        head_sha: run.headSha,
        ...fields(run),
        output: output(run, run.annotations.slice(0, ANNOTATIONS_PER_REQUEST)),
      });
      const id = (data as { id: number }).id;
      if (run.annotations.length > ANNOTATIONS_PER_REQUEST)
        await update(repo, id, run, run.annotations.slice(ANNOTATIONS_PER_REQUEST));
      return id;
    },
    updateCheckRun: update,
    async listFiles(repo, sha) {
      try {
        const { data } = await request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
          ...repo,
          tree_sha: sha,
          recursive: 1,
        });
        const tree = (data as { tree?: { path: string; type: string }[] }).tree ?? [];
        return tree.filter((e) => e.type === 'blob').map((e) => e.path);
      } catch {
        return undefined; // no contents permission, or the commit is gone: resources are named without lines
      }
    },
  };
}
