// Whether a patched change can move any route, decided on the caller's thread by walking only the few
// nodes around it (a fork's arrays are copy-on-write views: cheap to read a little, slow to read all). The
// gate asks it before handing a fork to a search: a pull request's report that restates an image with new
// CVEs and packages (leaves no route reaches through) changes nothing a route can use, and answers with
// the live paths as they are, in far less than a search (docs/perf.md, "Merge gate").
// Exact by the rules of pass-scope.ts: a root's pairs change only when one of its routes uses a removed or
// repriced edge, or when a cheaper (or new) edge's head reaches a target and its tail is reached from a
// start. The walks ignore hop prices, which only widens what they find.
import type { PairPath, SearchSide } from './best-paths.js';
import { ROLE_START, ROLE_TARGET } from './compiled-graph.js';
import type { Adjacency, SyncResult } from './live-graph.js';
import { rootsOnChangedRoutes } from './pass-scope.js';

/** Nodes a walk may visit before it gives up and the change is searched (conservatively). */
const WALK_BUDGET = 20_000;

/**
 * True when the change provably moves no route of `previous` (the search of the graph the fork was made
 * from) and joins no new pair; false when it may (then search).
 */
export function changeIsInert(
  g: Adjacency & { nodeCount: number; edgeCount: number },
  change: SyncResult,
  previous: { side: SearchSide; found: readonly PairPath[] },
): boolean {
  if (change.rebuilt || change.rolesChanged) return false;
  if (rootsOnChangedRoutes(g.edgeCount, previous.side, change, previous.found).length) return false;
  if (!change.cheaper.length) return true;
  const heads = change.cheaper.map((k) => g.edgeTo[k]);
  // The heads reach no target: no cheaper edge can end a route.
  if (walk(g, heads, 'forward', ROLE_TARGET) === false) return true;
  // No start reaches a tail: no cheaper edge can begin or continue one.
  const tails = change.cheaper.map((k) => g.edgeFrom[k]);
  return walk(g, tails, 'backward', ROLE_START) === false;
}

/**
 * The edges a scoped search must treat as new for the starts a change added: their out-edges (a new start
 * joins exactly the targets its out-edges lead to). With change.cheaper, what scopedRoots seeds from.
 */
export function seedEdges(g: Adjacency, change: SyncResult): number[] {
  const seeds = [...change.cheaper];
  for (const s of change.startsAdded ?? [])
    for (let slot = g.fStart[s], end = g.fEnd[s]; slot < end; slot++) seeds.push(g.fEdges[slot]);
  return seeds;
}

/**
 * Whether a breadth-first walk from `seeds` (forward along out-edges, or backward along in-edges) meets a
 * node of `role`: true, false, or undefined when it ran out of budget first.
 */
function walk(
  g: Adjacency & { nodeCount: number },
  seeds: readonly number[],
  direction: 'forward' | 'backward',
  role: number,
): boolean | undefined {
  const seen = new Set<number>();
  const queue: number[] = [];
  for (const s of seeds)
    if (!seen.has(s)) {
      seen.add(s);
      queue.push(s);
    }
  const [start, end, adj] = direction === 'forward' ? [g.fStart, g.fEnd, g.fTo] : [g.rStart, g.rEnd, g.rFrom];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head];
    if ((g.roles[u] & role) !== 0) return true;
    if (seen.size > WALK_BUDGET) return undefined;
    for (let k = start[u], stop = end[u]; k < stop; k++) {
      const v = adj[k];
      if (!seen.has(v)) {
        seen.add(v);
        queue.push(v);
      }
    }
  }
  return false;
}
