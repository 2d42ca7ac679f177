// A neighbourhood of the tenant graph in graphology's serialisation format (issue 38: graphology stays where
// users load graphs into its ecosystem), as GET /export/graph answers it: `{ attributes, options, nodes,
// edges }`, loadable with graphology's `Graph.from(body)` or `graph.import(body)`. Nodes carry what the API
// shows of a node elsewhere (label, name, the properties search shows: shownProps); edges their type, the
// price the analyzer's compile gives the hop (priceEdge with the same workload pricer), its basis and when
// it was last seen. Built whole, synchronously, from one reading of the graph: the writer cannot change it
// halfway through; its size is bounded by the walk's node limit.
import { priceEdge } from '../analysis/compiled-graph.js';
import { workloadPricer } from '../analysis/workload-price.js';
import { edgeKey } from '../graph/ids.js';
import type { TenantGraph } from '../graph/model.js';
import type { Neighbourhood } from '../neighbourhood/walk.js';
import { shownProps } from '../search/documents.js';

/** The graph-level attributes of an export: what it is the neighbourhood of, and when it was made. */
export interface GraphExportAttributes {
  tenant: string;
  /** The node id asked for, or the attack path id whose route was the seed. */
  root: string;
  rootKind: 'node' | 'path';
  /** For a path: the route's node ids, start to target (those still in the graph). */
  route?: string[];
  depth: number;
  limit: number;
  truncated: boolean;
  /** `all`, or `applications:<a>,<b>` for a credential bound to applications. */
  scope: string;
  /** ISO 8601. */
  generatedAt: string;
}

/** graphology's options for the tenant graph: directed, several edge types between two nodes, no self-loop. */
export const GRAPH_OPTIONS = { type: 'directed', multi: true, allowSelfLoops: false } as const;

/** The export as text chunks (one per node or edge), in the order graphology's `import` reads them. */
export function graphologyChunks(
  graph: TenantGraph,
  walked: Neighbourhood,
  attributes: Omit<GraphExportAttributes, 'truncated'>,
  /** How the API shows a probability (the GraphQL answers' rounding), so both answers agree. */
  present: (probability: number) => number = (p) => p,
): string[] {
  const chunks = [
    `{"attributes":${JSON.stringify({ ...attributes, truncated: walked.truncated })},"options":${JSON.stringify(GRAPH_OPTIONS)},"nodes":[`,
  ];
  let first = true;
  for (const [key, distance] of walked.distance) {
    const a = graph.getNodeAttributes(key);
    const node = { key, attributes: { label: a.label, name: a.name, distance, props: shownProps(a.props) } };
    chunks.push(`${first ? '' : ','}${JSON.stringify(node)}`);
    first = false;
  }
  chunks.push('],"edges":[');
  const workloadPrice = workloadPricer(graph);
  first = true;
  for (const { from, to, attrs } of walked.edges) {
    const price = priceEdge(attrs, to, graph.getNodeAttributes(to), workloadPrice);
    const edge = {
      key: edgeKey(attrs.type, from, to),
      source: from,
      target: to,
      attributes: {
        type: attrs.type,
        probability: present(price.p),
        basis: price.basis,
        lastSeen: new Date(attrs.lastSeen).toISOString(),
      },
    };
    chunks.push(`${first ? '' : ','}${JSON.stringify(edge)}`);
    first = false;
  }
  chunks.push(']}');
  return chunks;
}
