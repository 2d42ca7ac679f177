// A tenant graph's content as plain data, read through the narrow graph API every store keeps (forEachNode,
// forEachEdge, order, size): what the differential test (issue 38) compares between the store and the
// graphology oracle, and what the store-upgrade fixture digests. Edges are keyed by `type|from|to`; scratch
// attributes (compileIndex) are left out.
import { createHash } from 'node:crypto';
import type { EdgeType, NodeLabel, WeightBasis } from '../../src/graph/vocabulary.js';

/** The subset of the graph API read here (a tenant graph today, the compact store, the oracle). */
export interface ReadableGraph {
  readonly order: number;
  readonly size: number;
  forEachNode(callback: (id: string, attrs: StoredNode) => void): void;
  forEachEdge(callback: (key: string, attrs: StoredEdge, source: string, target: string) => void): void;
}

interface StoredNode {
  label: NodeLabel;
  name: string;
  props: Record<string, unknown>;
  lastSeen: number;
}

interface StoredEdge {
  type: EdgeType;
  p?: number;
  basis?: WeightBasis;
  resourceScoped?: boolean;
  joinConfidence?: number;
  joinPending?: true;
  props?: Record<string, unknown>;
  lastSeen: number;
}

export interface NodeState {
  id: string;
  label: NodeLabel;
  name: string;
  props: Record<string, unknown>;
  lastSeen: number;
}

export interface EdgeState {
  /** `type|from|to` */
  key: string;
  p?: number;
  basis?: WeightBasis;
  resourceScoped?: boolean;
  joinConfidence?: number;
  joinPending?: true;
  props?: Record<string, unknown>;
  lastSeen: number;
}

export interface GraphState {
  order: number;
  size: number;
  /** In the graph's iteration order. */
  nodes: NodeState[];
  /** In the graph's iteration order. */
  edges: EdgeState[];
}

/** Copies a JSON-like value with object keys sorted, so that two equal values print and hash alike. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

export function graphState(graph: ReadableGraph): GraphState {
  const nodes: NodeState[] = [];
  graph.forEachNode((id, a) => {
    nodes.push(
      canonical({ id, label: a.label, name: a.name, props: a.props, lastSeen: a.lastSeen }) as NodeState,
    );
  });
  const edges: EdgeState[] = [];
  graph.forEachEdge((_key, a, source, target) => {
    edges.push(
      canonical({
        key: `${a.type}|${source}|${target}`,
        p: a.p,
        basis: a.basis,
        resourceScoped: a.resourceScoped,
        joinConfidence: a.joinConfidence,
        joinPending: a.joinPending,
        props: a.props,
        lastSeen: a.lastSeen,
      }) as EdgeState,
    );
  });
  return { order: graph.order, size: graph.size, nodes, edges };
}

const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** The nodes and edges sorted by id and by `type|from|to`: what does not depend on iteration order. */
export function sortedState(state: GraphState): GraphState {
  return {
    ...state,
    nodes: [...state.nodes].sort(byKey((n) => n.id)),
    edges: [...state.edges].sort(byKey((e) => e.key)),
  };
}

/** SHA-256 (hex) of the canonical JSON of a value. */
export function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

/** The digests the store-upgrade fixture records: of the sorted nodes and of the sorted edges. */
export function graphDigests(graph: ReadableGraph): {
  nodes: number;
  edges: number;
  nodesSha256: string;
  edgesSha256: string;
} {
  const state = sortedState(graphState(graph));
  return {
    nodes: state.order,
    edges: state.size,
    nodesSha256: digest(state.nodes),
    edgesSha256: digest(state.edges),
  };
}
