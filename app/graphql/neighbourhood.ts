// neighbourhood: the nodes and edges around one node of the caller's tenant graph, bounded by depth and a
// node limit (issue 33: the dashboard's graph page asks for this instead of loading every route). A
// credential bound to applications walks only the nodes of its applications (appsOfNode, as status.graph
// counts them); the walk is src/neighbourhood/walk.ts, shared with GET /export/graph. Merged into SCHEMA_SDL.
import {
  DEFAULT_NEIGHBOURHOOD_NODES,
  MAX_NEIGHBOURHOOD_DEPTH,
  MAX_NEIGHBOURHOOD_NODES,
  nodeVisibility,
  visibleDegree,
  walkNeighbourhood,
} from '../../src/neighbourhood/walk.js';
import { ProblemError } from '../../src/http/problems.js';
import type { GraphqlContext } from './resolvers.js';

export const NEIGHBOURHOOD_SDL = /* GraphQL */ `
  extend type Query {
    """
    The nodes within \`depth\` hops of a node (edges followed either way) in the caller's tenant graph, nearest
    first, at most \`limit\` of them, with the edges between them (at most twice \`limit\`). A credential bound
    to applications sees only the nodes of its applications. Null when the caller cannot see the node.
    """
    neighbourhood(
      "The node's id (<Label>:<16 hex>, as PathNode.id)."
      nodeId: ID!
      "Hops from the node, 1 to 6 (default 1)."
      depth: Int = 1
      "Nodes at most, the node itself included, 1 to 5000 (default 2000)."
      limit: Int = 2000
    ): Neighbourhood
  }

  "A node and what lies around it (Query.neighbourhood)."
  type Neighbourhood {
    "The node asked for."
    center: PathNode!
    "The depth walked."
    depth: Int!
    "The nodes reached, nearest first, the center first of all."
    nodes: [NeighbourhoodNode!]!
    "The edges between the nodes reached."
    edges: [NeighbourhoodEdge!]!
    "True when the limit stopped the walk (or the edges) before everything within depth was taken."
    truncated: Boolean!
  }

  "A node of a neighbourhood."
  type NeighbourhoodNode {
    "<Label>:<16 hex>, as PathNode.id."
    id: ID!
    "The node's name as reported."
    name: String!
    "The node label."
    label: String!
    "Hops from the center (0 for the center)."
    distance: Int!
    "Edges of this node in the graph the caller sees, within the neighbourhood or not: more than drawn means it expands."
    degree: Int!
  }

  "An edge of a neighbourhood."
  type NeighbourhoodEdge {
    "The node the edge leaves."
    from: ID!
    "The node the edge reaches."
    to: ID!
    "The edge type (ROUTES_TO, RUNS, CAN_ESCALATE_TO…)."
    type: String!
  }
`;

export { MAX_NEIGHBOURHOOD_DEPTH, MAX_NEIGHBOURHOOD_NODES };

interface NeighbourhoodArgs {
  nodeId: string;
  depth?: number | null;
  limit?: number | null;
}

function bounded(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new ProblemError('invalid-query', `${name} must be 1 to ${max}, got ${value}`);
  return value;
}

export function createNeighbourhoodResolvers() {
  return {
    Query: {
      neighbourhood: (_: unknown, args: NeighbourhoodArgs, ctx: GraphqlContext) => {
        const depth = bounded('depth', args.depth ?? 1, MAX_NEIGHBOURHOOD_DEPTH);
        const limit = bounded('limit', args.limit ?? DEFAULT_NEIGHBOURHOOD_NODES, MAX_NEIGHBOURHOOD_NODES);
        const graph = ctx.engine.tenant(ctx.tenant)?.graph;
        if (!graph) return null;
        const visible = nodeVisibility(graph, ctx.principal.apps);
        if (!graph.hasNode(args.nodeId) || !visible(args.nodeId)) return null;
        const walked = walkNeighbourhood(graph, [args.nodeId], { depth, limit, visible });
        const nodes = [...walked.distance].map(([id, d]) => {
          const a = graph.getNodeAttributes(id);
          return { id, name: a.name, label: a.label, distance: d, degree: visibleDegree(graph, id, visible) };
        });
        const center = nodes[0];
        return {
          center: { id: center.id, name: center.name, label: center.label },
          depth,
          nodes,
          edges: walked.edges.map((e) => ({ from: e.from, to: e.to, type: e.attrs.type })),
          truncated: walked.truncated,
        };
      },
    },
  };
}
