// Checking an answer against the store. The model is asked to cite ids as [path:<id>], [node:<id>] or
// [finding:<id>] (several may share brackets, comma-separated). Each is looked up in the caller's tenant: a
// path must exist there and be one the caller may see, a node must exist in the tenant graph, a finding must
// be a finding node (CVE, Weakness, Misconfiguration, Secret) there; an apps-bound caller may cite nodes and
// findings only from what was retrieved for it. A citation that does not resolve is taken out of the
// citations and its marker in the text becomes `[unresolved citation]`. The answer is cut into sentences
// (claims); a claim that rests on no resolved citation is `verified: false`, and the answer `unverified`.
import type { Principal } from '../auth/principal.js';
import { pathFilter } from '../auth/scope.js';
import type { TenantGraph } from '../graph/model.js';
import type { PathStore } from '../paths/path-store.js';
import { citableIds, FINDING_LABELS, type Citation, type CitationKind, type Grounding } from './grounding.js';

export const UNRESOLVED_MARK = '[unresolved citation]';

export interface Claim {
  text: string;
  citations: Citation[];
  verified: boolean;
}

export interface AnswerWarning {
  code: 'unresolved-citation' | 'uncited-claim';
  detail: string;
  citation?: Citation;
}

export interface CheckedAnswer {
  answer: string;
  /** resolved citations, each once, in the order the answer first gives them */
  citations: Citation[];
  /** citations that did not resolve, removed from `citations` */
  unresolved: Citation[];
  claims: Claim[];
  /** true when a claim rests on no resolved citation or a citation did not resolve */
  unverified: boolean;
  warnings: AnswerWarning[];
}

export interface CitationScope {
  principal: Principal;
  graph: TenantGraph | undefined;
  paths: PathStore | undefined;
  grounding: Grounding;
}

/** `[path:ap-1]`, `[node:Service:ab…]`, `[path:ap-1, finding:CVE:cd…]`. */
const MARKER = /\[\s*((?:path|node|finding)\s*:[^\]\n]{1,600})\]/g;
const KINDS: ReadonlySet<string> = new Set<CitationKind>(['path', 'node', 'finding']);

function parseMarker(inner: string): Citation[] | undefined {
  const out: Citation[] = [];
  for (const part of inner.split(/[,;]\s*/)) {
    const at = part.indexOf(':');
    const kind = part.slice(0, at).trim();
    const id = part.slice(at + 1).trim();
    if (at < 0 || !KINDS.has(kind) || !id || /\s/.test(id)) return undefined;
    out.push({ kind: kind as CitationKind, id });
  }
  return out;
}

function resolver(scope: CitationScope): (c: Citation) => boolean {
  const visible = pathFilter(scope.principal, scope.graph);
  const offered = citableIds(scope.grounding);
  const scoped = scope.principal.apps !== undefined;
  const { graph, paths } = scope;
  return (c) => {
    if (c.kind === 'path') {
      const record = paths?.get(c.id);
      return record !== undefined && visible(record);
    }
    if (!graph?.hasNode(c.id)) return false;
    if (scoped && !offered.node.has(c.id) && !offered.finding.has(c.id)) return false;
    return c.kind === 'node' || FINDING_LABELS.has(graph.getNodeAttribute(c.id, 'label'));
  };
}

const key = (c: Citation) => `${c.kind}:${c.id}`;

/** Sentences of the answer: a run of markers alone after a sentence belongs to that sentence. */
function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const bare = line.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6})\s+/, '').trim();
    if (!bare || /^[-*_=|\s]+$/.test(bare)) continue;
    for (const piece of bare.split(/(?<=[.!?])\s+/)) {
      const markersOnly = piece.replace(MARKER, '').trim() === '' || piece.trim() === UNRESOLVED_MARK;
      if (markersOnly && out.length) out[out.length - 1] += ` ${piece}`;
      else out.push(piece);
    }
  }
  return out;
}

/** Whether a sentence states something: a lead-in (`Two routes:`) or a word or two does not. */
function isClaim(sentence: string): boolean {
  const words = sentence.replace(MARKER, ' ').replaceAll(UNRESOLVED_MARK, ' ').trim();
  if (words.endsWith(':')) return false;
  return words.split(/\s+/).filter((w) => /[A-Za-z0-9]/.test(w)).length >= 3;
}

export function checkAnswer(text: string, scope: CitationScope): CheckedAnswer {
  const resolves = resolver(scope);
  const verdicts = new Map<string, boolean>();
  const judged = (c: Citation) => {
    let ok = verdicts.get(key(c));
    if (ok === undefined) verdicts.set(key(c), (ok = resolves(c)));
    return ok;
  };
  const citations: Citation[] = [];
  const unresolved: Citation[] = [];
  const seen = new Set<string>();
  // Markers rewritten: resolved ones kept (one per citation), unresolved ones marked.
  const answer = text.replace(MARKER, (whole: string, inner: string) => {
    const parsed = parseMarker(inner);
    if (!parsed) return whole;
    const good: Citation[] = [];
    let bad = false;
    for (const c of parsed) {
      if (judged(c)) good.push(c);
      else bad = true;
      if (seen.has(key(c))) continue;
      seen.add(key(c));
      (judged(c) ? citations : unresolved).push(c);
    }
    const kept = good.length ? `[${good.map(key).join(', ')}]` : '';
    return [kept, bad ? UNRESOLVED_MARK : ''].filter(Boolean).join(' ');
  });
  const claims: Claim[] = [];
  for (const sentence of sentences(answer)) {
    if (!isClaim(sentence)) continue;
    const cited: Citation[] = [];
    for (const m of sentence.matchAll(MARKER)) cited.push(...(parseMarker(m[1]) ?? []));
    claims.push({ text: sentence, citations: cited, verified: cited.length > 0 });
  }
  const warnings: AnswerWarning[] = unresolved.map((c) => ({
    code: 'unresolved-citation' as const,
    citation: c,
    detail: `${c.kind} ${c.id} is not in this tenant's store (or not one this caller may see): removed`,
  }));
  const uncited = claims.filter((c) => !c.verified).length;
  if (uncited)
    warnings.push({
      code: 'uncited-claim',
      detail: `${uncited} of ${claims.length} statements rest on no citation that resolves: unverified, not fact`,
    });
  return {
    answer,
    citations,
    unresolved,
    claims,
    unverified: uncited > 0 || unresolved.length > 0,
    warnings,
  };
}
