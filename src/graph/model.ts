// The tenant graph's attributes, its change list, and the view the analysis reads. No I/O lives here.
import { CompactGraph } from './store/compact-graph.js';
import type { EdgeType, NodeLabel, WeightBasis } from './vocabulary.js';
import type { NodeIds } from './store/node-ids.js';

/** Attributes of a node as stored. `props` holds the envelope's free-form properties. */
export interface NodeAttributes {
  label: NodeLabel;
  name: string;
  props: Record<string, unknown>;
  /** Epoch ms of the last observation (the ingest time of the report that last carried the node). */
  lastSeen: number;
  /**
   * Scratch for the analysis compiler: this node's index in the last compiled form (every compile sets it;
   * a snapshot may carry a stale one). Records are made with the key present (the writer; the store's
   * nodeRecord), so the compiler's write does not grow a million records at its first pass.
   */
  compileIndex?: number;
}

/**
 * Attributes of an edge. An edge is identified by (type, from, to): at most one edge of a type between two
 * nodes (`findEdge`). The store's edge keys are its counter's numbers and never leave the process.
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

/** The tenant graph: the project's compact store (src/graph/store/compact-graph.ts). */
export type TenantGraph = CompactGraph;

/** What edge iteration hands a callback (graphology's order of arguments). */
export type EdgeVisitor = (
  key: string,
  attrs: EdgeAttributes,
  source: string,
  target: string,
  sourceAttrs: NodeAttributes,
  targetAttrs: NodeAttributes,
) => void;

/** A live node in forEachNode's order, with its slot in the store and its out-degree. */
export type NodeSlotVisitor = (slot: number, id: string, attrs: NodeAttributes, outDegree: number) => void;
/**
 * A live edge in forEachEdge's order, by slot: its ends' node slots, its type (EDGE_TYPES' index), its
 * basis (WEIGHT_BASES' index + 1, 0 for none) and `p`, its own probability when it has one and no join
 * confidence (NaN otherwise: its price needs the whole record).
 */
export type EdgeSlotVisitor = (
  slot: number,
  fromSlot: number,
  toSlot: number,
  type: number,
  basis: number,
  p: number,
) => void;

/** A graph by slot numbers: nodes and edges with no object, key or id lookup per edge. */
export interface SlotView {
  /** One more than the highest node slot `forEachNodeSlot` hands out. */
  readonly nodeSlotBound: number;
  forEachNodeSlot(callback: NodeSlotVisitor): void;
  forEachEdgeSlot(callback: EdgeSlotVisitor): void;
  /** The attributes of the node at a slot. */
  attributesAt(slot: number): NodeAttributes;
  /** The attributes of the edge at a slot, as forEachEdge would hand them over. */
  edgeAttributesAt(slot: number): EdgeAttributes;
  /**
   * When every slot below nodeSlotBound holds a node, so that a compile's index of a node is its slot: a
   * copy of the store's id → slot table over `ids` (the compile's ids by index, the same as the store's by
   * slot); otherwise undefined.
   */
  idTableOver?(ids: string[]): NodeIds | undefined;
}

/**
 * What the analysis compiler and the workload pricer read: a tenant graph, or the gate's copy-on-write
 * overlay of one (src/gate/overlay.ts).
 */
export interface GraphView {
  readonly order: number;
  readonly size: number;
  forEachNode(callback: (id: string, attrs: NodeAttributes) => void): void;
  forEachEdge(callback: EdgeVisitor): void;
  /**
   * forEachEdge with '' for every key, where making keys costs (the compact store's numbers as strings), and
   * the attributes handed over only for the callback's time: the store rewrites one record for each edge.
   */
  forEachEdgeUnkeyed?(callback: EdgeVisitor): void;
  /** The compile's fast path, where the graph has one (the compact store, compact-graph.ts). */
  slots?(): SlotView;
  forEachOutEdge(id: string, callback: EdgeVisitor): void;
  forEachInEdge(id: string, callback: EdgeVisitor): void;
  outDegree(id: string): number;
  getNodeAttributes(id: string): NodeAttributes;
}

export function createTenantGraph(options?: { compactAt?: number }): TenantGraph {
  return new CompactGraph(options);
}

/** The key of the edge of `type` from `from` to `to`, if there is one. */
export function findEdge(graph: TenantGraph, type: EdgeType, from: string, to: string): string | undefined {
  return graph.findEdge(type, from, to);
}

/**
 * What changed in a tenant graph since its reader last took the changes: the one interface through which
 * the graph writer tells the analysis's live compiled form (src/analysis/live-graph.ts) what to patch.
 * Nodes by id, edges by edgeKey(type, from, to). "Added" moves an entry to the end, so new things come out
 * in the order they were added to the graph, which is the order graphology iterates them in (the compiled
 * form keeps that order); "removed" also marks it, so something removed and added again in between two
 * takes is seen as new (graphology moved it to the end).
 */
export class GraphChanges {
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
  peek(): TakenChanges | null {
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
  take(): TakenChanges {
    const taken: TakenChanges = {
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

export interface TakenChanges {
  all: boolean;
  nodes: Set<string>;
  edges: Set<string>;
  removedNodes: Set<string>;
  removedEdges: Set<string>;
}
