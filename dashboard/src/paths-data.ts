// The caller's attack paths, fetched page by page with attackPathsConnection(first, after): a small first
// page draws at once (with the listing's total) and the rest streams in behind it in big pages. Kept for
// the session so going back to the list is instant. The state and application filters are the API's; the
// others filter the loaded rows in the page.
import { gql } from './api';

export interface PathRow {
  id: string;
  score: number;
  priority: 'P1' | 'P2' | 'P3';
  critical: boolean;
  directAccess: boolean;
  state: string;
  openForSeconds: number;
  suppression: { state: string } | null;
  start: { id: string; name: string; label: string };
  target: { id: string; name: string; label: string };
  nodes: { label: string }[];
  steps: { weightBasis: string }[];
  applications: string[];
}

// A first page that fills the screen at once, then big pages behind it.
const FIRST_PAGE = 50;
const PAGE = 5000;
const QUERY = `query Paths($first: Int, $after: String, $state: PathState, $application: String) {
  attackPathsConnection(first: $first, after: $after, state: $state, application: $application) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node {
      id score priority critical directAccess state openForSeconds suppression { state }
      start { id name label } target { id name label } nodes { label } steps { weightBasis } applications
    } }
  }
}`;

interface Page {
  attackPathsConnection: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: { node: PathRow }[];
  };
}

export interface PathList {
  rows: PathRow[];
  /** the listing's size over every page (known from the first page on) */
  total: number | null;
  done: boolean;
  error?: string;
}

type Listener = (list: PathList) => void;
let current: { key: string; list: PathList; listeners: Set<Listener>; wake: () => void } | null = null;

/** Starts (or joins) loading the caller's paths in `state` (and `application`); `onChange` hears each page. */
export function watchPaths(state: string, application: string, onChange: Listener): () => void {
  const entry = load(state, application);
  entry.wake();
  entry.listeners.add(onChange);
  onChange(entry.list);
  return () => entry.listeners.delete(onChange);
}

/**
 * Starts loading before the page asks (main.tsx, when the location is /paths): the first page travels
 * while the session is still being read. A failed start is forgotten, so the page asks again.
 */
export function prefetchPaths(search: string): void {
  const q = new URLSearchParams(search);
  const entry = load(q.get('state') ?? 'OPEN', q.get('application') ?? '');
  const drop: Listener = (list) => {
    if (!list.error) return;
    entry.listeners.delete(drop);
    if (current === entry) current = null;
  };
  entry.listeners.add(drop);
}

function load(state: string, application: string) {
  const key = `${state}|${application}`;
  if (current && current.key === key) return current;
  let wake = () => {};
  const woken = new Promise<void>((resolve) => (wake = resolve));
  const entry = {
    key,
    list: { rows: [], total: null, done: false } as PathList,
    listeners: new Set<Listener>(),
    wake,
  };
  current = entry;
  const tell = () => {
    for (const l of [...entry.listeners]) l(entry.list);
  };
  void (async () => {
    let after: string | undefined;
    try {
      for (;;) {
        const first = after === undefined ? FIRST_PAGE : PAGE;
        const data = await gql<Page>(QUERY, { first, after, state, application: application || undefined });
        const page = data.attackPathsConnection;
        entry.list = {
          rows: entry.list.rows.concat(page.edges.map((e) => e.node)),
          total: page.totalCount,
          done: !page.pageInfo.hasNextPage,
        };
        tell();
        if (entry.list.done || current !== entry) return;
        after = page.pageInfo.endCursor!;
        // The big pages wait for the page to ask (a prefetch must not hold up the session's requests on the
        // same server) and for the first rows to be painted.
        if (entry.list.rows.length <= FIRST_PAGE) {
          await woken;
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        }
      }
    } catch (error) {
      entry.list = {
        ...entry.list,
        done: true,
        error: error instanceof Error ? error.message : String(error),
      };
      tell();
    }
  })();
  return entry;
}

/** Forget the loaded list (after a suppression or a new sign-in changes what it holds). */
export function invalidatePaths(): void {
  current = null;
}
