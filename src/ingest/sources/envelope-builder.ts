// Normalizers build envelopes through this: nodes are deduplicated by id (properties merged, later
// wins), ids are derived by the one rule, and edges are deduplicated by (type, from, to).
import { nodeId } from '../../graph/ids.js';
import type { EdgeType, EventKind, NodeLabel, WeightBasis } from '../../graph/vocabulary.js';
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from '../envelope.js';

export interface EdgeOptions {
  exploit_probability?: number;
  weight_basis?: WeightBasis;
  resource_scoped?: boolean;
  properties?: Record<string, unknown>;
}

export class EnvelopeBuilder {
  private readonly nodes = new Map<string, EnvelopeNode>();
  // Edges by type, then from, then to: the ids are already hashed strings, so a lookup builds and hashes no
  // `type|from|to` key (a third of the k8s normalizer's time on a 50,000-object dump); `edgeList` keeps the
  // order they were first drawn in.
  private readonly edges = new Map<string, Map<string, Map<string, EnvelopeEdge>>>();
  private readonly edgeList: EnvelopeEdge[] = [];

  constructor(
    private readonly source: string,
    private readonly kind: EventKind,
    private readonly observedAt: string,
  ) {}

  /** Adds (or merges into) the node with this label and name; returns its id. */
  node(label: NodeLabel, name: string, properties: Record<string, unknown> = {}): string {
    const id = nodeId(label, name);
    const existing = this.nodes.get(id);
    if (existing) existing.properties = { ...existing.properties, ...withoutUndefined(properties) };
    else this.nodes.set(id, { id, label, name, properties: withoutUndefined(properties) });
    return id;
  }

  /** Merges properties into a node already added. */
  stamp(id: string, properties: Record<string, unknown>): void {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`stamp: no node ${id} in this envelope`);
    node.properties = { ...node.properties, ...withoutUndefined(properties) };
  }

  edge(type: EdgeType, from: string, to: string, options: EdgeOptions = {}): void {
    let byFrom = this.edges.get(type);
    if (!byFrom) this.edges.set(type, (byFrom = new Map()));
    let byTo = byFrom.get(from);
    if (!byTo) byFrom.set(from, (byTo = new Map()));
    const existing = byTo.get(to);
    const edge: EnvelopeEdge = { type, from, to };
    if (options.exploit_probability !== undefined) edge.exploit_probability = options.exploit_probability;
    if (options.weight_basis !== undefined) edge.weight_basis = options.weight_basis;
    if (options.resource_scoped) edge.resource_scoped = true;
    if (options.properties) edge.properties = withoutUndefined(options.properties);
    if (existing) {
      const properties = { ...existing.properties, ...edge.properties };
      Object.assign(existing, edge);
      if (Object.keys(properties).length) existing.properties = properties;
    } else {
      byTo.set(to, edge);
      this.edgeList.push(edge);
    }
  }

  hasNode(id: string): boolean {
    return this.nodes.has(id);
  }

  build(): EventEnvelope {
    return {
      source: this.source,
      kind: this.kind,
      observed_at: this.observedAt,
      nodes: [...this.nodes.values()],
      edges: [...this.edgeList],
    };
  }
}

/** Drops undefined values, so that an absent field never overwrites a stored one. */
function withoutUndefined(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // for-in over a fresh literal: several times cheaper than Object.entries on 10,000-finding reports.
  for (const key in properties) {
    const value = properties[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
