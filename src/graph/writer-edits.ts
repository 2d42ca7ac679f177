// The narrow view of the graph writer that its parts away from the ingest's hot path receive
// (image-stitching.ts, account-identity.ts, sweeps.ts): the graph, the changes the analysis reads, a bump of
// the analysis version, and the writer's own node drop and edge add (they keep the scope ledger and the last
// written edge right). With moveEdges, the merge of one node into another that an image join and an alias
// absorption both make.
import { findEdge, type EdgeAttributes, type GraphChanges, type TenantGraph } from './model.js';

export interface WriterEdits {
  readonly graph: TenantGraph;
  readonly changes: GraphChanges;
  /** Bumps the writer's analysis version (every change an analysis could see). */
  bump(): void;
  /** Drops a node and its edges, and forgets every claim on them. */
  dropNode(id: string): void;
  /** Adds an edge under the store's next key (they never leave the process). */
  addEdge(from: string, to: string, attrs: EdgeAttributes): void;
}

/** Moves a node's edges onto another (each copy adjusted by `adjust`), then drops the node. */
export function moveEdges(
  edits: WriterEdits,
  fromId: string,
  toId: string,
  adjust?: (attrs: EdgeAttributes) => void,
): void {
  const graph = edits.graph;
  const moves: { from: string; to: string; attrs: EdgeAttributes }[] = [];
  graph.forEachEdge(fromId, (_key, attrs, source, target) => {
    const moved = { ...attrs };
    adjust?.(moved);
    moves.push({
      from: source === fromId ? toId : source,
      to: target === fromId ? toId : target,
      attrs: moved,
    });
  });
  edits.dropNode(fromId);
  for (const move of moves) {
    if (move.from === move.to) continue;
    const existing = findEdge(graph, move.attrs.type, move.from, move.to);
    if (existing !== undefined) {
      graph.replaceEdgeAttributes(existing, move.attrs);
      edits.changes.edgeChanged(move.attrs.type, move.from, move.to);
    } else edits.addEdge(move.from, move.to, move.attrs);
  }
  edits.bump();
}
