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

/** Attributes of an edge as stored; edges are keyed by (type, from, to). */
export interface EdgeAttributes {
  type: EdgeType;
  /** Explicit probability from the report; wins over the model's table. */
  p?: number;
  /** Basis declared with an explicit probability (defaults to `heuristic`). */
  basis?: WeightBasis;
  resourceScoped?: boolean;
  props?: Record<string, unknown>;
  lastSeen: number;
}

export type TenantGraph = MultiDirectedGraph<NodeAttributes, EdgeAttributes>;

export function createTenantGraph(): TenantGraph {
  return new MultiDirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: false });
}
