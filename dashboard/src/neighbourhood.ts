// The graph the dashboard draws: the union of the caller's attack-path routes (what the public API shows,
// within the caller's tenant and applications), and the neighbourhood of one node in it.
import { MultiDirectedGraph } from 'graphology';
import type { PathRow } from './paths-data';

export interface RouteRow {
  id: string;
  nodes: { id: string; name: string; label: string }[];
  steps: { from: string; to: string; type: string; probability: number }[];
}

export type RouteGraph = MultiDirectedGraph<{ name: string; label: string }, { type: string; p: number }>;

export function routeGraph(routes: readonly RouteRow[]): RouteGraph {
  const g: RouteGraph = new MultiDirectedGraph();
  for (const r of routes) {
    for (const n of r.nodes) if (!g.hasNode(n.id)) g.addNode(n.id, { name: n.name, label: n.label });
    for (const s of r.steps) {
      const key = `${s.type}|${s.from}|${s.to}`;
      if (!g.hasEdge(key)) g.addEdgeWithKey(key, s.from, s.to, { type: s.type, p: s.probability });
    }
  }
  return g;
}

/** Nodes within `depth` hops of `center` (either direction), nearest first, at most `limit`; with their distance. */
export function neighbourhood(
  g: RouteGraph,
  center: string,
  depth: number,
  limit: number,
): Map<string, number> {
  const seen = new Map<string, number>([[center, 0]]);
  let frontier = [center];
  for (let d = 1; d <= depth && frontier.length && seen.size < limit; d++) {
    const next: string[] = [];
    for (const node of frontier)
      for (const neighbour of g.neighbors(node)) {
        if (seen.has(neighbour)) continue;
        seen.set(neighbour, d);
        next.push(neighbour);
        if (seen.size >= limit) return seen;
      }
    frontier = next;
  }
  return seen;
}

export type { PathRow };
