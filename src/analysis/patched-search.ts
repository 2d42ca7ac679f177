// The best paths of "the live estate + a change" without compiling the estate again: a fork of the
// tenant's live compiled graph (live-graph.ts) is patched with the change, and only the roots the change
// can affect are searched (pass-scope.ts); the others keep the live pass's pairs. The merge gate lays a pull
// request's report over the live graph this way (src/gate/evaluate.ts).
import { searchSide, type PairPath, type SearchSide } from './best-paths.js';
import type { LiveGraph, PatchSource } from './live-graph.js';
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

/**
 * `live` must be in step with the graph `source` is laid over, and `previous` (when given) must be the
 * search of `live` as it is; null when the change is too large to patch, or `live` was compiled with
 * other start rules (compile the overlay afresh then).
 */
export async function searchPatched(
  live: LiveGraph,
  previous: { side: SearchSide; found: PairPath[] } | null,
  source: PatchSource,
  changes: TakenChanges,
  options: {
    finder: PathFinder;
    seedIamUsers: boolean;
    /** `source` is a tenant graph (see LiveGraph.patchWith). */
    identity?: boolean;
    /** Patch `live` itself rather than a fork of it (a fork no one else reads). */
    inPlace?: boolean;
  },
): Promise<PatchedSearch | null> {
  if (live.seededIamUsers !== options.seedIamUsers) return null;
  const fork = options.inPlace ? live : live.fork();
  const patched = fork.patchWith(source, changes, options.identity ?? false);
  if (!patched) return null;
  const side = searchSide(fork);
  const all = side === 'targets' ? fork.targets : fork.starts;
  const roots =
    previous && !patched.rolesChanged && previous.side === side
      ? affectedRoots(fork, side, patched, previous.found)
      : undefined;
  const searched = await options.finder.find(fork, roots);
  const found =
    roots && previous ? mergeScoped(previous.found, searched, roots, side, fork.nodeCount) : searched;
  return { compiled: fork, side, found, searchedRoots: roots ? roots.length : all.length, roots: all.length };
}
