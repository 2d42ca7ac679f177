// What a live graph's patch reads (live-graph.ts): the tenant graph after the writer's changes, or the gate's
// overlay of it (a pull request's change laid over the live estate, src/gate/overlay.ts).
import { findEdge, type EdgeAttributes, type GraphView, type TenantGraph } from '../graph/model.js';
import type { EdgeType } from '../graph/vocabulary.js';

/**
 * What a patch reads: the graph after the changes. The tenant graph, or the gate's overlay of it (a fork
 * of the live form patched with a pull request's change, src/gate/evaluate.ts).
 */
export interface PatchSource extends GraphView {
  hasNode(id: string): boolean;
  /** The attributes of the edge of `type` from `from` to `to`, if there is one. */
  edgeAttributes(type: EdgeType, from: string, to: string): EdgeAttributes | undefined;
}

/** A tenant graph as a patch source. */
export function tenantSource(graph: TenantGraph): PatchSource {
  return {
    get order() {
      return graph.order;
    },
    get size() {
      return graph.size;
    },
    forEachNode: (callback) => graph.forEachNode(callback),
    forEachEdge: (callback) => graph.forEachEdge(callback),
    forEachEdgeUnkeyed: (callback) => graph.forEachEdgeUnkeyed(callback),
    forEachOutEdge: (id, callback) => graph.forEachOutEdge(id, callback),
    forEachInEdge: (id, callback) => graph.forEachInEdge(id, callback),
    outDegree: (id) => graph.outDegree(id),
    getNodeAttributes: (id) => graph.getNodeAttributes(id),
    hasNode: (id) => graph.hasNode(id),
    edgeAttributes(type, from, to) {
      const key = findEdge(graph, type, from, to);
      return key === undefined ? undefined : graph.getEdgeAttributes(key);
    },
  };
}
