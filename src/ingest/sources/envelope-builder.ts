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
  /**
   * `properties` is handed over: a fresh object the caller keeps no reference to, or a frozen one shared by
   * many edges (nothing mutates an envelope's property objects in place: scrubbing, context stamps and the
   * graph writer all replace or copy them). The builder keeps it as it is when it holds no undefined value,
   * instead of copying it.
   */
  handOver?: boolean;
}

/**
 * Past this many edges from one node, its edges are indexed by target; below it a scan of the node's list
 * is cheaper than any index (most nodes of a Kubernetes dump draw two or three edges).
 */
const SCAN_LIMIT = 8;

export class EnvelopeBuilder {
  private readonly nodes = new Map<string, EnvelopeNode>();
  // Edges by their `from` node: the one edge, a short list scanned for (type, to), or a map by `to` once it
  // is long. The one edge is kept without a list, and the second makes a list of two: a first push() would
  // reserve room for 17 (about 150 bytes a node).
  // The ids are already hashed strings, so a lookup builds and hashes no `type|from|to` key (a third of the
  // k8s normalizer's time on a 50,000-object dump); and one list per node, instead of the former map of
  // maps (type, then from, then to), saves a Map per (type, from) pair: 60,000 of them on that dump, where
  // allocation is what costs (issue 14). `edgeList` keeps the order they were first drawn in.
  private readonly edgesFrom = new Map<string, EnvelopeEdge | EnvelopeEdge[] | Map<string, EnvelopeEdge[]>>();
  private readonly edgeList: EnvelopeEdge[] = [];

  constructor(
    private readonly source: string,
    private readonly kind: EventKind,
    private readonly observedAt: string,
  ) {}

  /**
   * Adds (or merges into) the node with this label and name; returns its id. With `handOver`, `properties`
   * is handed over as EdgeOptions.handOver says: kept as it is when it holds no undefined value.
   */
  node(label: NodeLabel, name: string, properties?: Record<string, unknown>, handOver = false): string {
    const id = nodeId(label, name);
    const existing = this.nodes.get(id);
    if (existing) {
      if (properties) existing.properties = merged(existing.properties, properties);
    } else {
      this.nodes.set(id, {
        id,
        label,
        name,
        properties: !properties
          ? {}
          : handOver && !hasUndefined(properties)
            ? properties
            : withoutUndefined(properties),
      });
    }
    return id;
  }

  /** Merges properties into a node already added. */
  stamp(id: string, properties: Record<string, unknown>): void {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`stamp: no node ${id} in this envelope`);
    node.properties = merged(node.properties, properties);
  }

  edge(type: EdgeType, from: string, to: string, options: EdgeOptions = NO_OPTIONS): void {
    // Looked up once: the same entry says whether the edge exists and where a new one goes.
    const drawn = this.edgesFrom.get(from);
    const existing = drawn === undefined ? undefined : findEdge(drawn, type, to);
    const given = options.properties;
    const properties =
      given && (options.handOver && !existing && !hasUndefined(given) ? given : withoutUndefined(given));
    const p = options.exploit_probability;
    const basis = options.weight_basis;
    let edge: EnvelopeEdge;
    // The usual shapes as whole literals: an edge grown key by key past three keys gets a second,
    // out-of-object store (about 3 MB over the 102,000 edges of issue 14's dump). Same keys, same order.
    if (!options.resource_scoped && p !== undefined && basis !== undefined)
      edge = properties
        ? { type, from, to, exploit_probability: p, weight_basis: basis, properties }
        : { type, from, to, exploit_probability: p, weight_basis: basis };
    else if (!options.resource_scoped && p === undefined && basis === undefined)
      edge = properties ? { type, from, to, properties } : { type, from, to };
    else {
      edge = { type, from, to };
      if (p !== undefined) edge.exploit_probability = p;
      if (basis !== undefined) edge.weight_basis = basis;
      if (options.resource_scoped) edge.resource_scoped = true;
      if (properties) edge.properties = properties;
    }
    if (existing) {
      const properties = { ...existing.properties, ...edge.properties };
      Object.assign(existing, edge);
      if (Object.keys(properties).length) existing.properties = properties;
      return;
    }
    this.edgeList.push(edge);
    if (drawn === undefined) this.edgesFrom.set(from, edge);
    else if (drawn instanceof Map) byTarget(drawn, edge);
    else if (!Array.isArray(drawn)) this.edgesFrom.set(from, [drawn, edge]);
    else if (drawn.length < SCAN_LIMIT) drawn.push(edge);
    else {
      const index = new Map<string, EnvelopeEdge[]>();
      for (const e of drawn) byTarget(index, e);
      byTarget(index, edge);
      this.edgesFrom.set(from, index);
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

const NO_OPTIONS: EdgeOptions = Object.freeze({});

/** The edge of this type to `to` among the edges drawn from one node, if any. */
function findEdge(
  drawn: EnvelopeEdge | EnvelopeEdge[] | Map<string, EnvelopeEdge[]>,
  type: EdgeType,
  to: string,
): EnvelopeEdge | undefined {
  if (drawn instanceof Map) {
    const list = drawn.get(to);
    if (list) for (const e of list) if (e.type === type) return e;
    return undefined;
  }
  if (!Array.isArray(drawn)) return drawn.to === to && drawn.type === type ? drawn : undefined;
  for (const e of drawn) if (e.to === to && e.type === type) return e;
  return undefined;
}

function byTarget(index: Map<string, EnvelopeEdge[]>, edge: EnvelopeEdge): void {
  const list = index.get(edge.to);
  if (list) list.push(edge);
  else index.set(edge.to, [edge]);
}

/** `{ ...base, ...withoutUndefined(more) }` in one copy. */
function merged(
  base: Record<string, unknown> | undefined,
  more: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const key in more) {
    const value = more[key];
    // `__proto__` never reached the spread this replaces (assigning it sets a prototype, no own key).
    if (value !== undefined && key !== '__proto__') out[key] = value;
  }
  return out;
}

function hasUndefined(properties: Record<string, unknown>): boolean {
  for (const key in properties) if (properties[key] === undefined) return true;
  return false;
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
