// The only graph writer. Upserts nodes (merging properties, stamping last_seen) and edges keyed by
// (type, from, to); parks an edge whose endpoint has not arrived and lands it in the write that brings
// the endpoint; drops, with a log line, any label or type outside the vocabulary, whatever route it came by.
import type { EnvelopeEdge, EventEnvelope } from '../ingest/envelope.js';
import type { Log } from '../log/logger.js';
import { edgeKey, idLabel } from './ids.js';
import { findEdge, type EdgeAttributes, type TenantGraph } from './model.js';
import { isEdgeType, isNodeLabel, type EdgeType } from './vocabulary.js';

export interface WriteResult {
  nodes: number;
  edges: number;
  parked: number;
  landed: number;
  dropped: number;
}

export type DropReason = 'unknown_label' | 'unknown_edge_type' | 'malformed' | 'parked_expired';

interface ParkedEdge {
  edge: EnvelopeEdge;
  receivedAt: number;
}

export interface GraphWriterOptions {
  log: Log;
  /** How long a parked edge waits for its endpoint (spec: up to 7 days). */
  parkedTtlMs: number;
  onDrop?: (reason: DropReason, count: number) => void;
}

export class GraphWriter {
  /** Bumped by every change an analysis could see (topology, properties, probabilities). */
  private analysisVersion = 0;
  private readonly parked = new Map<string, ParkedEdge>();
  /** missing node id -> keys of parked edges waiting for it */
  private readonly waitingOn = new Map<string, Set<string>>();

  constructor(
    readonly graph: TenantGraph,
    private readonly options: GraphWriterOptions,
  ) {}

  get version(): number {
    return this.analysisVersion;
  }

  get pendingEdges(): number {
    return this.parked.size;
  }

  /** Applies one envelope (one bus chunk) received at `receivedAt` (epoch ms). */
  apply(envelope: EventEnvelope, receivedAt: number): WriteResult {
    const result: WriteResult = { nodes: 0, edges: 0, parked: 0, landed: 0, dropped: 0 };
    const nodes = Array.isArray(envelope?.nodes) ? envelope.nodes : [];
    const edges = Array.isArray(envelope?.edges) ? envelope.edges : [];
    const arrived: string[] = [];
    for (const node of nodes) {
      const label: unknown = node?.label;
      if (!isNodeLabel(label)) {
        this.drop('unknown_label', { source: envelope.source, label }, result);
        continue;
      }
      if (typeof node.id !== 'string' || idLabel(node.id) !== label || typeof node.name !== 'string') {
        this.drop('malformed', { source: envelope.source, id: node?.id }, result);
        continue;
      }
      const props = node.properties && typeof node.properties === 'object' ? node.properties : {};
      if (this.graph.hasNode(node.id)) {
        const attrs = this.graph.getNodeAttributes(node.id);
        if (changesProps(attrs.props, props) || attrs.name !== node.name) this.analysisVersion++;
        attrs.props = { ...attrs.props, ...props };
        attrs.name = node.name;
        if (receivedAt > attrs.lastSeen) attrs.lastSeen = receivedAt;
      } else {
        this.graph.addNode(node.id, { label, name: node.name, props: { ...props }, lastSeen: receivedAt });
        this.analysisVersion++;
        if (this.waitingOn.has(node.id)) arrived.push(node.id);
      }
      result.nodes++;
    }
    for (const edge of edges) this.upsertEdge(edge, receivedAt, envelope.source, result);
    for (const id of arrived) this.landParkedFor(id, result);
    return result;
  }

  private upsertEdge(edge: EnvelopeEdge, receivedAt: number, source: string, result: WriteResult): void {
    const type: unknown = edge?.type;
    if (!isEdgeType(type)) {
      this.drop('unknown_edge_type', { source, type }, result);
      return;
    }
    if (typeof edge.from !== 'string' || typeof edge.to !== 'string' || edge.from === edge.to) {
      this.drop('malformed', { source, from: edge?.from, to: edge?.to }, result);
      return;
    }
    const fromMissing = !this.graph.hasNode(edge.from);
    const toMissing = !this.graph.hasNode(edge.to);
    if (fromMissing || toMissing) {
      // A node in the graph passed the vocabulary check when it landed; only absent endpoints need one.
      const missing = fromMissing && toMissing ? [edge.from, edge.to] : [fromMissing ? edge.from : edge.to];
      const bad = missing.find((id) => !isNodeLabel(idLabel(id)));
      if (bad !== undefined) {
        this.drop('unknown_label', { source, id: bad }, result);
        return;
      }
      this.park(edgeKey(type, edge.from, edge.to), edge, receivedAt, missing);
      result.parked++;
      return;
    }
    this.writeEdge(edge, receivedAt);
    result.edges++;
  }

  private writeEdge(edge: EnvelopeEdge, receivedAt: number): void {
    const type = edge.type as EdgeType;
    const existing = findEdge(this.graph, type, edge.from, edge.to);
    const attrs: EdgeAttributes = { type, lastSeen: receivedAt };
    if (typeof edge.exploit_probability === 'number') attrs.p = edge.exploit_probability;
    if (edge.weight_basis) attrs.basis = edge.weight_basis;
    if (edge.resource_scoped) attrs.resourceScoped = true;
    if (edge.properties && typeof edge.properties === 'object') attrs.props = { ...edge.properties };
    if (existing !== undefined) {
      const old = this.graph.getEdgeAttributes(existing);
      if (old.p !== attrs.p || old.basis !== attrs.basis || old.resourceScoped !== attrs.resourceScoped) {
        this.analysisVersion++;
      }
      if (old.props && attrs.props) attrs.props = { ...old.props, ...attrs.props };
      else if (old.props) attrs.props = old.props;
      attrs.lastSeen = Math.max(old.lastSeen, receivedAt);
      this.graph.replaceEdgeAttributes(existing, attrs);
    } else {
      this.graph.addDirectedEdge(edge.from, edge.to, attrs);
      this.analysisVersion++;
    }
  }

  private park(key: string, edge: EnvelopeEdge, receivedAt: number, missing: string[]): void {
    this.unpark(key);
    this.parked.set(key, { edge, receivedAt });
    for (const id of missing) {
      let keys = this.waitingOn.get(id);
      if (!keys) this.waitingOn.set(id, (keys = new Set()));
      keys.add(key);
    }
  }

  private unpark(key: string): ParkedEdge | undefined {
    const entry = this.parked.get(key);
    if (!entry) return undefined;
    this.parked.delete(key);
    for (const id of [entry.edge.from, entry.edge.to]) {
      const keys = this.waitingOn.get(id);
      if (keys) {
        keys.delete(key);
        if (!keys.size) this.waitingOn.delete(id);
      }
    }
    return entry;
  }

  private landParkedFor(id: string, result: WriteResult): void {
    const keys = this.waitingOn.get(id);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.parked.get(key);
      if (!entry) continue;
      if (!this.graph.hasNode(entry.edge.from) || !this.graph.hasNode(entry.edge.to)) continue;
      this.unpark(key);
      this.writeEdge(entry.edge, entry.receivedAt);
      result.landed++;
    }
  }

  /** Drops parked edges that waited longer than the TTL; returns how many. */
  expireParked(now: number): number {
    let expired = 0;
    for (const [key, entry] of this.parked) {
      if (now - entry.receivedAt > this.options.parkedTtlMs) {
        this.unpark(key);
        expired++;
      }
    }
    if (expired) {
      this.options.onDrop?.('parked_expired', expired);
      this.options.log.info({ expired }, 'parked edges expired before their endpoint arrived');
    }
    return expired;
  }

  /** Removes nodes and edges not re-seen since `cutoff` (epoch ms); GRAPH_TTL staleness pruning. */
  prune(cutoff: number): { nodes: number; edges: number } {
    const graph = this.graph;
    const edgesBefore = graph.size;
    const staleEdges: string[] = [];
    graph.forEachEdge((key, attrs) => {
      if (attrs.lastSeen < cutoff) staleEdges.push(key);
    });
    for (const key of staleEdges) graph.dropEdge(key);
    const staleNodes: string[] = [];
    graph.forEachNode((id, attrs) => {
      if (attrs.lastSeen < cutoff) staleNodes.push(id);
    });
    // Dropping a node drops its remaining edges too; they count as pruned edges.
    for (const id of staleNodes) graph.dropNode(id);
    const removed = { nodes: staleNodes.length, edges: edgesBefore - graph.size };
    if (removed.nodes || removed.edges) this.analysisVersion++;
    return removed;
  }

  /** Parked edges as they would be journaled, for snapshots. */
  parkedEntries(): Iterable<[string, { edge: EnvelopeEdge; receivedAt: number }]> {
    return this.parked.entries();
  }

  /** Restores a parked edge from a snapshot. */
  restoreParked(edge: EnvelopeEdge, receivedAt: number): void {
    const missing = [edge.from, edge.to].filter((id) => !this.graph.hasNode(id));
    if (missing.length) this.park(edgeKey(edge.type, edge.from, edge.to), edge, receivedAt, missing);
    else this.writeEdge(edge, receivedAt);
  }

  /** Marks the graph changed after a bulk restore that bypassed apply(). */
  touch(): void {
    this.analysisVersion++;
  }

  private drop(reason: DropReason, detail: Record<string, unknown>, result: WriteResult): void {
    result.dropped++;
    this.options.onDrop?.(reason, 1);
    this.options.log.warn(
      { reason, ...detail },
      'graph writer dropped a value outside the vocabulary or malformed',
    );
  }
}

function changesProps(current: Record<string, unknown>, incoming: Record<string, unknown>): boolean {
  for (const key in incoming) {
    if (current[key] !== incoming[key]) return true;
  }
  return false;
}
