// The Check Run `service/attack-paths` beside the commit status (branch protection can require either):
// the verdict as its title and conclusion, the summary comment's text as its summary, and annotations on
// the files and lines the routes come from (sent 50 per request, GitHub's limit; src/forge/check-runs.ts).
// One run per commit: a redelivery or a second report updates the app's run in place. GitHub appends
// annotations on every update and cannot take one back, so a run is updated in place while its
// annotations are the same (or it has none yet); when they change, a new run replaces it (GitHub shows,
// and branch protection reads, the latest run of a name).
import { createHash } from 'node:crypto';
import type { CheckAnnotation, CheckRunWrite } from '../../src/forge/check-runs.js';
import type { Forge } from '../../src/forge/forge.js';
import type { ExposureItem, FixGroup } from './fix-groups.js';
import { plainLine } from './markdown.js';
import type { PullRequestTarget } from './pull-request.js';

export const CHECK_NAME = 'service/attack-paths';
/** annotations per run at most (GitHub shows them on the pull request's files) */
const MAX_ANNOTATIONS = 500;

const digest = (annotations: CheckAnnotation[]) =>
  `pathgate:${createHash('sha256').update(JSON.stringify(annotations)).digest('hex').slice(0, 24)}`;
const NO_ANNOTATIONS = digest([]);

/** Each located resource of each fix and exposure as an annotation on its file and line. */
export function annotationsOf(groups: FixGroup[], exposed: ExposureItem[]): CheckAnnotation[] {
  const out: CheckAnnotation[] = [];
  for (const g of groups)
    for (const r of g.resources) {
      if (!r.path) continue;
      const line = r.line ?? 1;
      const routes = g.routes.map((x) => `${x.path.nodes[0].name} → ${x.path.nodes.at(-1)!.name}`);
      out.push({
        path: r.path,
        startLine: line,
        endLine: line,
        level: g.critical ? 'failure' : 'warning',
        title: plainLine(
          `${g.critical ? 'Critical attack path' : 'Attack path'}${g.routes.length > 1 ? `s (${g.routes.length})` : ''} through ${r.resource}`,
        ),
        message: plainLine(`Fix: ${g.fix}. Routes: ${routes.join('; ')}`, 4000),
      });
    }
  for (const e of exposed)
    for (const r of e.resources) {
      if (!r.path) continue;
      out.push({
        path: r.path,
        startLine: r.line ?? 1,
        endLine: r.line ?? 1,
        level: 'failure',
        title: plainLine(`Crown jewel exposed to the internet: ${e.violation.node.name}`),
        message: plainLine(e.violation.detail, 4000),
      });
    }
  return out.slice(0, MAX_ANNOTATIONS);
}

export type CheckRunText = Omit<CheckRunWrite, 'name' | 'headSha' | 'externalId'>;

/** Writes the commit's run: updates the app's latest run in place when it can, else creates one. */
export async function upsertCheckRun(
  forge: Forge,
  target: PullRequestTarget,
  text: CheckRunText,
): Promise<'created' | 'updated' | 'unchanged' | 'unavailable'> {
  if (!forge.createCheckRun || !forge.listCheckRuns || !forge.updateCheckRun) return 'unavailable';
  const run: CheckRunWrite = {
    ...text,
    title: plainLine(text.title),
    name: CHECK_NAME,
    headSha: target.sha,
    externalId: digest(text.annotations),
  };
  const me = await forge.whoAmI();
  const runs = (await forge.listCheckRuns(target.repo, target.sha, CHECK_NAME))
    .filter((r) => me?.appId === undefined || r.appId === me.appId)
    .sort((a, b) => b.id - a.id);
  const latest = runs[0];
  if (latest && (latest.externalId === run.externalId || latest.externalId === NO_ANNOTATIONS)) {
    const same =
      latest.externalId === run.externalId &&
      latest.title === run.title &&
      latest.summary === run.summary &&
      latest.status === run.status &&
      (run.status !== 'completed' || latest.conclusion === run.conclusion);
    if (same) return 'unchanged';
    await forge.updateCheckRun(
      target.repo,
      latest.id,
      run,
      latest.externalId === run.externalId ? [] : run.annotations,
    );
    return 'updated';
  }
  await forge.createCheckRun(target.repo, run);
  return 'created';
}
