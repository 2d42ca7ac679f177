// The best paths of "the live estate + a change" without compiling the estate again: a fork of the
// tenant's live compiled graph (live-graph.ts) is patched with the change, and only the roots the change
// can affect are searched (pass-scope.ts); the others keep the live pass's pairs. The merge gate lays a pull
// request's report over the live graph this way (src/gate/evaluate.ts).
import { searchSide, type PairPath, type SearchSide } from './best-paths.js';
import { changeIsInert, seedEdges } from './change-reach.js';
import type { CompiledGraph } from './compiled-graph.js';
import type { LiveGraph, PatchSource, SyncResult } from './live-graph.js';
import { mergeScoped, rootsOnChangedRoutes } from './pass-scope.js';
import type { PathFinder } from './path-finder.js';
import type { TakenChanges } from '../graph/model.js';

export interface PatchedSearch {
  /** The patched fork's copy: the routes in `found` point into it. */
  compiled: CompiledGraph;
  side: SearchSide;
  found: PairPath[];
  /** Roots searched, and how many there are (a full search when equal). */
  searchedRoots: number;
  roots: number;
}

/** A fork of a live graph, patched, not searched yet (it pins the live graph until searched or released). */
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
  let change: SyncResult | null = null;
  try {
    change = fork.patchWith(source, changes, options.identity ?? false);
  } finally {
    if (!change) fork.release();
  }
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
  try {
    const side = searchSide(fork);
    const all = side === 'targets' ? fork.targets : fork.starts;
    // New starts alone (a pull request's new internet-facing load balancer) keep the search scoped: they
    // join only the roots their out-edges lead to (change-reach.ts, seedEdges).
    const scoped =
      previous !== null &&
      (!change.rolesChanged || change.startsAdded !== undefined) &&
      previous.side === side;
    // The main thread reads only the previous routes; the copy, the walk over the graph for the roots a
    // cheaper hop reaches and the search run on a worker (path-worker.ts).
    const result = await finder.findPatched(
      {
        delta: fork.forkDelta(),
        side,
        onChanged: scoped ? rootsOnChangedRoutes(fork.edgeCount, side, change, previous.found) : null,
        cheaper: Int32Array.from(scoped ? seedEdges(fork.adjacency(), change) : change.cheaper),
      },
      () => fork.release(),
    );
    const found = scoped
      ? mergeScoped(previous.found, result.found, result.roots, side, fork.nodeCount)
      : result.found;
    return {
      compiled: fork.searchable(result.arrays),
      side,
      found,
      searchedRoots: result.roots.length,
      roots: all.length,
    };
  } finally {
    fork.release();
  }
}

/**
 * Whether a patched fork's change provably moves no route of `previous` (the search of the graph it was
 * forked from) and joins no new pair: its routes are then `previous`'s, and no search is needed.
 */
export function forkIsInert(
  { fork, change }: PatchedFork,
  previous: { side: SearchSide; found: PairPath[] },
): boolean {
  return changeIsInert(
    { ...fork.adjacency(), nodeCount: fork.nodeCount, edgeCount: fork.edgeCount },
    change,
    previous,
  );
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
