// The routes a change leaves as they were (`preexisting`): counted in every gate answer, listed only on
// request (`?preexisting=list`, paged with `first` and `after`). A no-op pull request on a large estate
// otherwise answered every live route (1,983 on the 100k benchmark estate, 195 KB) with nothing about the
// change in them (issue 32; docs/gate.md, "Preexisting routes").
import { ProblemError } from '../http/problems.js';
import type { Priority } from '../paths/path-store.js';

export interface PathEntry {
  id: string;
  status: 'opened' | 'worsened' | 'preexisting';
  score: number;
  priority: Priority;
}

export interface PreexistingQuery {
  list: boolean;
  first: number;
  /** offset of the first entry of the page */
  offset: number;
}

/** The page of preexisting routes given with `?preexisting=list`: where it ends and whether more follow. */
export interface PreexistingPage {
  first: number;
  after: string | null;
  endCursor: string | null;
  hasNextPage: boolean;
}

export const DEFAULT_FIRST = 100;
export const MAX_FIRST = 10_000;

const refuse = (pointer: string, value: unknown, detail: string): never => {
  throw new ProblemError('invalid-query', detail, { errors: [{ pointer, value, detail }] });
};

/** Reads `preexisting`, `first` and `after`; a value it cannot take is a 400 naming it. */
export function readPreexistingQuery(query: Record<string, string | undefined>): PreexistingQuery {
  const mode = query.preexisting ?? 'count';
  if (mode !== 'count' && mode !== 'list')
    refuse(
      '/query/preexisting',
      mode,
      `preexisting must be count (the default) or list, not ${JSON.stringify(mode)}`,
    );
  let first = DEFAULT_FIRST;
  if (query.first !== undefined) {
    first = Number(query.first);
    if (!/^\d+$/.test(query.first) || first < 1 || first > MAX_FIRST)
      refuse(
        '/query/first',
        query.first,
        `first must be a whole number from 1 to ${MAX_FIRST}, not ${JSON.stringify(query.first)}`,
      );
  }
  let offset = 0;
  if (query.after !== undefined) {
    const decoded = /^o:(\d{1,9})$/.exec(Buffer.from(query.after, 'base64url').toString('utf8'));
    if (!decoded)
      refuse(
        '/query/after',
        query.after,
        `after must be an endCursor a gate answer gave, not ${JSON.stringify(query.after)}`,
      );
    offset = Number(decoded![1]) + 1;
  }
  return { list: mode === 'list', first, offset };
}

const cursor = (index: number) => Buffer.from(`o:${index}`).toString('base64url');

/**
 * The answer's `paths[]` and its page: the routes the change opened or worsened always, then, with
 * `?preexisting=list`, one page of the preexisting ones (highest score first, then by id).
 */
export function pathsAnswer(
  changed: PathEntry[],
  preexisting: PathEntry[],
  query: PreexistingQuery,
): { paths: PathEntry[]; preexistingPage?: PreexistingPage } {
  if (!query.list) return { paths: changed };
  const sorted = [...preexisting].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const page = sorted.slice(query.offset, query.offset + query.first);
  const last = query.offset + page.length - 1;
  return {
    paths: [...changed, ...page],
    preexistingPage: {
      first: query.first,
      after: query.offset > 0 ? cursor(query.offset - 1) : null,
      endCursor: page.length ? cursor(last) : null,
      hasNextPage: last + 1 < sorted.length,
    },
  };
}
