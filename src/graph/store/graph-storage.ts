// The compact graph store's layout and its low-level operations (issue 38); the graphology-style API the
// writer and readers call is compact-graph.ts, built on this. Nodes: an interned id table (node-ids.ts),
// an attribute record per node, and per node the first and last out- and in-edge and both degrees in
// paged Int32 columns. Edges: paged typed columns by slot (ends, type, a flag byte with the basis,
// probability, last seen, key number, and the links of the out- and in-lists), properties and join
// confidences by reference where an edge has them. A (from, to) hash of edge slots (edge-index.ts) finds
// an edge, and a key number's slot is kept in sparse pages (keys are never reused; slots are reused only
// by a compaction, which keeps every order).
import type { EdgeAttributes, EdgeSlotVisitor, EdgeVisitor, NodeAttributes } from '../model.js';
import { EDGE_TYPES, WEIGHT_BASES, type EdgeType } from '../vocabulary.js';
import { EdgeIndex } from './edge-index.js';
import { NodeIds } from './node-ids.js';
import { PagedF64, PagedI32, PagedU8, SparsePagedI32, SparseRefs } from './paged.js';

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

export abstract class GraphStorage {
  // Nodes, by slot: slots are handed out in order and never reused until a compaction renumbers them all.
  protected ids: (string | undefined)[] = [];
  protected nodeIds = new NodeIds(this.ids);
  protected attrs: (NodeAttributes | undefined)[] = [];
  /** first/last out-edge and in-edge of each node: edge slot + 1, 0 for none */
  protected outHead = new PagedI32();
  protected outTail = new PagedI32();
  protected inHead = new PagedI32();
  protected inTail = new PagedI32();
  protected outDeg = new PagedI32();
  protected inDeg = new PagedI32();
  protected nodeSlots = 0;
  /** nodeSlot's last answer; forgotten whenever a node is added, dropped or renumbered */
  protected lastId: string | undefined;
  protected lastSlot = -1;

  // Edges, by slot, likewise. A dead slot has from = -1.
  protected from = new PagedI32();
  protected to = new PagedI32();
  protected type = new PagedU8();
  protected bits = new PagedU8();
  protected p = new PagedF64();
  protected seen = new PagedF64();
  /** the edge's key number (keys only grow; they are never reused, unlike slots) */
  protected keyNo = new PagedI32();
  /** neighbours in the node's out- and in-lists: edge slot + 1, 0 for none */
  protected nextOut = new PagedI32();
  protected prevOut = new PagedI32();
  protected nextIn = new PagedI32();
  protected prevIn = new PagedI32();
  protected props = new SparseRefs<Record<string, unknown>>();
  protected joinConfidence = new Map<number, number>();
  protected edgeSlots = 0;
  protected liveEdges = 0;
  protected nextKey = 0;
  /** key number -> slot + 1 */
  protected slotOfKey = new SparsePagedI32();
  /** Keys given by a caller that are not the store's own numbers (tests, imports). */
  protected readonly namedKeys = new Map<string, number>();
  protected readonly nameOfSlot = new Map<number, string>();
  protected readonly index: EdgeIndex;

  /** Below this many dead slots the store never compacts (a small graph's churn is not worth a rebuild). */
  protected readonly compactAt: number;

  constructor(options: { compactAt?: number } = {}) {
    this.compactAt = options.compactAt ?? 65_536;
    this.index = new EdgeIndex({
      fromOf: (slot) => this.from.get(slot),
      toOf: (slot) => this.to.get(slot),
      typeOf: (slot) => this.type.get(slot),
      slotCount: () => this.edgeSlots,
    });
  }

  get order(): number {
    return this.nodeIds.size;
  }

  get size(): number {
    return this.liveEdges;
  }

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

  /** The attribute record of the node at a slot (nodeSlot's answer). */
  attributesAt(slot: number): NodeAttributes {
    return this.attrs[slot]!;
  }

  /** The slot of the edge of `type` between two node slots, or -1. */
  findEdgeSlot(type: EdgeType, fromSlot: number, toSlot: number): number {
    const t = TYPE_NUMBER.get(type);
    return t === undefined ? -1 : this.index.find(t, fromSlot, toSlot);
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
    this.props.set(slot, attributes.props);
    this.link(slot, fromSlot, toSlot);
    this.index.add(slot);
    this.liveEdges++;
    return slot;
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

  setEdgeAttributesAt(slot: number, attributes: EdgeAttributes): void {
    const retype = TYPE_NUMBER.get(attributes.type) !== this.type.get(slot);
    if (retype) this.index.remove(slot);
    this.writeAttributes(slot, attributes);
    if (retype) this.index.add(slot);
    this.props.set(slot, attributes.props);
  }

  /** Every live edge by slot, in slot order (the order added): the analyzer compile's fast path. */
  forEachEdgeSlot(callback: EdgeSlotVisitor): void {
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      const bits = this.bits.get(slot);
      const own = (bits & (HAS_P | HAS_JOIN_CONFIDENCE)) === HAS_P;
      callback(slot, f, this.to.get(slot), this.type.get(slot), bits >>> 4, own ? this.p.get(slot) : NaN);
    }
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
    const props = this.props.get(slot);
    if (props !== undefined) attrs.props = props;
    return attrs;
  }

  /**
   * Writes an edge's attributes into `into`, every field set (undefined where the edge has none), so a
   * record reused from edge to edge keeps one shape (forEachEdgeUnkeyed).
   */
  protected fillEdgeAttributes(slot: number, into: EdgeAttributes): void {
    const bits = this.bits.get(slot);
    into.type = EDGE_TYPES[this.type.get(slot)];
    into.lastSeen = this.seen.get(slot);
    into.p = bits & HAS_P ? this.p.get(slot) : undefined;
    into.basis = bits >>> 4 ? WEIGHT_BASES[(bits >>> 4) - 1] : undefined;
    into.resourceScoped = bits & RESOURCE_SCOPED ? true : undefined;
    into.joinConfidence = bits & HAS_JOIN_CONFIDENCE ? this.joinConfidence.get(slot) : undefined;
    into.joinPending = bits & JOIN_PENDING ? true : undefined;
    into.props = this.props.get(slot);
  }

  protected find(id: string): number | undefined {
    const slot = this.nodeSlot(id);
    return slot < 0 ? undefined : slot;
  }

  // Compactions run only when something is added: a caller may drop while it walks a list, never add.
  protected insertNode(id: string, attributes: NodeAttributes): void {
    this.lastId = undefined;
    this.compactNodesIfSparse();
    const slot = this.nodeSlots++;
    if (this.outHead.capacity < this.nodeSlots)
      for (const column of this.nodeColumns()) column.reserve(this.nodeSlots);
    this.ids.push(id);
    this.nodeIds.set(id, slot);
    this.attrs.push(attributes);
  }

  protected requireNode(method: string, id: string, role?: 'source' | 'target'): number {
    const slot = this.find(id);
    if (slot === undefined) {
      if (role) throw new NotFoundGraphError(`Graph.${method}: ${role} node "${id}" not found.`);
      throw missingNode(method, id);
    }
    return slot;
  }

  protected visit(slot: number, callback: EdgeVisitor): void {
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

  protected writeAttributes(slot: number, attributes: EdgeAttributes): void {
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

  /**
   * Puts a new edge in its ends' lists where graphology would: a node's edges to one neighbour stay
   * together, newest first, the group where its first edge put it; an edge to a new neighbour goes last.
   * Call before the edge is in the index (it finds the edge's group there).
   */
  protected link(slot: number, f: number, t: number): void {
    const sibling = this.index.findPair(f, t);
    if (sibling < 0) {
      this.append(slot, f, t);
      return;
    }
    let head = sibling;
    for (let p = this.prevOut.get(head); p && this.to.get(p - 1) === t; p = this.prevOut.get(head))
      head = p - 1;
    const prevOut = this.prevOut.get(head);
    this.prevOut.set(slot, prevOut);
    this.nextOut.set(slot, head + 1);
    this.prevOut.set(head, slot + 1);
    if (prevOut) this.nextOut.set(prevOut - 1, slot + 1);
    else this.outHead.set(f, slot + 1);
    this.outDeg.set(f, this.outDeg.get(f) + 1);
    let headIn = sibling;
    for (let p = this.prevIn.get(headIn); p && this.from.get(p - 1) === f; p = this.prevIn.get(headIn))
      headIn = p - 1;
    const prevIn = this.prevIn.get(headIn);
    this.prevIn.set(slot, prevIn);
    this.nextIn.set(slot, headIn + 1);
    this.prevIn.set(headIn, slot + 1);
    if (prevIn) this.nextIn.set(prevIn - 1, slot + 1);
    else this.inHead.set(t, slot + 1);
    this.inDeg.set(t, this.inDeg.get(t) + 1);
  }

  /** Puts an edge last in its ends' lists. */
  protected append(slot: number, f: number, t: number): void {
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

  protected unlink(slot: number, f: number, t: number): void {
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

  protected dropEdgeSlot(slot: number): void {
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
    this.props.set(slot, undefined);
    this.joinConfidence.delete(slot);
    this.liveEdges--;
  }

  protected reserveEdges(length: number): void {
    for (const column of this.edgeColumns()) column.reserve(length);
  }

  protected nodeColumns(): (PagedI32 | PagedU8 | PagedF64)[] {
    return [this.outHead, this.outTail, this.inHead, this.inTail, this.outDeg, this.inDeg];
  }

  protected edgeColumns(): (PagedI32 | PagedU8 | PagedF64)[] {
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
   * order and every list keeps its order, so every order the store promises holds; keys do not change.
   */
  protected compactEdgesIfSparse(): void {
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
      nextOut: this.nextOut,
      nextIn: this.nextIn,
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
    this.props = new SparseRefs();
    this.joinConfidence = new Map();
    this.nameOfSlot.clear();
    this.reserveEdges(this.liveEdges);
    /** old slot -> new slot + 1 */
    const renumber = new Int32Array(old.slots);
    let slot = 0;
    for (let s = 0; s < old.slots; s++) {
      const f = old.from.get(s);
      if (f < 0) continue;
      renumber[s] = slot + 1;
      this.from.set(slot, f);
      this.to.set(slot, old.to.get(s));
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
      this.props.set(slot, old.props.get(s));
      const confidence = old.joinConfidence.get(s);
      if (confidence !== undefined) this.joinConfidence.set(slot, confidence);
      slot++;
    }
    this.edgeSlots = slot;
    // Each node's lists, walked in their order and written again with the new slots.
    for (let n = 0; n < this.nodeSlots; n++) {
      if (this.ids[n] === undefined) continue;
      let last = 0;
      for (let e = this.outHead.get(n); e; e = old.nextOut.get(e - 1)) {
        const moved = renumber[e - 1];
        this.prevOut.set(moved - 1, last);
        if (last) this.nextOut.set(last - 1, moved);
        else this.outHead.set(n, moved);
        last = moved;
      }
      this.outTail.set(n, last);
      last = 0;
      for (let e = this.inHead.get(n); e; e = old.nextIn.get(e - 1)) {
        const moved = renumber[e - 1];
        this.prevIn.set(moved - 1, last);
        if (last) this.nextIn.set(last - 1, moved);
        else this.inHead.set(n, moved);
        last = moved;
      }
      this.inTail.set(n, last);
    }
    this.index.rebuild(liveSlots(slot), slot);
  }

  /** Renumbers the nodes when more slots are dead than alive (and many are), keeping their order. */
  protected compactNodesIfSparse(): void {
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
    // A node's lists move with it unchanged: only its slot, and the edges' ends, are new.
    const columns = this.nodeColumns();
    const moved = columns.map(() => new PagedI32());
    for (const column of moved) column.reserve(ids.length);
    for (let s = 0; s < this.nodeSlots; s++) {
      if (renumber[s] < 0) continue;
      columns.forEach((column, c) => moved[c].set(renumber[s], column.get(s)));
    }
    [this.outHead, this.outTail, this.inHead, this.inTail, this.outDeg, this.inDeg] = moved;
    this.ids = ids;
    this.nodeIds.rebuild(ids);
    this.attrs = attrs;
    this.nodeSlots = ids.length;
    const live: number[] = [];
    for (let slot = 0; slot < this.edgeSlots; slot++) {
      const f = this.from.get(slot);
      if (f < 0) continue;
      this.from.set(slot, renumber[f]);
      this.to.set(slot, renumber[this.to.get(slot)]);
      live.push(slot);
    }
    this.index.rebuild(live, live.length);
  }
}

function* liveSlots(count: number): Generator<number> {
  for (let slot = 0; slot < count; slot++) yield slot;
}

export function missingNode(method: string, id: string): NotFoundGraphError {
  return new NotFoundGraphError(`Graph.${method}: could not find the "${id}" node in the graph.`);
}

export function missingEdge(method: string, key: string): NotFoundGraphError {
  return new NotFoundGraphError(`Graph.${method}: could not find the "${key}" edge in the graph.`);
}
