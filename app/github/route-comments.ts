// The per-fix comments on a pull request: one comment per fix, naming the routes it cuts (routes that
// share a fix share a comment), and one per crown jewel the change exposes. A hidden marker with the
// subject's id (and the routes it covers) makes the upsert idempotent; a subject that no longer applies
// gets its comment marked resolved, or, when its routes moved to another comment, says so. Only the
// app's own comments are read (app/github/own-comments.ts); every value is escaped (app/github/markdown.ts).
import type { Forge } from '../../src/forge/forge.js';
import type { GatePath } from '../../src/gate/evaluate.js';
import { renderMermaid } from '../gate-client.js';
import type { ExposureItem, FixGroup, GroupedRoute } from './fix-groups.js';
import { pathLink, type LinkSettings } from './links.js';
import type { Located } from './locate.js';
import { mdCode, mdText } from './markdown.js';
import { ownComments, routesOf, subjectOf } from './own-comments.js';
import type { PullRequestTarget, Reconciled } from './pull-request.js';

/** comments (fixes and exposures) on one pull request at most */
export const MAX_COMMENTS = 20;
const RESOLVED = '<!-- pathgate:resolved -->';
/** diagrams drawn in one comment at most (a fix shared by many routes draws the worst) */
const DIAGRAMS_PER_COMMENT = 3;

/** The route's ends as code: `start` → `target`. */
export const routeEnds = (path: Pick<GatePath, 'nodes'>): string =>
  `${mdCode(path.nodes[0].name)} → ${mdCode(path.nodes.at(-1)!.name)}`;

/** `resource` at `file:line`, or the resource alone. */
export const resourceText = (r: Located): string =>
  r.path
    ? `${mdCode(r.resource)} at ${mdCode(`${r.path}${r.line ? `:${r.line}` : ''}`)}`
    : mdCode(r.resource);

export const scoreText = (path: Pick<GatePath, 'score' | 'previousScore'>): string =>
  path.previousScore === null
    ? `score ${path.score.toFixed(3)}`
    : `score ${path.previousScore.toFixed(3)} → ${path.score.toFixed(3)}`;

/** One route: the chain of hops, the priority and score, why it is new or likelier, its diagram. */
function renderRoute({ path, status }: GroupedRoute, diagram: boolean, links?: LinkSettings): string[] {
  const names = new Map(path.nodes.map((n) => [n.id, n.name]));
  const name = (id: string) => mdCode(names.get(id) ?? id);
  const chain = path.steps.length
    ? [
        name(path.steps[0].from),
        ...path.steps.map(
          (s) => `—${mdText(s.type)} ${s.probability.toFixed(2)} (${mdText(s.weightBasis)})→ ${name(s.to)}`,
        ),
      ].join(' ')
    : `${mdCode(path.nodes.at(-1)!.name)} is directly accessible`;
  const why = path.why.map((w) =>
    w.change === 'exposed'
      ? `- ${name(w.from)} exposed to the internet (${mdText(w.weightBasis)})`
      : `- ${mdText(w.type)} ${name(w.from)} → ${name(w.to)} ${w.change === 'added' ? 'added' : `repriced ${w.previousProbability?.toFixed(2)} →`} ${w.probability.toFixed(2)} (${mdText(w.weightBasis)})`,
  );
  const link = pathLink(links, path.id);
  return [
    `**${path.priority}**${path.previousPriority && path.previousPriority !== path.priority ? ` (was ${path.previousPriority})` : ''}, ${scoreText(path)}, ${status === 'opened' ? 'opened' : 'made likelier'}`,
    '',
    chain,
    '',
    ...(diagram ? [renderMermaid(path), ''] : []),
    ...(why.length ? ['**Why**', ...why, ''] : []),
    ...(link ? [`[Open in pathgate](${link})`, ''] : []),
  ];
}

/** One fix and the routes it cuts. */
export function renderFixComment(group: FixGroup, links?: LinkSettings): string {
  const [worst] = group.routes;
  const icon = group.critical ? '⛔' : '⚠️';
  const headline =
    group.routes.length === 1
      ? `${icon} ${worst.path.critical ? 'Critical attack path' : 'Attack path'} ${worst.status === 'opened' ? 'opened' : 'made likelier'}: ${routeEnds(worst.path)}`
      : `${icon} ${group.routes.length} attack paths share one fix: ${group.routes
          .slice(0, 3)
          .map((r) => routeEnds(r.path))
          .join(', ')}${group.routes.length > 3 ? ', …' : ''}`;
  const out = [
    `<!-- pathgate:path=${group.id} -->`,
    `<!-- pathgate:routes=${group.routes.map((r) => r.path.id).join(',')} -->`,
    `### ${headline}`,
    '',
    `**Fix**: ${mdText(group.fix)}`,
    ...(group.resources.length ? ['', `**Where**: ${group.resources.map(resourceText).join('; ')}`] : []),
    '',
  ];
  for (const [i, route] of group.routes.entries()) {
    if (group.routes.length > 1) out.push(`#### ${routeEnds(route.path)}`, '');
    out.push(...renderRoute(route, i < DIAGRAMS_PER_COMMENT, links));
  }
  return out.join('\n').trimEnd();
}

/** A crown jewel the change puts on the internet: no hop to draw, so the asset, why, and the fix. */
export function renderExposure(item: ExposureItem, links?: LinkSettings): string {
  const v = item.violation;
  const link = pathLink(links);
  return [
    `<!-- pathgate:path=${item.id} -->`,
    `### ⛔ Crown jewel exposed to the internet: ${mdCode(v.node.name)}`,
    `**${mdText(v.severity)}**, invariant ${mdCode(v.invariant)}`,
    '',
    mdText(v.detail),
    ...(item.resources.length ? ['', `**Where**: ${item.resources.map(resourceText).join('; ')}`] : []),
    '',
    `**Fix**: keep ${mdText(v.node.label)} ${mdCode(v.node.name)} off the internet (no public address, access or policy), or move its sensitive data elsewhere`,
    ...(link ? ['', `[Open in pathgate](${link})`] : []),
  ].join('\n');
}

/** A subject that no longer applies: its headline kept, marked resolved. */
function renderResolved(body: string, id: string, sha: string): string {
  const title = /^### .*?: (.*)$/m.exec(body)?.[1] ?? mdCode(id);
  return [
    `<!-- pathgate:path=${id} -->${RESOLVED}`,
    `### ✅ Resolved: ${title}`,
    `As of ${mdCode(sha.slice(0, 7))} this change no longer opens or worsens this route.`,
  ].join('\n');
}

/** A comment whose routes are now discussed with others sharing their fix. */
function renderMoved(body: string, id: string): string {
  const title = /^### .*?: (.*)$/m.exec(body)?.[1] ?? mdCode(id);
  return [
    `<!-- pathgate:path=${id} -->${RESOLVED}`,
    `### ↪️ Moved: ${title}`,
    'This route is now discussed in the comment of the fix it shares with other routes.',
  ].join('\n');
}

/** One comment the pull request should hold: its subject's id, how it ranks, and its text. */
export interface CommentItem {
  id: string;
  routes: string[];
  body: string;
}

export function commentItems(
  groups: FixGroup[],
  exposed: ExposureItem[],
  links?: LinkSettings,
): CommentItem[] {
  // Exposures block as critical routes do: they come first.
  return [
    ...exposed.map((e) => ({ id: e.id, routes: [], body: renderExposure(e, links) })),
    ...groups.map((g) => ({
      id: g.id,
      routes: g.routes.map((r) => r.path.id),
      body: renderFixComment(g, links),
    })),
  ];
}

/** Brings the app's per-fix and exposure comments in line with `items` (already ranked, worst first). */
export async function reconcileRouteComments(
  forge: Forge,
  target: PullRequestTarget,
  items: CommentItem[],
  out: Reconciled,
): Promise<void> {
  const existing = new Map<string, { id: number; body: string }>();
  for (const comment of await ownComments(forge, target.repo, target.number)) {
    const id = subjectOf(comment.body);
    if (id && !existing.has(id)) existing.set(id, comment);
  }
  let wrote = false;
  // A subject past the cap keeps the comment it already has; the summary and the status count them all.
  for (const item of items.slice(MAX_COMMENTS)) existing.delete(item.id);
  const current = new Set(items.flatMap((i) => i.routes));
  for (const { id, body } of items.slice(0, MAX_COMMENTS)) {
    const comment = existing.get(id);
    if (!comment) {
      await forge.createComment(target.repo, target.number, body);
      out.created++;
      wrote = true;
    } else if (comment.body !== body) {
      await forge.updateComment(target.repo, comment.id, body);
      out.updated++;
      wrote = true;
    }
    existing.delete(id);
  }
  for (const [id, comment] of existing) {
    if (comment.body.includes(RESOLVED)) continue;
    const moved = routesOf(comment.body).some((route) => current.has(route));
    await forge.updateComment(
      target.repo,
      comment.id,
      moved ? renderMoved(comment.body, id) : renderResolved(comment.body, id, target.sha),
    );
    out.resolved++;
  }
  if (wrote) await removeCopies(forge, target, (body) => subjectOf(body), out);
}

/**
 * Re-read after writing: another writer (a second replica, a retried delivery) may have posted the same
 * subject at the same moment. The oldest of the app's own comments for each subject stays; later copies go.
 */
export async function removeCopies(
  forge: Forge,
  target: PullRequestTarget,
  keyOf: (body: string) => string | undefined,
  out: Reconciled,
): Promise<void> {
  const seen = new Set<string>();
  const all = await ownComments(forge, target.repo, target.number);
  for (const comment of [...all].sort((a, b) => a.id - b.id)) {
    const key = keyOf(comment.body);
    if (!key) continue;
    if (!seen.has(key)) {
      seen.add(key);
      continue;
    }
    await forge.deleteComment(target.repo, comment.id);
    out.removedDuplicates++;
  }
}
