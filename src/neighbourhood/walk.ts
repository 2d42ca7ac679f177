// The nodes and edges around one or more nodes of a tenant graph, bounded by depth and a node limit, within
// the applications of a credential bound to some (appsOfNode, as status.graph counts them). The GraphQL
// `neighbourhood` field (app/graphql/neighbourhood.ts) and the graph export (GET /export/graph) both walk
// here, so the export carries exactly what the dashboard's graph view is shown.
import { appsOfNode } from '../auth/scope.js';
import type { EdgeAttributes, TenantGraph } from '../graph/model.js';

/** Hops from the seeds at most. */
export const MAX_NEIGHBOURHOOD_DEPTH = 6;
/** Nodes at most, the seeds included; edges at most twice as many. */
export const MAX_NEIGHBOURHOOD_NODES = 5000;
export const DEFAULT_NEIGHBOURHOOD_NODES = 2000;

export interface NeighbourhoodEdge {
  from: string;
  to: string;
  attrs: EdgeAttributes;
}

export interface Neighbourhood {
  /** Every node reached and its hops from the nearest seed, nearest first (the seeds first of all). */
  distance: Map<string, number>;
  /** The edges between the nodes reached, one per (type, from, to), at most twice `limit`. */
  edges: NeighbourhoodEdge[];
  /** True when the limit stopped the walk (or the edges) before everything within depth was taken. */
  truncated: boolean;
}

/** Whether the caller sees a node: everyone unless bound to applications (memoised over one request). */
export function nodeVisibility(
  graph: TenantGraph,
  apps: readonly string[] | undefined,
): (id: string) => boolean {
  if (!apps) return () => true;
  const wanted = new Set(apps);
  const seen = new Map<string, boolean>();
  return (id) => {
    let hit = seen.get(id);
    if (hit === undefined) seen.set(id, (hit = appsOfNode(graph, id).some((a) => wanted.has(a))));
    return hit;
  };
}

/**
 * Breadth-first from `seeds` (edges followed either way) through visible nodes only. Seeds are taken as
 * given (the caller decides they may be shown) and count against `limit`.
 */
export function walkNeighbourhood(
  graph: TenantGraph,
  seeds: readonly string[],
  options: { depth: number; limit: number; visible: (id: string) => boolean },
): Neighbourhood {
  const { depth, limit, visible } = options;
  const distance = new Map<string, number>();
  for (const seed of seeds) distance.set(seed, 0);
  let frontier = [...distance.keys()];
  let truncated = false;
  walk: for (let d = 1; d <= depth && frontier.length; d++) {
    const next: string[] = [];
    for (const node of frontier)
      for (const neighbour of graph.neighbors(node)) {
        if (distance.has(neighbour) || !visible(neighbour)) continue;
        if (distance.size >= limit) {
          truncated = true;
          break walk;
        }
        distance.set(neighbour, d);
        next.push(neighbour);
      }
    frontier = next;
  }
  const edges: NeighbourhoodEdge[] = [];
  const seen = new Set<string>();
  for (const id of distance.keys())
    graph.forEachOutEdge(id, (_edge, attrs, from, to) => {
      if (!distance.has(to)) return;
      const key = `${attrs.type}|${from}|${to}`;
      if (seen.has(key)) return;
      if (edges.length >= 2 * limit) {
        truncated = true;
        return;
      }
      seen.add(key);
      edges.push({ from, to, attrs });
    });
  return { distance, edges, truncated };
}

/** Edges of a node in the graph the caller sees, within the neighbourhood or not. */
export function visibleDegree(graph: TenantGraph, id: string, visible: (id: string) => boolean): number {
  let degree = 0;
  graph.forEachNeighbor(id, (other) => {
    if (visible(other)) degree++;
  });
  return degree;
}
