// The tenant graph: a graphology multi-digraph with typed attributes. No I/O lives here.
import { MultiDirectedGraph } from 'graphology';
import type { EdgeType, NodeLabel, WeightBasis } from './vocabulary.js';

/** Attributes of a node as stored. `props` holds the envelope's free-form properties. */
export interface NodeAttributes {
  label: NodeLabel;
  name: string;
  props: Record<string, unknown>;
  /** Epoch ms of the last observation (the ingest time of the report that last carried the node). */
  lastSeen: number;
  /** Scratch for the analysis compiler: this node's index in the last compiled form. Not persisted. */
  compileIndex?: number;
}

/**
 * Attributes of an edge as stored. An edge is identified by (type, from, to): at most one edge of a type
 * between two nodes (`findEdge`). graphology's edge keys come from the writer's counter and never leave the process.
 */
export interface EdgeAttributes {
  type: EdgeType;
  /** Explicit probability from the report; wins over the model's table. */
  p?: number;
  /** Basis declared with an explicit probability (defaults to `heuristic`). */
  basis?: WeightBasis;
  resourceScoped?: boolean;
  /** Confidence of the identity join that stitched this edge to an image (< 1 lowers its price). */
  joinConfidence?: number;
  /** Stitched to an image reference no scan has matched yet; the join's confidence is set when one does. */
  joinPending?: true;
  props?: Record<string, unknown>;
  lastSeen: number;
}

export type TenantGraph = MultiDirectedGraph<NodeAttributes, EdgeAttributes>;

/** What edge iteration hands a callback (graphology's order of arguments). */
export type EdgeVisitor = (
  key: string,
  attrs: EdgeAttributes,
  source: string,
  target: string,
  sourceAttrs: NodeAttributes,
  targetAttrs: NodeAttributes,
) => void;

/**
 * What the analysis compiler and the workload pricer read: a tenant graph, or the gate's copy-on-write
 * overlay of one (src/gate/overlay.ts).
 */
export interface GraphView {
  readonly order: number;
  readonly size: number;
  forEachNode(callback: (id: string, attrs: NodeAttributes) => void): void;
  forEachEdge(callback: EdgeVisitor): void;
  forEachOutEdge(id: string, callback: EdgeVisitor): void;
  forEachInEdge(id: string, callback: EdgeVisitor): void;
  outDegree(id: string): number;
  getNodeAttributes(id: string): NodeAttributes;
}

export function createTenantGraph(): TenantGraph {
  useDictionaryAdjacency();
  return new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false });
}

/** The graphology key of the edge of `type` from `from` to `to`, if there is one. */
export function findEdge(graph: TenantGraph, type: EdgeType, from: string, to: string): string | undefined {
  return graph.findOutEdge(from, to, (_key, attrs) => attrs.type === type);
}

interface AdjacencyHolder {
  in: object;
  out: object;
}

interface NodeDataPrototype {
  clear(this: AdjacencyHolder): void;
}

const DICTIONARY_ADJACENCY = Symbol.for('pathgate.dictionaryAdjacency');

/**
 * graphology keeps each node's in- and out-adjacency in a fresh `{}` keyed by neighbour id. V8 gives every
 * such object its own chain of hidden classes, one new map per neighbour added, which for a sparse estate
 * costs more time and memory than the edges themselves (at 1M nodes / 4.5M edges: twice the insert time and
 * about 1.4 GB of RSS). An object built from `Object.create(null)` starts in dictionary mode and keeps
 * `Object.prototype` once given it back (graphology calls `hasOwnProperty` on these objects), so
 * graphology's node-data reset is wrapped to install such objects instead. test/graph/model.test.ts checks
 * that the wrap took, so a graphology upgrade that moves these internals fails there rather than silently.
 */
function useDictionaryAdjacency(): void {
  const probe = new MultiDirectedGraph();
  probe.addNode('probe');
  const internals = probe as unknown as { _nodes?: Map<string, AdjacencyHolder> };
  const data = internals._nodes?.get('probe');
  const proto = data && (Object.getPrototypeOf(data) as NodeDataPrototype & Record<symbol, boolean>);
  if (!proto || typeof proto.clear !== 'function' || proto[DICTIONARY_ADJACENCY]) return;
  const clear = proto.clear;
  proto.clear = function (this: AdjacencyHolder) {
    clear.call(this);
    this.in = dictionaryObject();
    this.out = dictionaryObject();
  };
  proto[DICTIONARY_ADJACENCY] = true;
}

function dictionaryObject(): object {
  return Object.setPrototypeOf(Object.create(null), Object.prototype) as object;
}

/** True when the node's graphology data carries the dictionary-mode adjacency reset (see above). */
export function hasDictionaryAdjacency(graph: TenantGraph, node: string): boolean {
  const data = (graph as unknown as { _nodes?: Map<string, object> })._nodes?.get(node);
  return !!data && (Object.getPrototypeOf(data) as Record<symbol, boolean>)[DICTIONARY_ADJACENCY] === true;
}
