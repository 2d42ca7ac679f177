// The tenant graph as this project stores it (issue 38): node ids interned once, a small attribute record
// per node, and edges in paged typed columns (ends, type, probability, basis, flags, last seen; properties
// and join confidences by reference where an edge has them), with each node's out- and in-edges as
// doubly-linked lists through the edge columns. At 1M nodes / 4.5M edges graphology held about 20 million
// heap objects, which every full collection marked again; here the edges are a few hundred typed arrays.
//
// The API is the subset of graphology's that the writer and the readers call, with graphology's meaning
// (iteration orders included: nodes and edges in the order added; a node's edges in-edges first, those to
// one neighbour together and newest first), so the readers did not change. The layout: graph-storage.ts. Edge attributes handed out are copies: the writer changes an edge through
// replaceEdgeAttributes. Node attributes are the stored record, as graphology's are.
import type { EdgeAttributes, EdgeVisitor, NodeAttributes, NodeSlotVisitor, SlotView } from '../model.js';
import type { EdgeType } from '../vocabulary.js';
import { GraphStorage, missingEdge, missingNode, UsageGraphError } from './graph-storage.js';
import { NodeIds } from './node-ids.js';
import { SparsePagedI32, SparseRefs } from './paged.js';

export { NotFoundGraphError, UsageGraphError } from './graph-storage.js';

/** A graph in graphology's serialized form (import/export). */
export interface SerializedGraph {
  attributes?: Record<string, unknown>;
  nodes: { key: string; attributes?: NodeAttributes }[];
  edges?: { key?: string; source: string; target: string; attributes?: EdgeAttributes }[];
}

/**
 * A copy of a node's attributes as a record with the compiler's scratch key in its shape from the start
 * (model.ts compileIndex). Gaining the key later costs about 40 bytes a record, and a spread copy of a parsed
 * snapshot record that gains it was measured at about 256 bytes more (it fell to a dictionary). Attributes
 * without a label (tests, imports of other graphs) are copied as they are.
 */
export function nodeRecord(attributes: NodeAttributes): NodeAttributes {
  if (attributes.label === undefined) return { ...attributes };
  const { label, name, props, lastSeen, compileIndex } = attributes;
  const record: NodeAttributes = { label, name, props, lastSeen, compileIndex };
  for (const key in attributes)
    if (!(key in record))
      (record as unknown as Record<string, unknown>)[key] = (
        attributes as unknown as Record<string, unknown>
      )[key];
  return record;
}

export class CompactGraph extends GraphStorage {
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
    this.insertNode(id, nodeRecord(attributes));
    return [id, true];
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

  forEachNodeSlot(callback: NodeSlotVisitor): void {
    const { ids, attrs, outDeg } = this;
    for (let slot = 0; slot < this.nodeSlots; slot++) {
      const id = ids[slot];
      if (id !== undefined) callback(slot, id, attrs[slot]!, outDeg.get(slot));
    }
  }

  slots(): SlotView {
    return this;
  }

  get nodeSlotBound(): number {
    return this.nodeSlots;
  }

  idTableOver(ids: string[]): NodeIds | undefined {
    return this.nodeSlots === this.order && ids.length === this.order
      ? this.nodeIds.copyOver(ids)
      : undefined;
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
    return f !== undefined && t !== undefined && this.index.findPair(f, t) >= 0;
  }

  hasDirectedEdge(keyOrFrom: string, to?: string): boolean {
    return this.hasEdge(keyOrFrom, to);
  }

  dropEdge(key: string): void {
    const slot = this.slotOfEdge(key);
    if (slot < 0) throw missingEdge('dropEdge', key);
    this.dropEdgeSlot(slot);
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
  /**
   * forEachEdge for the analysis compiler: '' for every key, and one attributes record rewritten for each
   * edge (read it in the callback, keep nothing of it): a compile of the 1M estate made 4.5M copies.
   */
  forEachEdgeUnkeyed(callback: EdgeVisitor): void {
    const { ids, attrs } = this;
    const edge: EdgeAttributes = {
      type: 'ROUTES_TO',
      lastSeen: 0,
      p: undefined,
      basis: undefined,
      resourceScoped: undefined,
      joinConfidence: undefined,
      joinPending: undefined,
      props: undefined,
    };
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      const t = this.to.get(slot);
      this.fillEdgeAttributes(slot, edge);
      callback('', edge, ids[f]!, ids[t]!, attrs[f]!, attrs[t]!);
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
    this.props = new SparseRefs();
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
}
