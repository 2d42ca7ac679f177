// The sticky summary comment: one per pull request, upserted (never duplicated), that a reviewer reads
// first: the verdict, the routes opened or made likelier with their scores, a diagram of the worst, and
// the fixes with where to make them. The same text is the Check Run's summary. Posted once there is
// something to say (a route, an exposed crown jewel, a report the gate could not join); kept up to date
// after that, clean included, so it never shows a stale verdict.
import type { Forge } from '../../src/forge/forge.js';
import type { GateResult } from '../../src/gate/evaluate.js';
import { renderMermaid } from '../gate-client.js';
import type { ExposureItem, FixGroup } from './fix-groups.js';
import { pathLink, type LinkSettings } from './links.js';
import { mdCode, mdText } from './markdown.js';
import { isSummary, ownComments, SUMMARY_MARKER } from './own-comments.js';
import type { PullRequestTarget, Reconciled } from './pull-request.js';
import { removeCopies, resourceText, routeEnds, scoreText } from './route-comments.js';

/** route rows in the summary's table at most (GitHub caps a comment at 65,536 characters) */
const MAX_ROWS = 30;

export interface Summary {
  /** one line: the verdict and what it counts */
  title: string;
  /** the Markdown body (without the marker) */
  body: string;
}

/** The verdict's one-line title: what a reviewer needs before opening anything. */
export function summaryTitle(result: GateResult, groups: FixGroup[], exposed: ExposureItem[]): string {
  const routes = groups.flatMap((g) => g.routes);
  const critical = routes.filter((r) => r.path.critical).length;
  const parts = [
    routes.length
      ? `${routes.length} attack path${routes.length > 1 ? 's' : ''} opened or made likelier${critical ? ` (${critical} critical)` : ''}`
      : undefined,
    exposed.length
      ? `${exposed.length} crown jewel${exposed.length > 1 ? 's' : ''} exposed to the internet`
      : undefined,
  ].filter(Boolean);
  if (result.verdict === 'unknown')
    return `unknown: ${parts.length ? `${parts.join(', ')}; ` : ''}not analysed`;
  return `${result.verdict}: ${parts.join(', ') || 'no attack path opened or made likelier'}`;
}

export function renderSummary(
  result: GateResult,
  groups: FixGroup[],
  exposed: ExposureItem[],
  sha: string,
  links?: LinkSettings,
): Summary {
  const icon = result.verdict === 'blocked' ? '⛔' : result.verdict === 'clean' ? '✅' : '❔';
  const title = summaryTitle(result, groups, exposed);
  const out = [`## ${icon} pathgate ${mdText(title)}`, '', mdText(result.reason), ''];
  const rows = groups.flatMap((g, fix) => g.routes.map((r) => ({ ...r, fix: fix + 1 })));
  rows.sort((a, b) => Number(b.path.critical) - Number(a.path.critical) || b.path.score - a.path.score);
  if (rows.length) {
    out.push('| | route | change | priority | score | fix |', '| --- | --- | --- | --- | --- | --- |');
    for (const { path, status, fix } of rows.slice(0, MAX_ROWS)) {
      const link = pathLink(links, path.id);
      const route = `${mdCode(path.nodes[0].name, { inTable: true })} → ${mdCode(path.nodes.at(-1)!.name, { inTable: true })}`;
      out.push(
        `| ${path.critical ? '⛔' : '⚠️'} | ${link ? `[${route}](${link})` : route} | ${status === 'opened' ? 'opened' : 'likelier'} | ${path.priority}${path.previousPriority && path.previousPriority !== path.priority ? ` (was ${path.previousPriority})` : ''} | ${scoreText(path).replace(/^score /, '')} | ${fix} |`,
      );
    }
    if (rows.length > MAX_ROWS) out.push('', `…and ${rows.length - MAX_ROWS} more routes.`);
    out.push('', `**Worst route**: ${routeEnds(rows[0].path)}`, '', renderMermaid(rows[0].path), '');
  }
  if (groups.length) {
    out.push('**Fixes**', '');
    for (const [i, g] of groups.entries())
      out.push(
        `${i + 1}. ${mdText(g.fix)}${g.resources.length ? ` — ${g.resources.map(resourceText).join('; ')}` : ''} (${g.routes.length} route${g.routes.length > 1 ? 's' : ''})`,
      );
    out.push('');
  }
  if (exposed.length) {
    out.push('**Crown jewels exposed to the internet**', '');
    for (const e of exposed)
      out.push(
        `- ⛔ ${mdText(e.violation.node.label)} ${mdCode(e.violation.node.name)}${e.resources.length ? ` — ${e.resources.map(resourceText).join('; ')}` : ''}`,
      );
    out.push('');
  }
  if (result.improved.length)
    out.push(
      `Improved: ${result.improved.length} route${result.improved.length > 1 ? 's' : ''} closed or made less likely.`,
      '',
    );
  out.push(
    `<sub>pathgate, commit ${mdCode(sha.slice(0, 7))}; preexisting routes: ${result.preexisting}.</sub>`,
  );
  return { title, body: out.join('\n') };
}

/** Creates or updates the one summary comment; `post: false` only updates one that exists. */
export async function upsertSummary(
  forge: Forge,
  target: PullRequestTarget,
  summary: Summary,
  post: boolean,
  out: Reconciled,
): Promise<void> {
  const body = `${SUMMARY_MARKER}\n${summary.body}`;
  const [held, ...copies] = (await ownComments(forge, target.repo, target.number))
    .filter((c) => isSummary(c.body))
    .sort((a, b) => a.id - b.id);
  // Copies another writer left (a race seen only now): the oldest stays.
  for (const copy of copies) {
    await forge.deleteComment(target.repo, copy.id);
    out.removedDuplicates++;
  }
  if (held) {
    if (held.body === body) return;
    await forge.updateComment(target.repo, held.id, body);
    out.updated++;
  } else {
    if (!post) return;
    await forge.createComment(target.repo, target.number, body);
    out.created++;
  }
  await removeCopies(forge, target, (b) => (isSummary(b) ? 'summary' : undefined), out);
}
