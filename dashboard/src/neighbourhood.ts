// The graph the dashboard draws: neighbourhoods of the caller's tenant graph as the API answers them
// (Query.neighbourhood: bounded, within the caller's tenant and applications), merged as the reader expands
// nodes.
import { gql } from './api';

export interface HoodNode {
  id: string;
  name: string;
  label: string;
  distance: number;
  degree: number;
}

export interface HoodEdge {
  from: string;
  to: string;
  type: string;
}

export interface Hood {
  center: { id: string; name: string; label: string };
  depth: number;
  nodes: HoodNode[];
  edges: HoodEdge[];
  truncated: boolean;
}

/** Nodes at most in one answer: the 2,000-node neighbourhood the issue asks to draw, with room. */
export const HOOD_LIMIT = 2500;

export async function loadNeighbourhood(
  nodeId: string,
  depth: number,
  limit = HOOD_LIMIT,
): Promise<Hood | null> {
  const data = await gql<{ neighbourhood: Hood | null }>(
    `query N($id: ID!, $depth: Int, $limit: Int) { neighbourhood(nodeId: $id, depth: $depth, limit: $limit) {
      center { id name label } depth truncated
      nodes { id name label distance degree } edges { from to type } } }`,
    { id: nodeId, depth, limit },
  );
  return data.neighbourhood;
}

/** The union of a neighbourhood and the expansions of some of its nodes (an expansion's nodes one ring out). */
export function merge(base: Hood, expansions: readonly Hood[]): { nodes: HoodNode[]; edges: HoodEdge[] } {
  const nodes = new Map(base.nodes.map((n) => [n.id, n]));
  const edges = new Map(base.edges.map((e) => [`${e.type}|${e.from}|${e.to}`, e]));
  for (const hood of expansions) {
    const from = nodes.get(hood.center.id)?.distance ?? 0;
    for (const n of hood.nodes) if (!nodes.has(n.id)) nodes.set(n.id, { ...n, distance: from + n.distance });
    for (const e of hood.edges) edges.set(`${e.type}|${e.from}|${e.to}`, e);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}
