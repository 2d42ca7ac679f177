// What the app shows on a pull request: one comment per attack path the change opened or made likelier, and
// per crown jewel it exposes to the internet (a hidden marker with the subject's id makes the upsert
// idempotent; one that no longer applies gets its comment marked resolved), and the `service/attack-paths`
// commit status on the head SHA.
import { createHash } from 'node:crypto';
import type { Forge, RepoRef } from '../../src/forge/forge.js';
import type { GatePath, GateResult, GateViolation } from '../../src/gate/evaluate.js';
import { renderMermaid } from '../gate-client.js';

export const STATUS_CONTEXT = 'service/attack-paths';
/** routes commented on one pull request at most */
export const MAX_COMMENTS = 20;
/** A comment's subject: a route (`ap-<hex>`), or an exposed crown jewel (`exposed-<hex>`). */
const MARKER = /<!-- pathgate:path=((?:ap|exposed)-[0-9a-f]{16}) -->/;
const RESOLVED = '<!-- pathgate:resolved -->';

export interface PullRequestTarget {
  repo: RepoRef;
  number: number;
  sha: string;
}

export interface Reconciled {
  created: number;
  updated: number;
  resolved: number;
  /** copies of one route's comment another writer posted at the same time, removed */
  removedDuplicates: number;
  status: 'pending' | 'success' | 'failure';
}

/** One route, short and scannable: the chain of hops, why it is new or likelier, the priority, the fix. */
export function renderComment(path: GatePath, status: 'opened' | 'worsened', link?: string): string {
  const names = new Map(path.nodes.map((n) => [n.id, n.name]));
  const start = path.nodes[0].name;
  const target = path.nodes.at(-1)!.name;
  const headline = `${path.critical ? '⛔ Critical attack path' : '⚠️ Attack path'} ${status === 'opened' ? 'opened' : 'made likelier'}: ${start} → ${target}`;
  const chain = path.steps.length
    ? [
        `\`${names.get(path.steps[0].from)}\``,
        ...path.steps.map(
          (s) => `—${s.type} ${s.probability.toFixed(2)} (${s.weightBasis})→ \`${names.get(s.to)}\``,
        ),
      ].join(' ')
    : `\`${target}\` is directly accessible`;
  const score =
    path.previousScore === null
      ? `score ${path.score.toFixed(3)}`
      : `score ${path.previousScore.toFixed(3)} → ${path.score.toFixed(3)}`;
  const why = path.why.map((w) =>
    w.change === 'exposed'
      ? `- ${names.get(w.from)} exposed to the internet (${w.weightBasis})`
      : `- ${w.type} ${names.get(w.from)} → ${names.get(w.to)} ${w.change === 'added' ? 'added' : `repriced ${w.previousProbability?.toFixed(2)} →`} ${w.probability.toFixed(2)} (${w.weightBasis})`,
  );
  return [
    `<!-- pathgate:path=${path.id} -->`,
    `### ${headline}`,
    `**${path.priority}**${path.previousPriority && path.previousPriority !== path.priority ? ` (was ${path.previousPriority})` : ''}, ${score}`,
    '',
    chain,
    '',
    renderMermaid(path),
    '',
    ...(why.length ? ['**Why**', ...why, ''] : []),
    `**Fix**: ${path.fix}`,
    ...(link ? ['', `[Open in pathgate](${link})`] : []),
  ].join('\n');
}

function renderResolved(body: string, id: string, sha: string): string {
  const title = /^### .*?: (.*)$/m.exec(body)?.[1] ?? id;
  return [
    `<!-- pathgate:path=${id} -->${RESOLVED}`,
    `### ✅ Resolved: ${title}`,
    `As of ${sha.slice(0, 7)} this change no longer opens or worsens this route.`,
  ].join('\n');
}

/** Brings the pull request's comments and status in line with the gate's result (undefined: no scan yet). */
export async function reconcile(
  forge: Forge,
  target: PullRequestTarget,
  result: GateResult | undefined,
  publicUrl?: string,
  options: { comments?: boolean } = {},
): Promise<Reconciled> {
  const out: Reconciled = { created: 0, updated: 0, resolved: 0, removedDuplicates: 0, status: 'pending' };
  const link = (id?: string) =>
    publicUrl ? `${publicUrl.replace(/\/+$/, '')}${id ? `/paths/${id}` : ''}` : undefined;
  if (!result || (result.verdict === 'unknown' && !result.analysed)) {
    // Nothing to judge yet: a scan of this commit has not reached the gate (or the estate).
    await forge.setStatus(target.repo, target.sha, {
      context: STATUS_CONTEXT,
      state: 'pending',
      description: result
        ? `not analysed yet: ${result.reason}`
        : `waiting for a scan of ${target.sha.slice(0, 7)}`,
    });
    return out;
  }
  const current = [
    ...result.opened.map((p) => ({ path: p, status: 'opened' as const })),
    ...result.worsened.map((p) => ({ path: p, status: 'worsened' as const })),
  ];
  // Comments belong to the pull request's head commit: an older commit's late verdict sets its own status
  // and leaves them alone.
  if (options.comments !== false) {
    const items: CommentItem[] = [
      ...current.map(({ path, status }) => ({
        id: path.id,
        critical: path.critical,
        score: path.score,
        body: renderComment(path, status, link(path.id)),
      })),
      ...(result.exposed ?? []).map((v) => {
        const id = exposureId(v.id);
        return { id, critical: true, score: 1, body: renderExposure(v, id, link()) };
      }),
    ];
    await reconcileComments(forge, target, items, out);
  }
  const critical = current.filter((c) => c.path.critical);
  const exposed = result.exposed ?? [];
  out.status =
    critical.length || exposed.length ? 'failure' : result.verdict === 'unknown' ? 'pending' : 'success';
  const description = critical.length
    ? `${critical.length} critical attack path${critical.length > 1 ? 's' : ''} opened or made likelier`
    : exposed.length
      ? `${exposed.length} crown jewel${exposed.length > 1 ? 's' : ''} exposed to the internet: ${exposed[0].node.name}`
      : result.verdict === 'unknown'
        ? `not analysed: ${result.reason}`
        : current.length
          ? `${current.length} attack path(s) opened or made likelier, none critical`
          : 'no attack path opened or made likelier';
  await forge.setStatus(target.repo, target.sha, {
    context: STATUS_CONTEXT,
    state: out.status,
    description,
    targetUrl: critical.length ? link(critical[0].path.id) : link(),
  });
  return out;
}

/** One comment the pull request should hold: its subject's id, how it ranks, and its text. */
interface CommentItem {
  id: string;
  critical: boolean;
  score: number;
  body: string;
}

/** A comment id for an exposed crown jewel: stable per invariant and node, in the marker's form. */
function exposureId(violationId: string): string {
  return `exposed-${createHash('sha256').update(violationId).digest('hex').slice(0, 16)}`;
}

/** A crown jewel the change puts on the internet: no hop to draw, so the asset, why, and the fix. */
export function renderExposure(v: GateViolation, id: string, link?: string): string {
  return [
    `<!-- pathgate:path=${id} -->`,
    `### ⛔ Crown jewel exposed to the internet: ${v.node.name}`,
    `**${v.severity}**, invariant \`${v.invariant}\``,
    '',
    v.detail,
    ...(v.origin?.terraform?.length
      ? ['', `Declared at ${v.origin.terraform.map((a) => `\`${a}\``).join(', ')}.`]
      : []),
    '',
    `**Fix**: keep ${v.node.label} ${v.node.name} off the internet (no public address, access or policy), or move its sensitive data elsewhere`,
    ...(link ? ['', `[Open in pathgate](${link})`] : []),
  ].join('\n');
}

async function reconcileComments(
  forge: Forge,
  target: PullRequestTarget,
  current: CommentItem[],
  out: Reconciled,
): Promise<void> {
  const existing = new Map<string, { id: number; body: string }>();
  for (const comment of await forge.listComments(target.repo, target.number)) {
    const id = MARKER.exec(comment.body)?.[1];
    if (id && !existing.has(id)) existing.set(id, comment);
  }
  let wrote = false;
  // A pull request is read by people: the worst routes get a comment each (critical first, then by score);
  // the status counts them all. A route past the cap keeps the comment it already has.
  const ranked = [...current].sort((a, b) => Number(b.critical) - Number(a.critical) || b.score - a.score);
  for (const item of ranked.slice(MAX_COMMENTS)) existing.delete(item.id);
  for (const { id, body } of ranked.slice(0, MAX_COMMENTS)) {
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
    await forge.updateComment(target.repo, comment.id, renderResolved(comment.body, id, target.sha));
    out.resolved++;
  }
  if (!wrote) return;
  // Re-read after writing: another writer (a second replica, a retried delivery) may have posted the same
  // route at the same moment. The oldest comment of each route stays; later copies go.
  const seen = new Set<string>();
  const all = await forge.listComments(target.repo, target.number);
  for (const comment of [...all].sort((a, b) => a.id - b.id)) {
    const id = MARKER.exec(comment.body)?.[1];
    if (!id) continue;
    if (!seen.has(id)) {
      seen.add(id);
      continue;
    }
    await forge.deleteComment(target.repo, comment.id);
    out.removedDuplicates++;
  }
}
