// The best paths of "the live estate + a change" without compiling the estate again: a fork of the
// tenant's live compiled graph (live-graph.ts) is patched with the change, and only the roots the change
// can affect are searched (pass-scope.ts); the others keep the live pass's pairs. The merge gate lays a pull
// request's report over the live graph this way (src/gate/evaluate.ts).
import { searchSide, type PairPath, type SearchSide } from './best-paths.js';
import type { LiveGraph, PatchSource, SyncResult } from './live-graph.js';
import { affectedRoots, mergeScoped } from './pass-scope.js';
import type { PathFinder } from './path-finder.js';
import type { TakenChanges } from '../graph/model.js';

export interface PatchedSearch {
  /** The patched fork: the routes in `found` point into it. */
  compiled: LiveGraph;
  side: SearchSide;
  found: PairPath[];
  /** Roots searched, and how many there are (a full search when equal). */
  searchedRoots: number;
  roots: number;
}

/** A fork of a live graph, patched, not searched yet. */
export interface PatchedFork {
  fork: LiveGraph;
  change: SyncResult;
}

/**
 * Forks `live` and patches the fork with `changes` as `source` presents them, synchronously: what the fork
 * holds is the graph of this moment. `live` must be in step with the graph `source` is laid over. Null when
 * the change is too large to patch or `live` was compiled with other start rules (compile afresh then).
 */
export function patchFork(
  live: LiveGraph,
  source: PatchSource,
  changes: TakenChanges,
  options: {
    seedIamUsers: boolean;
    /** `source` is a tenant graph (see LiveGraph.patchWith). */
    identity?: boolean;
  },
): PatchedFork | null {
  if (live.seededIamUsers !== options.seedIamUsers) return null;
  const fork = live.fork();
  const change = fork.patchWith(source, changes, options.identity ?? false);
  return change ? { fork, change } : null;
}

/**
 * Searches a patched fork: only the roots the change can affect when `previous` is the search of the graph
 * it was forked from, everything otherwise.
 */
export async function searchFork(
  { fork, change }: PatchedFork,
  previous: { side: SearchSide; found: PairPath[] } | null,
  finder: PathFinder,
): Promise<PatchedSearch> {
  const side = searchSide(fork);
  const all = side === 'targets' ? fork.targets : fork.starts;
  const roots =
    previous && !change.rolesChanged && previous.side === side
      ? affectedRoots(fork, side, change, previous.found)
      : undefined;
  const searched = await finder.find(fork, roots);
  const found =
    roots && previous ? mergeScoped(previous.found, searched, roots, side, fork.nodeCount) : searched;
  return { compiled: fork, side, found, searchedRoots: roots ? roots.length : all.length, roots: all.length };
}

/** patchFork, then searchFork against `previous` (the search of `live` as it is). */
export async function searchPatched(
  live: LiveGraph,
  previous: { side: SearchSide; found: PairPath[] } | null,
  source: PatchSource,
  changes: TakenChanges,
  options: { finder: PathFinder; seedIamUsers: boolean; identity?: boolean },
): Promise<PatchedSearch | null> {
  const patched = patchFork(live, source, changes, options);
  return patched ? searchFork(patched, previous, options.finder) : null;
}
