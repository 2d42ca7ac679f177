// FROZEN copy of src/graph/model.ts as of commit 8f355e3, part of the graphology writer that is the oracle of the
// differential test (issue 38: test/graph/compact-store.differential.test.ts). Only its imports and the names of its
// exports were changed (Oracle*). Never change its behaviour: the compact store must match it.
// The tenant graph: a graphology multi-digraph with typed attributes. No I/O lives here.
import { MultiDirectedGraph } from 'graphology';
import type { EdgeType, NodeLabel, WeightBasis } from '../../../src/graph/vocabulary.js';

/** Attributes of a node as stored. `props` holds the envelope's free-form properties. */
export interface OracleNodeAttributes {
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
export interface OracleEdgeAttributes {
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

export type OracleGraph = MultiDirectedGraph<OracleNodeAttributes, OracleEdgeAttributes>;

/** What edge iteration hands a callback (graphology's order of arguments). */
export type EdgeVisitor = (
  key: string,
  attrs: OracleEdgeAttributes,
  source: string,
  target: string,
  sourceAttrs: OracleNodeAttributes,
  targetAttrs: OracleNodeAttributes,
) => void;

/**
 * What the analysis compiler and the workload pricer read: a tenant graph, or the gate's copy-on-write
 * overlay of one (src/gate/overlay.ts).
 */
export interface GraphView {
  readonly order: number;
  readonly size: number;
  forEachNode(callback: (id: string, attrs: OracleNodeAttributes) => void): void;
  forEachEdge(callback: EdgeVisitor): void;
  forEachOutEdge(id: string, callback: EdgeVisitor): void;
  forEachInEdge(id: string, callback: EdgeVisitor): void;
  outDegree(id: string): number;
  getNodeAttributes(id: string): OracleNodeAttributes;
}

export function createOracleGraph(): OracleGraph {
  useDictionaryAdjacency();
  return new MultiDirectedGraph<OracleNodeAttributes, OracleEdgeAttributes>({ allowSelfLoops: false });
}

/** The graphology key of the edge of `type` from `from` to `to`, if there is one. */
export function findEdge(graph: OracleGraph, type: EdgeType, from: string, to: string): string | undefined {
  return graph.findOutEdge(from, to, (_key, attrs) => attrs.type === type);
}

/** graphology's record of a node, as the writer's hot path reads it (nodeRecords). */
export interface NodeRecord {
  /** The id as the graph holds it: the string every edge record names it by. */
  readonly key: string;
  readonly out: Readonly<Record<string, EdgeRecord | undefined>>;
}

/** graphology's record of an edge: the out-edges to one neighbour form a list through `next`. */
interface EdgeRecord {
  readonly key: string;
  readonly attributes: OracleEdgeAttributes;
  readonly next?: EdgeRecord | null;
}

let recordsReadable: boolean | undefined;

/**
 * graphology's node records by id, when this graphology keeps them as the writer expects (checked once on
 * a probe graph), else undefined and the writer goes through the public API. Why: an edge of a new report
 * names its endpoints by strings fresh from JSON.parse; looking one up in a node's adjacency (`out[to]`,
 * graphology's findOutEdge) first interns it in V8's string table, and graphology then looks both ids up
 * again. One lookup per endpoint here gives the graph's own id strings, already interned, for the rest:
 * the 100k estate's edges are written 23 % faster (docs/perf.md).
 */
export function nodeRecords(graph: OracleGraph): ReadonlyMap<string, NodeRecord> | undefined {
  recordsReadable ??= probeRecords();
  if (!recordsReadable) return undefined;
  const nodes = (graph as unknown as { _nodes?: unknown })._nodes;
  return nodes instanceof Map ? (nodes as ReadonlyMap<string, NodeRecord>) : undefined;
}

function probeRecords(): boolean {
  try {
    const probe = createOracleGraph();
    probe.addNode('a', { label: 'Service', name: 'a', props: {}, lastSeen: 0 });
    probe.addNode('b', { label: 'Service', name: 'b', props: {}, lastSeen: 0 });
    probe.addDirectedEdgeWithKey('e1', 'a', 'b', { type: 'ROUTES_TO', lastSeen: 0 });
    probe.addDirectedEdgeWithKey('e2', 'a', 'b', { type: 'CONNECTS_TO', lastSeen: 0 });
    const records = (probe as unknown as { _nodes?: unknown })._nodes;
    if (!(records instanceof Map)) return false;
    const a = (records as Map<string, NodeRecord>).get('a');
    if (a?.key !== 'a') return false;
    return (
      findEdgeFrom(a, 'ROUTES_TO', 'b') === 'e1' &&
      findEdgeFrom(a, 'CONNECTS_TO', 'b') === 'e2' &&
      findEdgeFrom(a, 'EXPOSES', 'b') === undefined
    );
  } catch {
    return false;
  }
}

/** The key of the edge of `type` from the node `from` to `to` (the graph's own id string), if there is one. */
export function findEdgeFrom(from: NodeRecord, type: EdgeType, to: string): string | undefined {
  // graphology leaves `next` unset at the end of a list, or null once an edge was detached.
  for (let edge = from.out[to]; edge; edge = edge.next ?? undefined)
    if (edge.attributes.type === type) return edge.key;
  return undefined;
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
export function hasDictionaryAdjacency(graph: OracleGraph, node: string): boolean {
  const data = (graph as unknown as { _nodes?: Map<string, object> })._nodes?.get(node);
  return !!data && (Object.getPrototypeOf(data) as Record<symbol, boolean>)[DICTIONARY_ADJACENCY] === true;
}

/**
 * What changed in a tenant graph since its reader last took the changes: the one interface through which
 * the graph writer tells the analysis's live compiled form (src/analysis/live-graph.ts) what to patch.
 * Nodes by id, edges by edgeKey(type, from, to). "Added" moves an entry to the end, so new things come out
 * in the order they were added to the graph, which is the order graphology iterates them in (the compiled
 * form keeps that order); "removed" also marks it, so something removed and added again in between two
 * takes is seen as new (graphology moved it to the end).
 */
export class OracleGraphChanges {
  /**
   * Everything may have changed: nothing was taken yet, a bulk restore bypassed the writer, or more changes
   * piled up than `limit` (a rebuild is cheaper then). Nothing is listed while it holds: the ingest of a
   * whole estate pays nothing here.
   */
  all = true;
  nodes = new Set<string>();
  edges = new Set<string>();
  removedNodes = new Set<string>();
  removedEdges = new Set<string>();

  constructor(private readonly limit = 100_000) {}

  nodeAdded(id: string): void {
    if (this.all) return;
    this.nodes.delete(id);
    this.nodes.add(id);
    this.bound();
  }

  nodeChanged(id: string): void {
    if (this.all || this.nodes.has(id)) return;
    this.nodes.add(id);
    this.bound();
  }

  nodeRemoved(id: string): void {
    if (this.all) return;
    this.nodes.add(id);
    this.removedNodes.add(id);
    this.bound();
  }

  edgeAdded(type: EdgeType, from: string, to: string): void {
    if (this.all) return;
    const key = `${type}|${from}|${to}`;
    this.edges.delete(key);
    this.edges.add(key);
    this.bound();
  }

  edgeChanged(type: EdgeType, from: string, to: string): void {
    if (this.all) return;
    this.edges.add(`${type}|${from}|${to}`);
    this.bound();
  }

  edgeRemoved(type: EdgeType, from: string, to: string): void {
    if (this.all) return;
    const key = `${type}|${from}|${to}`;
    this.edges.add(key);
    this.removedEdges.add(key);
    this.bound();
  }

  everything(): void {
    this.all = true;
    this.nodes.clear();
    this.edges.clear();
    this.removedNodes.clear();
    this.removedEdges.clear();
  }

  /**
   * What changed so far, left in place for the reader that takes it (the gate lays pending writes over the
   * live compiled graph this way); null when everything may have changed. Read it before the next write.
   */
  peek(): OracleTakenChanges | null {
    if (this.all) return null;
    return {
      all: false,
      nodes: this.nodes,
      edges: this.edges,
      removedNodes: this.removedNodes,
      removedEdges: this.removedEdges,
    };
  }

  /** Hands over what changed and starts listing afresh. */
  take(): OracleTakenChanges {
    const taken: OracleTakenChanges = {
      all: this.all,
      nodes: this.nodes,
      edges: this.edges,
      removedNodes: this.removedNodes,
      removedEdges: this.removedEdges,
    };
    this.all = false;
    this.nodes = new Set();
    this.edges = new Set();
    this.removedNodes = new Set();
    this.removedEdges = new Set();
    return taken;
  }

  private bound(): void {
    if (this.nodes.size + this.edges.size > this.limit) this.everything();
  }
}

export interface OracleTakenChanges {
  all: boolean;
  nodes: Set<string>;
  edges: Set<string>;
  removedNodes: Set<string>;
  removedEdges: Set<string>;
}
