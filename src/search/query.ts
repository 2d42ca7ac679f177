// What a search asks, checked before any index sees it: the words (tokenized as documents are), the page
// size, the cursor. Every refusal is an `invalid-query` problem naming the offending value. Also the
// matching rules both backends share: how far a word may be misspelt, and the snippet around a match.
import { ProblemError } from '../http/problems.js';
import { SEARCH_KINDS, type SearchKind } from './search-index.js';

/** A page holds this many hits unless `first` says otherwise, and at most MAX_FIRST. */
export const DEFAULT_FIRST = 20;
export const MAX_FIRST = 100;
/** Deepest hit a cursor may page to (OpenSearch's default `index.max_result_window`). */
export const MAX_OFFSET = 10_000;
export const MAX_QUERY_CHARS = 256;
export const MAX_TERMS = 16;

/** Words: runs of letters and digits, lowercased (`log4j-core` → `log4j`, `core`; `CVE-2021-44228` → three). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * How many edits a word may be away from an indexed word and still match: none up to three letters (`sql`
 * must not find `ssl`), one up to seven (`chekout` finds `checkout`), two from eight.
 */
export function typoBudget(term: string): number {
  return term.length <= 3 ? 0 : term.length <= 7 ? 1 : 2;
}

/** The caller's words, refused when there are none or too many. */
export function searchTerms(query: string): string[] {
  if (query.length > MAX_QUERY_CHARS)
    throw invalid(`search query is ${query.length} characters long; at most ${MAX_QUERY_CHARS} are taken`, {
      pointer: '/query',
      value: query.slice(0, 64),
    });
  const terms = [...new Set(tokenize(query))];
  if (!terms.length)
    throw invalid(
      query.trim()
        ? `search query ${JSON.stringify(query)} holds no word to search for (letters or digits)`
        : 'search query is empty: give at least one word',
      { pointer: '/query', value: query },
    );
  if (terms.length > MAX_TERMS)
    throw invalid(
      `search query ${JSON.stringify(query.slice(0, 64))} has ${terms.length} words; at most ${MAX_TERMS}`,
      {
        pointer: '/query',
        value: query.slice(0, 64),
      },
    );
  return terms;
}

/** `first`, defaulted, refused outside 1..MAX_FIRST. */
export function pageSize(first: number | null | undefined): number {
  if (first === undefined || first === null) return DEFAULT_FIRST;
  if (!Number.isInteger(first) || first < 1 || first > MAX_FIRST)
    throw invalid(`first must be a whole number from 1 to ${MAX_FIRST}, got ${first}`, {
      pointer: '/first',
      value: first,
    });
  return first;
}

/** The kinds asked for: undefined (all) or a non-empty list of known kinds. */
export function searchKinds(kinds: readonly string[] | null | undefined): SearchKind[] | undefined {
  if (kinds === undefined || kinds === null) return undefined;
  if (!kinds.length)
    throw invalid('kinds is empty: name at least one of node, finding, path, or leave it out for all', {
      pointer: '/kinds',
      value: [],
    });
  const out: SearchKind[] = [];
  for (const kind of kinds) {
    const known = SEARCH_KINDS.find((k) => k === kind.toLowerCase());
    if (!known)
      throw invalid(`kind ${JSON.stringify(kind)} is not one of ${SEARCH_KINDS.join(', ')}`, {
        pointer: '/kinds',
        value: kind,
      });
    if (!out.includes(known)) out.push(known);
  }
  return out;
}

/** The cursor of the hit at `offset` (opaque to callers: pass `endCursor` back as `after`). */
export function cursorAt(offset: number): string {
  return Buffer.from(`search:${offset}`).toString('base64url');
}

/** Where the page after `after` starts; a cursor this service did not hand out is refused by value. */
export function offsetAfter(after: string | null | undefined): number {
  if (after === undefined || after === null) return 0;
  const decoded = /^[A-Za-z0-9_-]{1,32}$/.test(after) ? Buffer.from(after, 'base64url').toString() : '';
  const match = /^search:(\d{1,6})$/.exec(decoded);
  const offset = match ? Number(match[1]) : NaN;
  if (!(offset >= 0 && offset < MAX_OFFSET))
    throw invalid(
      `cursor ${JSON.stringify(after.slice(0, 64))} is not a search cursor (pass pageInfo.endCursor of the previous page as after)`,
      { pointer: '/after', value: after.slice(0, 64) },
    );
  return offset + 1;
}

/** Whether an indexed word matches a query word: by prefix, or as a whole within its typo budget. */
export function wordMatches(word: string, term: string): boolean {
  if (word.startsWith(term)) return true;
  const budget = typoBudget(term);
  return (
    budget > 0 && Math.abs(word.length - term.length) <= budget && editDistance(word, term, budget) <= budget
  );
}

/** Levenshtein distance, stopped once it passes `max` (then max + 1). */
export function editDistance(a: string, b: string, max: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      best = Math.min(best, row[j]);
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length];
}

const SNIPPET_AROUND = 60;

/**
 * The part of a document's text around the first word a query word matches (its head when only the name
 * matched), cut at most SNIPPET_AROUND characters either side, with an ellipsis where it was cut.
 */
export function snippet(text: string, terms: readonly string[]): string {
  let at = -1;
  let end = 0;
  for (const word of text.matchAll(WORD)) {
    const lower = word[0].toLowerCase();
    if (terms.some((t) => wordMatches(lower, t))) {
      at = word.index;
      end = at + word[0].length;
      break;
    }
  }
  if (at < 0)
    return text.length <= 2 * SNIPPET_AROUND ? text : `${text.slice(0, 2 * SNIPPET_AROUND).trimEnd()}…`;
  const from = Math.max(0, at - SNIPPET_AROUND);
  const to = Math.min(text.length, end + SNIPPET_AROUND);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
}

function invalid(detail: string, error: { pointer: string; value: unknown }): ProblemError {
  return new ProblemError('invalid-query', detail, { errors: [{ ...error, detail }] });
}
