// What the app shows on a pull request, from the gate's result for its commit: one readable conversation.
// - the sticky summary comment (app/github/summary-comment.ts): verdict, routes, the worst drawn, the fixes;
// - one comment per fix, the routes sharing it together, and per crown jewel exposed
//   (app/github/route-comments.ts), each naming the resources and `file:line` to change (fix-groups.ts);
// - the Check Run `service/attack-paths` with annotations on those files (check-run.ts);
// - the commit status `service/attack-paths` on the head SHA.
// Only the app's own comments are read or written; every value is escaped (markdown.ts).
import { ForgeRefused, type Forge, type RepoRef } from '../../src/forge/forge.js';
import type { GateResult } from '../../src/gate/evaluate.js';
import { annotationsOf, upsertCheckRun, type CheckRunText } from './check-run.js';
import { exposures, groupByFix } from './fix-groups.js';
import { pathLink, type LinkSettings } from './links.js';
import type { CommitFiles } from './locate.js';
import { commentItems, reconcileRouteComments } from './route-comments.js';
import { renderSummary, upsertSummary } from './summary-comment.js';

export const STATUS_CONTEXT = 'service/attack-paths';
export { MAX_COMMENTS } from './route-comments.js';
/** what a commit shows until a scan of it reaches the gate (docs/github-app.md promises these words) */
export const WAITING = 'waiting for a scan';

export interface PullRequestTarget {
  repo: RepoRef;
  number: number;
  sha: string;
}

export interface Reconciled {
  created: number;
  updated: number;
  resolved: number;
  /** copies of one comment another writer posted at the same time, removed */
  removedDuplicates: number;
  status: 'pending' | 'success' | 'failure';
  checkRun?: 'created' | 'updated' | 'unchanged' | 'unavailable' | 'failed';
  /** why the Check Run could not be written (an installation that has not granted `checks: write`) */
  checkRunError?: string;
}

export interface ReconcileOptions {
  /** false for an older commit's late verdict: its status and run only, the comments are the head's */
  comments?: boolean;
  /** where links may point (app/github/links.ts) */
  links?: LinkSettings;
  /** the commit's files, to name `file:line` (app/github/locate.ts) */
  files?: CommitFiles;
}

/** Brings the pull request's conversation, Check Run and status in line with the gate's result. */
export async function reconcile(
  forge: Forge,
  target: PullRequestTarget,
  result: GateResult | undefined,
  options: ReconcileOptions = {},
): Promise<Reconciled> {
  const out: Reconciled = { created: 0, updated: 0, resolved: 0, removedDuplicates: 0, status: 'pending' };
  const { links } = options;
  if (!result || (result.verdict === 'unknown' && !result.analysed)) {
    // Nothing to judge yet: a scan of this commit has not reached the gate (or the estate).
    await forge.setStatus(target.repo, target.sha, {
      context: STATUS_CONTEXT,
      state: 'pending',
      description: WAITING,
    });
    await writeCheckRun(forge, target, out, {
      status: 'in_progress',
      conclusion: 'neutral',
      title: WAITING,
      summary:
        `No scan of this commit has reached pathgate yet.${result ? ` The gate said: ${result.reason}` : ''}`.replace(
          /[<>@[\]`|*_\\]/g,
          (c) => `\\${c}`,
        ),
      annotations: [],
    });
    return out;
  }
  const groups = await groupByFix(result, options.files);
  const exposed = await exposures(result, options.files);
  const summary = renderSummary(result, groups, exposed, target.sha, links);
  const critical = groups.flatMap((g) => g.routes).filter((r) => r.path.critical);
  const routes = groups.reduce((n, g) => n + g.routes.length, 0);
  out.status =
    critical.length || exposed.length ? 'failure' : result.verdict === 'unknown' ? 'pending' : 'success';
  const description = critical.length
    ? `${critical.length} critical attack path${critical.length > 1 ? 's' : ''} opened or made likelier`
    : exposed.length
      ? `${exposed.length} crown jewel${exposed.length > 1 ? 's' : ''} exposed to the internet: ${exposed[0].violation.node.name}`
      : result.verdict === 'unknown'
        ? `not analysed: ${result.reason}`
        : routes
          ? `${routes} attack path(s) opened or made likelier, none critical`
          : 'no attack path opened or made likelier';
  const detailsUrl = pathLink(links, critical[0]?.path.id) ?? undefined;
  await forge.setStatus(target.repo, target.sha, {
    context: STATUS_CONTEXT,
    state: out.status,
    description,
    targetUrl: detailsUrl,
  });
  await writeCheckRun(forge, target, out, {
    status: result.verdict === 'unknown' && out.status === 'pending' ? 'in_progress' : 'completed',
    conclusion: out.status === 'failure' ? 'failure' : 'success',
    title: summary.title,
    summary: summary.body,
    annotations: annotationsOf(groups, exposed),
    ...(detailsUrl && { detailsUrl }),
  });
  // Comments belong to the pull request's head commit: an older commit's late verdict sets its own status
  // and run, and leaves them alone.
  if (options.comments !== false) {
    await reconcileRouteComments(forge, target, commentItems(groups, exposed, links), out);
    const worthSaying = routes > 0 || exposed.length > 0 || result.verdict === 'unknown';
    await upsertSummary(forge, target, summary, worthSaying, out);
  }
  return out;
}

/**
 * The Check Run after the status: an installation that has not granted `checks: write` (the permission
 * came with this version) still gets its status, and the refusal is reported, not thrown.
 */
async function writeCheckRun(forge: Forge, target: PullRequestTarget, out: Reconciled, text: CheckRunText) {
  try {
    out.checkRun = await upsertCheckRun(forge, target, text);
  } catch (error) {
    if (error instanceof ForgeRefused) throw error;
    out.checkRun = 'failed';
    out.checkRunError = (error as Error).message;
  }
}
