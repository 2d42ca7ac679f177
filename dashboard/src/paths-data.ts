// The caller's attack paths, fetched page by page with attackPaths(first, after): the first page draws at
// once and the rest streams in behind it. Kept for the session so going back to the list is instant.
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
}

// A first page that fills the screen at once, then big pages behind it.
const FIRST_PAGE = 200;
const PAGE = 5000;
const QUERY = `query Paths($first: Int, $after: ID, $state: PathState) {
  attackPaths(first: $first, after: $after, state: $state) {
    id score priority critical directAccess state openForSeconds suppression { state }
    start { id name label } target { id name label } nodes { label } steps { weightBasis }
  }
}`;

export interface PathList {
  rows: PathRow[];
  done: boolean;
  error?: string;
}

type Listener = (list: PathList) => void;
let current: { state: string; list: PathList; listeners: Set<Listener> } | null = null;

/** Starts (or joins) loading the caller's paths in `state`; `onChange` hears each page. */
export function watchPaths(state: string, onChange: Listener): () => void {
  if (!current || current.state !== state) {
    const entry = { state, list: { rows: [], done: false } as PathList, listeners: new Set<Listener>() };
    current = entry;
    void (async () => {
      let after: string | undefined;
      try {
        for (;;) {
          const first = after === undefined ? FIRST_PAGE : PAGE;
          const data = await gql<{ attackPaths: PathRow[] }>(QUERY, { first, after, state });
          entry.list = {
            rows: entry.list.rows.concat(data.attackPaths),
            done: data.attackPaths.length < first,
          };
          for (const l of entry.listeners) l(entry.list);
          if (entry.list.done || current !== entry) return;
          after = data.attackPaths.at(-1)!.id;
        }
      } catch (error) {
        entry.list = {
          ...entry.list,
          done: true,
          error: error instanceof Error ? error.message : String(error),
        };
        for (const l of entry.listeners) l(entry.list);
      }
    })();
  }
  const entry = current;
  entry.listeners.add(onChange);
  onChange(entry.list);
  return () => entry.listeners.delete(onChange);
}

/** Forget the loaded list (after a suppression or a new sign-in changes what it holds). */
export function invalidatePaths(): void {
  current = null;
}
