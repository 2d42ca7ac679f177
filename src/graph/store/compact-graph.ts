// The tenant graph as this project stores it (issue 38): node ids interned once, a small attribute record
// per node, and edges in paged typed columns (ends, type, probability, basis, flags, last seen; properties
// and join confidences by reference where an edge has them), with each node's out- and in-edges as
// doubly-linked lists through the edge columns. At 1M nodes / 4.5M edges graphology held about 20 million
// heap objects, which every full collection marked again; here the edges are a few hundred typed arrays.
//
// The API is the subset of graphology's that the writer and the readers call, with graphology's meaning
// (iteration orders included: nodes and edges in the order added, a node's edges in-edges first), so the
// readers did not change. Edge attributes handed out are copies: the writer changes an edge through
// replaceEdgeAttributes. Node attributes are the stored record, as graphology's are.
import type { EdgeAttributes, EdgeVisitor, NodeAttributes } from '../model.js';
import { EDGE_TYPES, WEIGHT_BASES, type EdgeType } from '../vocabulary.js';
import { EdgeIndex } from './edge-index.js';
import { NodeIds } from './node-ids.js';
import { PagedF64, PagedI32, PagedU8, SparsePagedI32 } from './paged.js';

const TYPE_NUMBER = new Map<string, number>(EDGE_TYPES.map((t, i) => [t, i]));
const BASIS_NUMBER = new Map<string, number>(WEIGHT_BASES.map((b, i) => [b, i + 1]));

// Edge flag bits (the low nibble); the basis (its number + 1, 0 for none) is the high nibble.
const HAS_P = 1;
const RESOURCE_SCOPED = 2;
const JOIN_PENDING = 4;
const HAS_JOIN_CONFIDENCE = 8;

/** graphology's error for a node or edge that is not there (same name and message). */
export class NotFoundGraphError extends Error {
  override name = 'NotFoundGraphError';
}

/** graphology's error for a call the graph refuses (a node added twice, a self-loop). */
export class UsageGraphError extends Error {
  override name = 'UsageGraphError';
}

/** A graph in graphology's serialized form (import/export). */
export interface SerializedGraph {
  attributes?: Record<string, unknown>;
  nodes: { key: string; attributes?: NodeAttributes }[];
  edges?: { key?: string; source: string; target: string; attributes?: EdgeAttributes }[];
}

export class CompactGraph {
  // Nodes, by slot: slots are handed out in order and never reused until a compaction renumbers them all.
  private ids: (string | undefined)[] = [];
  private nodeIds = new NodeIds(this.ids);
  private attrs: (NodeAttributes | undefined)[] = [];
  /** first/last out-edge and in-edge of each node: edge slot + 1, 0 for none */
  private outHead = new PagedI32();
  private outTail = new PagedI32();
  private inHead = new PagedI32();
  private inTail = new PagedI32();
  private outDeg = new PagedI32();
  private inDeg = new PagedI32();
  private nodeSlots = 0;
  /** nodeSlot's last answer; forgotten whenever a node is added, dropped or renumbered */
  private lastId: string | undefined;
  private lastSlot = -1;

  // Edges, by slot, likewise. A dead slot has from = -1.
  private from = new PagedI32();
  private to = new PagedI32();
  private type = new PagedU8();
  private bits = new PagedU8();
  private p = new PagedF64();
  private seen = new PagedF64();
  /** the edge's key number (keys only grow; they are never reused, unlike slots) */
  private keyNo = new PagedI32();
  /** neighbours in the node's out- and in-lists: edge slot + 1, 0 for none */
  private nextOut = new PagedI32();
  private prevOut = new PagedI32();
  private nextIn = new PagedI32();
  private prevIn = new PagedI32();
  private props: (Record<string, unknown> | undefined)[] = [];
  private joinConfidence = new Map<number, number>();
  private edgeSlots = 0;
  private liveEdges = 0;
  private nextKey = 0;
  /** key number -> slot + 1 */
  private slotOfKey = new SparsePagedI32();
  /** Keys given by a caller that are not the store's own numbers (tests, imports). */
  private readonly namedKeys = new Map<string, number>();
  private readonly nameOfSlot = new Map<number, string>();
  private readonly index: EdgeIndex;

  /** Below this many dead slots the store never compacts (a small graph's churn is not worth a rebuild). */
  private readonly compactAt: number;

  constructor(options: { compactAt?: number } = {}) {
    this.compactAt = options.compactAt ?? 65_536;
    this.index = new EdgeIndex({
      fromOf: (slot) => this.from.get(slot),
      toOf: (slot) => this.to.get(slot),
      typeOf: (slot) => this.type.get(slot),
    });
  }

  get order(): number {
    return this.nodeIds.size;
  }

  get size(): number {
    return this.liveEdges;
  }

  // ---- nodes ----------------------------------------------------------------------------------------

  /** A node's slot, or -1: the writer's one lookup per endpoint. */
  nodeSlot(id: string): number {
    // Reports list a node's edges together: the same source id, again and again, costs a string compare
    // instead of a hash lookup (a miss in a million-entry map is a few cache misses).
    if (id === this.lastId) return this.lastSlot;
    const slot = this.nodeIds.get(id);
    this.lastId = id;
    this.lastSlot = slot;
    return slot;
  }

  hasNode(id: string): boolean {
    return this.nodeSlot(id) >= 0;
  }

  addNode(id: string, attributes: NodeAttributes): string {
    if (this.nodeSlot(id) >= 0)
      throw new UsageGraphError(`Graph.addNode: the "${id}" node already exist in the graph.`);
    this.insertNode(id, attributes);
    return id;
  }

  /** graphology's mergeNode: adds the node, or merges the attributes into the stored record. */
  mergeNode(id: string, attributes: NodeAttributes): [string, boolean] {
    const slot = this.find(id);
    if (slot !== undefined) {
      Object.assign(this.attrs[slot]!, attributes);
      return [id, false];
    }
    this.insertNode(id, { ...attributes });
    return [id, true];
  }

  /** The attribute record of the node at a slot (nodeSlot's answer). */
  attributesAt(slot: number): NodeAttributes {
    return this.attrs[slot]!;
  }

  getNodeAttributes(id: string): NodeAttributes {
    const slot = this.find(id);
    if (slot === undefined) throw missingNode('getNodeAttributes', id);
    return this.attrs[slot]!;
  }

  getNodeAttribute<K extends keyof NodeAttributes>(id: string, name: K): NodeAttributes[K] {
    return this.getNodeAttributes(id)[name];
  }

  /** Drops a node and every edge at it. */
  dropNode(id: string): void {
    const slot = this.find(id);
    if (slot === undefined) throw missingNode('dropNode', id);
    for (let e = this.inHead.get(slot); e;) {
      const next = this.nextIn.get(e - 1);
      this.dropEdgeSlot(e - 1);
      e = next;
    }
    for (let e = this.outHead.get(slot); e;) {
      const next = this.nextOut.get(e - 1);
      this.dropEdgeSlot(e - 1);
      e = next;
    }
    this.nodeIds.delete(id, slot);
    this.lastId = undefined;
    this.ids[slot] = undefined;
    this.attrs[slot] = undefined;
  }

  forEachNode(callback: (id: string, attrs: NodeAttributes) => void): void {
    const { ids, attrs } = this;
    for (let slot = 0; slot < this.nodeSlots; slot++) {
      const id = ids[slot];
      if (id !== undefined) callback(id, attrs[slot]!);
    }
  }

  nodes(): string[] {
    const out: string[] = [];
    this.forEachNode((id) => out.push(id));
    return out;
  }

  *nodeEntries(): Generator<{ node: string; attributes: NodeAttributes }> {
    for (let slot = 0; slot < this.nodeSlots; slot++) {
      const id = this.ids[slot];
      if (id !== undefined) yield { node: id, attributes: this.attrs[slot]! };
    }
  }

  filterNodes(predicate: (id: string, attrs: NodeAttributes) => boolean): string[] {
    const out: string[] = [];
    this.forEachNode((id, attrs) => {
      if (predicate(id, attrs)) out.push(id);
    });
    return out;
  }

  findNode(predicate: (id: string, attrs: NodeAttributes) => boolean): string | undefined {
    for (let slot = 0; slot < this.nodeSlots; slot++) {
      const id = this.ids[slot];
      if (id !== undefined && predicate(id, this.attrs[slot]!)) return id;
    }
    return undefined;
  }

  someNode(predicate: (id: string, attrs: NodeAttributes) => boolean): boolean {
    return this.findNode(predicate) !== undefined;
  }

  outDegree(id: string): number {
    return this.outDeg.get(this.requireNode('outDegree', id));
  }

  inDegree(id: string): number {
    return this.inDeg.get(this.requireNode('inDegree', id));
  }

  degree(id: string): number {
    const slot = this.requireNode('degree', id);
    return this.outDeg.get(slot) + this.inDeg.get(slot);
  }

  // ---- edges ----------------------------------------------------------------------------------------

  /** The slot of the edge of `type` between two node slots, or -1. */
  findEdgeSlot(type: EdgeType, fromSlot: number, toSlot: number): number {
    const t = TYPE_NUMBER.get(type);
    return t === undefined ? -1 : this.index.find(t, fromSlot, toSlot);
  }

  /** The key of the edge of `type` from `from` to `to`, if there is one. */
  findEdge(type: EdgeType, from: string, to: string): string | undefined {
    const f = this.find(from);
    const t = this.find(to);
    if (f === undefined || t === undefined) return undefined;
    const slot = this.findEdgeSlot(type, f, t);
    return slot < 0 ? undefined : this.keyOfSlot(slot);
  }

  /** graphology's findOutEdge: the first out-edge of `from` to `to` the predicate accepts. */
  findOutEdge(
    from: string,
    to: string,
    predicate: (key: string, attrs: EdgeAttributes, source: string, target: string) => boolean,
  ): string | undefined {
    const f = this.find(from);
    const t = this.find(to);
    if (f === undefined || t === undefined) return undefined;
    for (let e = this.outHead.get(f); e; e = this.nextOut.get(e - 1)) {
      const slot = e - 1;
      if (this.to.get(slot) !== t) continue;
      const key = this.keyOfSlot(slot);
      if (predicate(key, this.edgeAttributesAt(slot), from, to)) return key;
    }
    return undefined;
  }

  /** Adds an edge under the store's next key; returns its slot. */
  addEdgeSlots(fromSlot: number, toSlot: number, attributes: EdgeAttributes): number {
    if (fromSlot === toSlot)
      throw new UsageGraphError(
        `Graph.addEdge: source "${this.ids[fromSlot]}" and target are the same node (self-loops are not allowed).`,
      );
    this.compactEdgesIfSparse();
    const slot = this.edgeSlots++;
    if (this.from.capacity < this.edgeSlots) this.reserveEdges(this.edgeSlots);
    const key = this.nextKey++;
    this.keyNo.set(slot, key);
    this.slotOfKey.set(key, slot + 1);
    this.from.set(slot, fromSlot);
    this.to.set(slot, toSlot);
    this.writeAttributes(slot, attributes);
    this.props.push(attributes.props);
    this.link(slot, fromSlot, toSlot);
    this.index.add(slot);
    this.liveEdges++;
    return slot;
  }

  addDirectedEdge(from: string, to: string, attributes: EdgeAttributes): string {
    const slot = this.addEdgeSlots(
      this.requireNode('addDirectedEdge', from, 'source'),
      this.requireNode('addDirectedEdge', to, 'target'),
      attributes,
    );
    return this.keyOfSlot(slot);
  }

  addEdge(from: string, to: string, attributes: EdgeAttributes): string {
    return this.addDirectedEdge(from, to, attributes);
  }

  addDirectedEdgeWithKey(key: string, from: string, to: string, attributes: EdgeAttributes): string {
    if (this.slotOfEdge(key) >= 0)
      throw new UsageGraphError(
        `Graph.addDirectedEdgeWithKey: the "${key}" edge already exists in the graph.`,
      );
    const slot = this.addEdgeSlots(
      this.requireNode('addDirectedEdgeWithKey', from, 'source'),
      this.requireNode('addDirectedEdgeWithKey', to, 'target'),
      attributes,
    );
    // The store's own key stays mapped, unused; the caller's name is the edge's key from now on.
    this.slotOfKey.set(this.keyNo.get(slot), 0);
    this.keyNo.set(slot, -1);
    this.namedKeys.set(key, slot);
    this.nameOfSlot.set(slot, key);
    return key;
  }

  /** graphology's hasEdge: by key, or (two arguments) whether any edge goes from one node to another. */
  hasEdge(keyOrFrom: string, to?: string): boolean {
    if (to === undefined) return this.slotOfEdge(keyOrFrom) >= 0;
    const f = this.find(keyOrFrom);
    const t = this.find(to);
    if (f === undefined || t === undefined) return false;
    for (let e = this.outHead.get(f); e; e = this.nextOut.get(e - 1))
      if (this.to.get(e - 1) === t) return true;
    return false;
  }

  hasDirectedEdge(keyOrFrom: string, to?: string): boolean {
    return this.hasEdge(keyOrFrom, to);
  }

  dropEdge(key: string): void {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('dropEdge', key);
    this.dropEdgeSlot(slot);
  }

  /** The key of the edge at a slot. */
  keyOfSlot(slot: number): string {
    const n = this.keyNo.get(slot);
    return n >= 0 ? String(n) : this.nameOfSlot.get(slot)!;
  }

  /** The slot of the edge with this key, or -1. */
  slotOfEdge(key: string): number {
    const named = this.namedKeys.get(key);
    if (named !== undefined) return named;
    const c = key.charCodeAt(0);
    if (!(c >= 48 && c <= 57)) return -1;
    const n = Number(key);
    if (!Number.isInteger(n) || n < 0 || n >= this.nextKey || String(n) !== key) return -1;
    return this.slotOfKey.get(n) - 1;
  }

  getEdgeAttributes(key: string): EdgeAttributes {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('getEdgeAttributes', key);
    return this.edgeAttributesAt(slot);
  }

  getEdgeAttribute<K extends keyof EdgeAttributes>(key: string, name: K): EdgeAttributes[K] {
    return this.getEdgeAttributes(key)[name];
  }

  /** Replaces an edge's attributes (its type included, as graphology would). */
  replaceEdgeAttributes(key: string, attributes: EdgeAttributes): void {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('replaceEdgeAttributes', key);
    this.setEdgeAttributesAt(slot, attributes);
  }

  setEdgeAttributesAt(slot: number, attributes: EdgeAttributes): void {
    const retype = TYPE_NUMBER.get(attributes.type) !== this.type.get(slot);
    if (retype) this.index.remove(slot);
    this.writeAttributes(slot, attributes);
    if (retype) this.index.add(slot);
    this.props[slot] = attributes.props;
  }

  source(key: string): string {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('source', key);
    return this.ids[this.from.get(slot)]!;
  }

  target(key: string): string {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('target', key);
    return this.ids[this.to.get(slot)]!;
  }

  /** A copy of an edge's attributes, with only the fields it has. */
  edgeAttributesAt(slot: number): EdgeAttributes {
    const bits = this.bits.get(slot);
    const attrs: EdgeAttributes = { type: EDGE_TYPES[this.type.get(slot)], lastSeen: this.seen.get(slot) };
    if (bits & HAS_P) attrs.p = this.p.get(slot);
    if (bits >>> 4) attrs.basis = WEIGHT_BASES[(bits >>> 4) - 1];
    if (bits & RESOURCE_SCOPED) attrs.resourceScoped = true;
    if (bits & HAS_JOIN_CONFIDENCE) attrs.joinConfidence = this.joinConfidence.get(slot);
    if (bits & JOIN_PENDING) attrs.joinPending = true;
    const props = this.props[slot];
    if (props !== undefined) attrs.props = props;
    return attrs;
  }

  /**
   * Every edge in the order added (graphology's), or with a node first every edge at it: its in-edges,
   * then its out-edges (graphology's order too).
   */
  forEachEdge(callback: EdgeVisitor): void;
  forEachEdge(node: string, callback: EdgeVisitor): void;
  forEachEdge(nodeOrCallback: string | EdgeVisitor, maybeCallback?: EdgeVisitor): void {
    if (typeof nodeOrCallback === 'string') {
      this.forEachInEdge(nodeOrCallback, maybeCallback!);
      this.forEachOutEdge(nodeOrCallback, maybeCallback!);
      return;
    }
    for (let slot = 0; slot < this.edgeSlots; slot++)
      if (this.from.get(slot) >= 0) this.visit(slot, nodeOrCallback);
  }

  /** forEachEdge with '' for every key: the compiler reads 4.5M edges at 1M nodes and no key. */
  forEachEdgeUnkeyed(callback: EdgeVisitor): void {
    const { ids, attrs } = this;
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      const t = this.to.get(slot);
      callback('', this.edgeAttributesAt(slot), ids[f]!, ids[t]!, attrs[f]!, attrs[t]!);
    }
  }

  forEachOutEdge(id: string, callback: EdgeVisitor): void {
    const slot = this.requireNode('forEachOutEdge', id);
    for (let e = this.outHead.get(slot); e;) {
      const next = this.nextOut.get(e - 1);
      this.visit(e - 1, callback);
      e = next;
    }
  }

  forEachInEdge(id: string, callback: EdgeVisitor): void {
    const slot = this.requireNode('forEachInEdge', id);
    for (let e = this.inHead.get(slot); e;) {
      const next = this.nextIn.get(e - 1);
      this.visit(e - 1, callback);
      e = next;
    }
  }

  outEdges(id: string): string[] {
    const out: string[] = [];
    this.forEachOutEdge(id, (key) => out.push(key));
    return out;
  }

  inEdges(id: string): string[] {
    const out: string[] = [];
    this.forEachInEdge(id, (key) => out.push(key));
    return out;
  }

  edges(): string[] {
    const out: string[] = [];
    this.forEachEdge((key) => out.push(key));
    return out;
  }

  *edgeEntries(): Generator<{
    edge: string;
    attributes: EdgeAttributes;
    source: string;
    target: string;
    sourceAttributes: NodeAttributes;
    targetAttributes: NodeAttributes;
  }> {
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      const t = this.to.get(slot);
      yield {
        edge: this.keyOfSlot(slot),
        attributes: this.edgeAttributesAt(slot),
        source: this.ids[f]!,
        target: this.ids[t]!,
        sourceAttributes: this.attrs[f]!,
        targetAttributes: this.attrs[t]!,
      };
    }
  }

  /**
   * Every edge in the order added, in chunks, its ends given as node ordinals (a node's position in
   * forEachNode's order): a snapshot stores an edge without repeating its ends' ids.
   */
  *edgeChunks(size: number): Generator<{ s: number[]; d: number[]; a: EdgeAttributes[] }> {
    const ordinal = new Int32Array(this.nodeSlots);
    let next = 0;
    for (let slot = 0; slot < this.nodeSlots; slot++)
      if (this.ids[slot] !== undefined) ordinal[slot] = next++;
    let chunk = { s: [] as number[], d: [] as number[], a: [] as EdgeAttributes[] };
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      chunk.s.push(ordinal[f]);
      chunk.d.push(ordinal[this.to.get(slot)]);
      chunk.a.push(this.edgeAttributesAt(slot));
      if (chunk.a.length === size) {
        yield chunk;
        chunk = { s: [], d: [], a: [] };
      }
    }
    if (chunk.a.length) yield chunk;
  }

  /** graphology's forEachNeighbor: each node joined to `id` by an edge either way, once. */
  forEachNeighbor(id: string, callback: (neighbor: string, attrs: NodeAttributes) => void): void {
    const seen = new Set<number>();
    const slot = this.requireNode('forEachNeighbor', id);
    const visit = (other: number) => {
      if (seen.has(other)) return;
      seen.add(other);
      callback(this.ids[other]!, this.attrs[other]!);
    };
    for (let e = this.inHead.get(slot); e; e = this.nextIn.get(e - 1)) visit(this.from.get(e - 1));
    for (let e = this.outHead.get(slot); e; e = this.nextOut.get(e - 1)) visit(this.to.get(e - 1));
  }

  neighbors(id: string): string[] {
    const out: string[] = [];
    this.forEachNeighbor(id, (neighbor) => out.push(neighbor));
    return out;
  }

  outNeighbors(id: string): string[] {
    const slot = this.requireNode('outNeighbors', id);
    const seen = new Set<number>();
    const out: string[] = [];
    for (let e = this.outHead.get(slot); e; e = this.nextOut.get(e - 1)) {
      const other = this.to.get(e - 1);
      if (!seen.has(other)) {
        seen.add(other);
        out.push(this.ids[other]!);
      }
    }
    return out;
  }

  clear(): void {
    this.lastId = undefined;
    this.ids = [];
    this.nodeIds = new NodeIds(this.ids);
    this.attrs = [];
    for (const column of this.nodeColumns()) column.clear();
    for (const column of this.edgeColumns()) column.clear();
    this.props = [];
    this.joinConfidence.clear();
    this.namedKeys.clear();
    this.nameOfSlot.clear();
    this.slotOfKey = new SparsePagedI32();
    this.nodeSlots = 0;
    this.edgeSlots = 0;
    this.liveEdges = 0;
    this.index.rebuild([], 0);
  }

  /** Adds a graph in graphology's serialized form (nodes merged, edges added). */
  import(data: SerializedGraph): this {
    for (const node of data.nodes) this.mergeNode(node.key, node.attributes ?? ({} as NodeAttributes));
    for (const edge of data.edges ?? []) {
      const attrs = edge.attributes ?? ({} as EdgeAttributes);
      if (edge.key !== undefined) this.addDirectedEdgeWithKey(edge.key, edge.source, edge.target, attrs);
      else this.addDirectedEdge(edge.source, edge.target, attrs);
    }
    return this;
  }

  /** The graph in graphology's serialized form (graphology's `Graph.from` loads it). */
  export(): SerializedGraph & { options: { type: 'directed'; multi: true; allowSelfLoops: false } } {
    const nodes: SerializedGraph['nodes'] = [];
    this.forEachNode((key, attributes) => nodes.push({ key, attributes: { ...attributes } }));
    const edges: NonNullable<SerializedGraph['edges']> = [];
    this.forEachEdge((key, attributes, source, target) => edges.push({ key, source, target, attributes }));
    return {
      options: { type: 'directed', multi: true, allowSelfLoops: false },
      attributes: {},
      nodes,
      edges,
    };
  }

  // ---- internals ------------------------------------------------------------------------------------

  private find(id: string): number | undefined {
    const slot = this.nodeSlot(id);
    return slot < 0 ? undefined : slot;
  }

  // Compactions run only when something is added: a caller may drop while it walks a list, never add.
  private insertNode(id: string, attributes: NodeAttributes): void {
    this.lastId = undefined;
    this.compactNodesIfSparse();
    const slot = this.nodeSlots++;
    if (this.outHead.capacity < this.nodeSlots)
      for (const column of this.nodeColumns()) column.reserve(this.nodeSlots);
    this.ids.push(id);
    this.nodeIds.set(id, slot);
    this.attrs.push(attributes);
  }

  private requireNode(method: string, id: string, role?: 'source' | 'target'): number {
    const slot = this.find(id);
    if (slot === undefined) {
      if (role) throw new NotFoundGraphError(`Graph.${method}: ${role} node "${id}" not found.`);
      throw missingNode(method, id);
    }
    return slot;
  }

  private visit(slot: number, callback: EdgeVisitor): void {
    const f = this.from.get(slot);
    const t = this.to.get(slot);
    callback(
      this.keyOfSlot(slot),
      this.edgeAttributesAt(slot),
      this.ids[f]!,
      this.ids[t]!,
      this.attrs[f]!,
      this.attrs[t]!,
    );
  }

  private writeAttributes(slot: number, attributes: EdgeAttributes): void {
    const type = TYPE_NUMBER.get(attributes.type);
    if (type === undefined)
      throw new UsageGraphError(
        `Graph: edge type ${JSON.stringify(attributes.type)} is outside the vocabulary.`,
      );
    this.type.set(slot, type);
    let bits = 0;
    if (typeof attributes.p === 'number') {
      bits |= HAS_P;
      this.p.set(slot, attributes.p);
    } else this.p.set(slot, 0);
    if (attributes.basis !== undefined) bits |= (BASIS_NUMBER.get(attributes.basis) ?? 0) << 4;
    if (attributes.resourceScoped) bits |= RESOURCE_SCOPED;
    if (attributes.joinPending) bits |= JOIN_PENDING;
    if (typeof attributes.joinConfidence === 'number') {
      bits |= HAS_JOIN_CONFIDENCE;
      this.joinConfidence.set(slot, attributes.joinConfidence);
    } else this.joinConfidence.delete(slot);
    this.bits.set(slot, bits);
    this.seen.set(slot, attributes.lastSeen);
  }

  private link(slot: number, f: number, t: number): void {
    const outTail = this.outTail.get(f);
    this.prevOut.set(slot, outTail);
    this.nextOut.set(slot, 0);
    if (outTail) this.nextOut.set(outTail - 1, slot + 1);
    else this.outHead.set(f, slot + 1);
    this.outTail.set(f, slot + 1);
    this.outDeg.set(f, this.outDeg.get(f) + 1);
    const inTail = this.inTail.get(t);
    this.prevIn.set(slot, inTail);
    this.nextIn.set(slot, 0);
    if (inTail) this.nextIn.set(inTail - 1, slot + 1);
    else this.inHead.set(t, slot + 1);
    this.inTail.set(t, slot + 1);
    this.inDeg.set(t, this.inDeg.get(t) + 1);
  }

  private unlink(slot: number, f: number, t: number): void {
    const prevOut = this.prevOut.get(slot);
    const nextOut = this.nextOut.get(slot);
    if (prevOut) this.nextOut.set(prevOut - 1, nextOut);
    else this.outHead.set(f, nextOut);
    if (nextOut) this.prevOut.set(nextOut - 1, prevOut);
    else this.outTail.set(f, prevOut);
    this.outDeg.set(f, this.outDeg.get(f) - 1);
    const prevIn = this.prevIn.get(slot);
    const nextIn = this.nextIn.get(slot);
    if (prevIn) this.nextIn.set(prevIn - 1, nextIn);
    else this.inHead.set(t, nextIn);
    if (nextIn) this.prevIn.set(nextIn - 1, prevIn);
    else this.inTail.set(t, prevIn);
    this.inDeg.set(t, this.inDeg.get(t) - 1);
  }

  private dropEdgeSlot(slot: number): void {
    const f = this.from.get(slot);
    const t = this.to.get(slot);
    this.index.remove(slot);
    this.unlink(slot, f, t);
    const key = this.keyNo.get(slot);
    if (key >= 0) this.slotOfKey.set(key, 0);
    else {
      this.namedKeys.delete(this.nameOfSlot.get(slot)!);
      this.nameOfSlot.delete(slot);
    }
    this.from.set(slot, -1);
    this.props[slot] = undefined;
    this.joinConfidence.delete(slot);
    this.liveEdges--;
  }

  private reserveEdges(length: number): void {
    for (const column of this.edgeColumns()) column.reserve(length);
  }

  private nodeColumns(): (PagedI32 | PagedU8 | PagedF64)[] {
    return [this.outHead, this.outTail, this.inHead, this.inTail, this.outDeg, this.inDeg];
  }

  private edgeColumns(): (PagedI32 | PagedU8 | PagedF64)[] {
    return [
      this.from,
      this.to,
      this.type,
      this.bits,
      this.p,
      this.seen,
      this.keyNo,
      this.nextOut,
      this.prevOut,
      this.nextIn,
      this.prevIn,
    ];
  }

  /** Renumbers nodes and edges now if enough slots are dead (tests; the store does it as it adds). */
  compactIfSparse(): void {
    this.compactNodesIfSparse();
    this.compactEdgesIfSparse();
  }

  /**
   * Renumbers the edges when more slots are dead than alive (and many are): the columns are rebuilt in slot
   * order, so every order the store promises holds; keys do not change.
   */
  private compactEdgesIfSparse(): void {
    const dead = this.edgeSlots - this.liveEdges;
    if (dead < this.compactAt || dead < this.liveEdges) return;
    const old = {
      from: this.from,
      to: this.to,
      type: this.type,
      bits: this.bits,
      p: this.p,
      seen: this.seen,
      keyNo: this.keyNo,
      props: this.props,
      joinConfidence: this.joinConfidence,
      nameOfSlot: new Map(this.nameOfSlot),
      slots: this.edgeSlots,
    };
    this.from = new PagedI32();
    this.to = new PagedI32();
    this.type = new PagedU8();
    this.bits = new PagedU8();
    this.p = new PagedF64();
    this.seen = new PagedF64();
    this.keyNo = new PagedI32();
    this.nextOut = new PagedI32();
    this.prevOut = new PagedI32();
    this.nextIn = new PagedI32();
    this.prevIn = new PagedI32();
    this.props = [];
    this.joinConfidence = new Map();
    this.nameOfSlot.clear();
    for (const column of [this.outHead, this.outTail, this.inHead, this.inTail, this.outDeg, this.inDeg])
      for (const page of column.pages) page.fill(0);
    this.reserveEdges(this.liveEdges);
    let slot = 0;
    for (let s = 0; s < old.slots; s++) {
      const f = old.from.get(s);
      if (f < 0) continue;
      const t = old.to.get(s);
      this.from.set(slot, f);
      this.to.set(slot, t);
      this.type.set(slot, old.type.get(s));
      this.bits.set(slot, old.bits.get(s));
      this.p.set(slot, old.p.get(s));
      this.seen.set(slot, old.seen.get(s));
      const key = old.keyNo.get(s);
      this.keyNo.set(slot, key);
      if (key >= 0) this.slotOfKey.set(key, slot + 1);
      else {
        const name = old.nameOfSlot.get(s)!;
        this.namedKeys.set(name, slot);
        this.nameOfSlot.set(slot, name);
      }
      this.props.push(old.props[s]);
      const confidence = old.joinConfidence.get(s);
      if (confidence !== undefined) this.joinConfidence.set(slot, confidence);
      this.link(slot, f, t);
      slot++;
    }
    this.edgeSlots = slot;
    this.index.rebuild(liveSlots(slot), slot);
  }

  /** Renumbers the nodes when more slots are dead than alive (and many are), keeping their order. */
  private compactNodesIfSparse(): void {
    const dead = this.nodeSlots - this.nodeIds.size;
    if (dead < this.compactAt || dead < this.nodeIds.size) return;
    const renumber = new Int32Array(this.nodeSlots).fill(-1);
    const ids: (string | undefined)[] = [];
    const attrs: (NodeAttributes | undefined)[] = [];
    for (let s = 0; s < this.nodeSlots; s++) {
      const id = this.ids[s];
      if (id === undefined) continue;
      renumber[s] = ids.length;
      ids.push(id);
      attrs.push(this.attrs[s]);
    }
    this.ids = ids;
    this.nodeIds.rebuild(ids);
    this.attrs = attrs;
    this.nodeSlots = ids.length;
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      this.from.set(slot, renumber[f]);
      this.to.set(slot, renumber[this.to.get(slot)]);
    }
    // Relink every list in slot order (each list was in slot order already) and rehash the new ends.
    this.outHead = new PagedI32();
    this.outTail = new PagedI32();
    this.inHead = new PagedI32();
    this.inTail = new PagedI32();
    this.outDeg = new PagedI32();
    this.inDeg = new PagedI32();
    for (const column of this.nodeColumns()) column.reserve(this.nodeSlots);
    const live: number[] = [];
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      this.link(slot, f, this.to.get(slot));
      live.push(slot);
    }
    this.index.rebuild(live, live.length);
  }
}

function* liveSlots(count: number): Generator<number> {
  for (let slot = 0; slot < count; slot++) yield slot;
}

function missingNode(method: string, id: string): NotFoundGraphError {
  return new NotFoundGraphError(`Graph.${method}: could not find the "${id}" node in the graph.`);
}

function missingEdge(method: string, key: string): NotFoundGraphError {
  return new NotFoundGraphError(`Graph.${method}: could not find the "${key}" edge in the graph.`);
}
