// What the writer retracts outside apply(): what a complete snapshot of a scope omitted (the ledger that
// knows it: scope-ledger.ts), the edges whose `valid_until` has passed (truth-expiry.ts), and what GRAPH_TTL
// staleness pruning finds not re-seen; and the scope ledger as a snapshot stores it, edges by their triple.
import { findEdge } from './model.js';
import type { ParkedEdges } from './parked-edges.js';
import { edgeKey } from './ids.js';
import { isGraphEdgeKey, type ScopeLedger, type ScopeState } from './scope-ledger.js';
import type { TimedTruth } from './truth-expiry.js';
import type { EdgeType } from './vocabulary.js';
import type { WriterEdits } from './writer-edits.js';

export interface SweepResult {
  nodes: number;
  edges: number;
  /** edges still waiting for an endpoint that the snapshot no longer holds, dropped from the waiting room */
  parked: number;
  /** what GRAPH_SWEEP=false kept that the snapshot would have retracted (nodes, edges and parked edges) */
  kept: number;
}

export class Sweeps {
  constructor(
    private readonly edits: WriterEdits,
    private readonly scopes: ScopeLedger,
    private readonly parked: ParkedEdges,
    private readonly timed: TimedTruth,
  ) {}

  /** Retracts the edges whose `valid_until` has passed by `now` (truth-expiry.ts); returns how many. */
  expireTimed(now: number): number {
    const { graph, changes } = this.edits;
    const ended = this.timed.ended(graph, now);
    for (const key of ended) {
      changes.edgeRemoved(graph.getEdgeAttribute(key, 'type'), graph.source(key), graph.target(key));
      if (this.scopes.scopeCount) this.scopes.forget(key);
      graph.dropEdge(key);
    }
    if (ended.length) this.edits.bump();
    return ended.length;
  }

  /**
   * Ends a complete snapshot of `scope` (after its last chunk): retracts what the scope's previous snapshot
   * held and this one omitted, unless another scope still claims it or a partial report asserted it.
   */
  completeScope(scope: string, options: { retract?: boolean }): SweepResult {
    const { graph, changes } = this.edits;
    const swept: SweepResult = { nodes: 0, edges: 0, parked: 0, kept: 0 };
    for (const item of this.scopes.complete(scope)) {
      // GRAPH_SWEEP=false: the ledger still moves on (the next snapshot claims afresh), nothing is retracted;
      // what is kept is no scope's any more, as a partial report's assertion, and ages out by GRAPH_TTL.
      if (options.retract === false) {
        swept.kept++;
        continue;
      }
      if (isGraphEdgeKey(item)) {
        if (!graph.hasEdge(item)) continue;
        const type = graph.getEdgeAttribute(item, 'type');
        const from = graph.source(item);
        const to = graph.target(item);
        graph.dropEdge(item);
        changes.edgeRemoved(type, from, to);
        swept.edges++;
        continue;
      }
      const bar = item.indexOf('|');
      if (bar < 0) {
        if (!graph.hasNode(item)) continue;
        swept.edges += graph.degree(item);
        this.edits.dropNode(item);
        swept.nodes++;
        continue;
      }
      // A parked edge leaves the waiting room; one a snapshot named before its endpoints were back is
      // found by its triple.
      if (this.parked.unpark(item)) {
        swept.parked++;
        continue;
      }
      const [type, from, to] = item.split('|');
      if (!graph.hasNode(from) || !graph.hasNode(to)) continue;
      const key = findEdge(graph, type as EdgeType, from, to);
      if (key === undefined) continue;
      graph.dropEdge(key);
      changes.edgeRemoved(type as EdgeType, from, to);
      swept.edges++;
    }
    if (swept.nodes || swept.edges) this.edits.bump();
    return swept;
  }

  /** Removes nodes and edges not re-seen since `cutoff` (epoch ms); GRAPH_TTL staleness pruning. */
  prune(cutoff: number): { nodes: number; edges: number } {
    const graph = this.edits.graph;
    const edgesBefore = graph.size;
    const staleEdges: string[] = [];
    graph.forEachEdge((key, attrs, source, target) => {
      if (attrs.lastSeen < cutoff) {
        staleEdges.push(key);
        this.edits.changes.edgeRemoved(attrs.type, source, target);
        if (this.scopes.scopeCount) this.scopes.forget(key);
      }
    });
    for (const key of staleEdges) graph.dropEdge(key);
    const staleNodes: string[] = [];
    graph.forEachNode((id, attrs) => {
      if (attrs.lastSeen < cutoff) staleNodes.push(id);
    });
    // Dropping a node drops its remaining edges too; they count as pruned edges.
    for (const id of staleNodes) this.edits.dropNode(id);
    const removed = { nodes: staleNodes.length, edges: edgesBefore - graph.size };
    if (removed.nodes || removed.edges) this.edits.bump();
    return removed;
  }

  /** The scope ledger as a snapshot stores it: every edge as `type|from|to` (scope-ledger.ts). */
  serializeScopes(): ScopeState {
    const graph = this.edits.graph;
    return this.scopes.serialize((item) => {
      if (!isGraphEdgeKey(item)) return item;
      if (!graph.hasEdge(item)) return undefined;
      return edgeKey(graph.getEdgeAttribute(item, 'type'), graph.source(item), graph.target(item));
    });
  }

  /** Restores the scope ledger of a snapshot, after its nodes, edges and parked edges. */
  restoreScopes(state: ScopeState): void {
    const graph = this.edits.graph;
    this.scopes.restore(state, (stored) => {
      const bar = stored.indexOf('|');
      if (bar < 0 || this.parked.has(stored)) return stored;
      const [type, from, to] = stored.split('|');
      if (!graph.hasNode(from) || !graph.hasNode(to)) return stored;
      return findEdge(graph, type as EdgeType, from, to) ?? stored;
    });
  }
}
