// The arrays of a live compiled graph (live-graph.ts) and the operations on them that keep its adjacency
// exact: a node or edge appended at the next slot, an edge taken out of both lists (out-lists keep their
// order, which breaks ties between routes), a list moved to the free room at the end when it is full, the
// roles collected into the start and target lists. What to change (the writer's changes, a fork's pins)
// is decided in live-graph.ts; this file owns how the arrays change.
import type { NodeAttributes } from '../graph/model.js';
import {
  CompileBuffers,
  LABEL_INDEX,
  roleOf,
  ROLE_DIRECT,
  ROLE_START,
  ROLE_TARGET,
  type CompiledCore,
  type CompiledGraph,
} from './compiled-graph.js';
import type { Writes } from './cow-arrays.js';
import { IdSlots, type SlotMap } from './id-slots.js';

/** What a walk on the caller's thread reads of a live graph or fork (LiveGraph.adjacency). */
export type Adjacency = Pick<
  CompiledCore,
  'edgeFrom' | 'edgeTo' | 'fStart' | 'fEnd' | 'fTo' | 'fEdges' | 'rStart' | 'rEnd' | 'rFrom'
> & { roles: Uint8Array };

export type Kind = 'i32' | 'f64' | 'u8';
export const NODE_ARRAYS: [string, Kind][] = [
  ['labels', 'u8'],
  ['roles', 'u8'],
  ['fStart', 'i32'],
  ['fEnd', 'i32'],
  ['fCap', 'i32'],
  ['rStart', 'i32'],
  ['rEnd', 'i32'],
  ['rCap', 'i32'],
];
export const EDGE_ARRAYS: [string, Kind][] = [
  ['edgeFrom', 'i32'],
  ['edgeTo', 'i32'],
  ['edgeType', 'u8'],
  ['edgeP', 'f64'],
  ['edgeBasis', 'u8'],
  ['fSlot', 'i32'],
  ['rSlot', 'i32'],
];
export const F_ARRAYS: [string, Kind][] = [
  ['fEdges', 'i32'],
  ['fTo', 'i32'],
  ['fUnits', 'f64'],
];
export const R_ARRAYS: [string, Kind][] = [
  ['rEdges', 'i32'],
  ['rFrom', 'i32'],
  ['rUnits', 'f64'],
];

/** A live graph's arrays and the operations on them (the class LiveGraph extends). */
export abstract class LiveArrays implements CompiledGraph {
  nodeCount = 0;
  edgeCount = 0;
  labels: Uint8Array = new Uint8Array(0);
  edgeFrom: Int32Array = new Int32Array(0);
  edgeTo: Int32Array = new Int32Array(0);
  edgeType: Uint8Array = new Uint8Array(0);
  edgeP: Float64Array = new Float64Array(0);
  edgeBasis: Uint8Array = new Uint8Array(0);
  fStart: Int32Array = new Int32Array(0);
  fEnd: Int32Array = new Int32Array(0);
  fEdges: Int32Array = new Int32Array(0);
  fTo: Int32Array = new Int32Array(0);
  fUnits: Float64Array = new Float64Array(0);
  rStart: Int32Array = new Int32Array(0);
  rEnd: Int32Array = new Int32Array(0);
  rEdges: Int32Array = new Int32Array(0);
  rFrom: Int32Array = new Int32Array(0);
  rUnits: Float64Array = new Float64Array(0);
  starts: Int32Array = new Int32Array(0);
  targets: Int32Array = new Int32Array(0);
  directAccess: Int32Array = new Int32Array(0);
  nodeIds: string[] = [];
  names: string[] = [];

  /** Whole-buffer views (capacity, not count) that the patches write through. */
  protected a: Record<string, Int32Array | Float64Array | Uint8Array> = {};
  constructor(protected readonly pool = new CompileBuffers()) {}

  protected slotOf: SlotMap = new IdSlots(this.nodeIds);
  /** The graphology attributes object of each slot's node: a node removed and added again has a new one. */
  protected nodeAttrs: NodeAttributes[] = [];
  protected built = false;
  protected seedIamUsers = false;
  /** Used adjacency slots (live lists, their free room and dead room) and the dead part. */
  protected fTail = 0;
  protected rTail = 0;
  protected deadRoom = 0;
  protected deadNodes = 0;
  protected deadEdges = 0;
  /** Full compiles so far (tests, status). */
  rebuilds = 0;

  /**
   * A fork's own writes, per array (null on a live graph): its arrays are copy-on-write views of its
   * parent's (cow-arrays.ts), and it is searched through a copy made where the search runs.
   */
  protected writes: Map<string, Writes> | null = null;

  /** Whether IAM users with exposed credentials were compiled as starts (SEED_IAM_USERS). */
  get seededIamUsers(): boolean {
    return this.seedIamUsers;
  }

  indexOf(id: string): number {
    return this.slotOf.get(id) ?? -1;
  }

  /** Live nodes and edges (the slots minus the tombstones). */
  get liveNodes(): number {
    return this.nodeCount - this.deadNodes;
  }

  get liveEdges(): number {
    return this.edgeCount - this.deadEdges;
  }

  protected fragmented(): boolean {
    const size = this.edgeCount - this.deadEdges;
    return this.deadRoom + this.deadEdges > size / 2 + 4096 || this.deadNodes > this.nodeCount / 4 + 1024;
  }

  /** The whole-buffer view of `name` with room for `need` elements, keeping the first `keep`. */
  protected grow(
    name: string,
    kind: Kind,
    need: number,
    keep: number,
  ): Int32Array | Float64Array | Uint8Array {
    const current = this.a[name];
    if (current && current.length >= need) return current;
    this.pool.grown(name, kind, need, keep);
    const view = this.pool.whole(name, kind);
    this.a[name] = view;
    return view;
  }

  /** Exact-length views on the public fields, as a fresh compile hands them over. */
  protected publish(): void {
    // A fork's arrays are views through its writes: it is searched through its copy (searchable).
    if (this.writes) return;
    const n = this.nodeCount;
    const m = this.edgeCount;
    const a = this.a;
    const i32 = (name: string, length: number) => (a[name] as Int32Array).subarray(0, length);
    const f64 = (name: string, length: number) => (a[name] as Float64Array).subarray(0, length);
    const u8 = (name: string, length: number) => (a[name] as Uint8Array).subarray(0, length);
    this.labels = u8('labels', n);
    this.fStart = i32('fStart', n);
    this.fEnd = i32('fEnd', n);
    this.rStart = i32('rStart', n);
    this.rEnd = i32('rEnd', n);
    this.edgeFrom = i32('edgeFrom', m);
    this.edgeTo = i32('edgeTo', m);
    this.edgeType = u8('edgeType', m);
    this.edgeP = f64('edgeP', m);
    this.edgeBasis = u8('edgeBasis', m);
    this.fEdges = i32('fEdges', this.fTail);
    this.fTo = i32('fTo', this.fTail);
    this.fUnits = f64('fUnits', this.fTail);
    this.rEdges = i32('rEdges', this.rTail);
    this.rFrom = i32('rFrom', this.rTail);
    this.rUnits = f64('rUnits', this.rTail);
  }

  /**
   * The forward adjacency and roles as this graph (or fork) reads them, for walks on the caller's thread
   * that touch few nodes (change-reach.ts); a fork's arrays are copy-on-write views, slow per read.
   */
  adjacency(): Adjacency {
    const a = this.a as Record<string, never>;
    return {
      edgeFrom: a.edgeFrom,
      edgeTo: a.edgeTo,
      fStart: a.fStart,
      fEnd: a.fEnd,
      fTo: a.fTo,
      fEdges: a.fEdges,
      rStart: a.rStart,
      rEnd: a.rEnd,
      rFrom: a.rFrom,
      roles: a.roles,
    };
  }

  protected roleAt(slot: number): number {
    return (this.a.roles as Uint8Array)[slot];
  }

  protected collectRoles(): void {
    if (this.writes) {
      this.collectForkRoles(this.writes.get('roles')!);
      return;
    }
    const roles = this.a.roles as Uint8Array;
    const starts: number[] = [];
    const targets: number[] = [];
    const direct: number[] = [];
    for (let u = 0; u < this.nodeCount; u++) {
      const role = roles[u];
      if (role === 0) continue;
      if (role & ROLE_START) starts.push(u);
      if (role & ROLE_TARGET) targets.push(u);
      if (role & ROLE_DIRECT) direct.push(u);
    }
    const shared = (values: number[]) => {
      const out = new Int32Array(new SharedArrayBuffer(Math.max(1, values.length) * 4), 0, values.length);
      out.set(values);
      return out;
    };
    this.starts = shared(starts);
    this.targets = shared(targets);
    this.directAccess = shared(direct);
  }

  /** collectRoles for a fork: the parent's lists, with the slots whose role this fork wrote redone. */
  private collectForkRoles(written: Writes): void {
    const redo = (list: Int32Array, bit: number) => {
      const out: number[] = [];
      for (const u of list) if (!written.has(u)) out.push(u);
      for (const [u, role] of written) if (u < this.nodeCount && role & bit) out.push(u);
      out.sort((x, y) => x - y);
      const shared = new Int32Array(new SharedArrayBuffer(Math.max(1, out.length) * 4), 0, out.length);
      shared.set(out);
      return shared;
    };
    this.starts = redo(this.starts, ROLE_START);
    this.targets = redo(this.targets, ROLE_TARGET);
    this.directAccess = redo(this.directAccess, ROLE_DIRECT);
  }

  /** The edge slot of (u → v, type) in u's out-list, or -1. */
  protected findSlot(u: number, v: number, typeIndex: number): number {
    const fStart = this.a.fStart as Int32Array;
    const fEnd = this.a.fEnd as Int32Array;
    const fEdges = this.a.fEdges as Int32Array;
    const fTo = this.a.fTo as Int32Array;
    const edgeType = this.a.edgeType as Uint8Array;
    for (let s = fStart[u], end = fEnd[u]; s < end; s++) {
      const k = fEdges[s];
      if (fTo[s] === v && edgeType[k] === typeIndex) return k;
    }
    return -1;
  }

  protected appendNode(id: string, attrs: NodeAttributes): number {
    const slot = this.nodeCount++;
    for (const [name, kind] of NODE_ARRAYS) this.grow(name, kind, slot + 1, slot);
    (this.a.labels as Uint8Array)[slot] = LABEL_INDEX.get(attrs.label) ?? 0;
    (this.a.roles as Uint8Array)[slot] = roleOf(attrs, this.seedIamUsers);
    for (const name of ['fStart', 'fEnd', 'fCap', 'rStart', 'rEnd', 'rCap']) this.a[name][slot] = 0;
    this.nodeIds[slot] = id;
    this.names[slot] = attrs.name;
    this.nodeAttrs[slot] = attrs;
    this.slotOf.set(id, slot);
    return slot;
  }

  /** Takes an edge out of both adjacency lists; its per-edge data stays for readers of old routes. */
  protected removeEdge(k: number): void {
    const a = this.a;
    const fSlot = a.fSlot as Int32Array;
    const rSlot = a.rSlot as Int32Array;
    const u = (a.edgeFrom as Int32Array)[k];
    const v = (a.edgeTo as Int32Array)[k];
    // Out-lists keep their order (it breaks ties between routes): shift the rest down by one.
    const fEdges = a.fEdges as Int32Array;
    const fTo = a.fTo as Int32Array;
    const fUnits = a.fUnits as Float64Array;
    const fEnd = a.fEnd as Int32Array;
    const last = --fEnd[u];
    for (let s = fSlot[k]; s < last; s++) {
      fEdges[s] = fEdges[s + 1];
      fTo[s] = fTo[s + 1];
      fUnits[s] = fUnits[s + 1];
      fSlot[fEdges[s]] = s;
    }
    // In-lists have no meaningful order: the last one fills the hole.
    const rEdges = a.rEdges as Int32Array;
    const rFrom = a.rFrom as Int32Array;
    const rUnits = a.rUnits as Float64Array;
    const rEnd = a.rEnd as Int32Array;
    const hole = rSlot[k];
    const tail = --rEnd[v];
    if (hole !== tail) {
      rEdges[hole] = rEdges[tail];
      rFrom[hole] = rFrom[tail];
      rUnits[hole] = rUnits[tail];
      rSlot[rEdges[hole]] = hole;
    }
    fSlot[k] = -1;
    rSlot[k] = -1;
    this.deadEdges++;
  }

  /** A new edge u → v at the end of u's out-list and of v's in-list, not traversable until priced. */
  protected appendEdge(u: number, v: number, typeIndex: number): number {
    const k = this.edgeCount++;
    for (const [name, kind] of EDGE_ARRAYS) this.grow(name, kind, k + 1, k);
    const a = this.a;
    (a.edgeFrom as Int32Array)[k] = u;
    (a.edgeTo as Int32Array)[k] = v;
    (a.edgeType as Uint8Array)[k] = typeIndex;
    (a.edgeP as Float64Array)[k] = 0;
    (a.edgeBasis as Uint8Array)[k] = 0;
    const s = this.room('f', u);
    (a.fEdges as Int32Array)[s] = k;
    (a.fTo as Int32Array)[s] = v;
    (a.fUnits as Float64Array)[s] = Infinity;
    (a.fSlot as Int32Array)[k] = s;
    const r = this.room('r', v);
    (a.rEdges as Int32Array)[r] = k;
    (a.rFrom as Int32Array)[r] = u;
    (a.rUnits as Float64Array)[r] = Infinity;
    (a.rSlot as Int32Array)[k] = r;
    return k;
  }

  /** A free slot at the end of node u's list on side `d`, moving the list to the free room when full. */
  protected room(d: 'f' | 'r', u: number): number {
    const a = this.a;
    const start = a[`${d}Start`] as Int32Array;
    const end = a[`${d}End`] as Int32Array;
    const cap = a[`${d}Cap`] as Int32Array;
    const length = end[u] - start[u];
    if (length < cap[u]) return end[u]++;
    const moved = Math.max(2, cap[u] * 2);
    const at = d === 'f' ? this.fTail : this.rTail;
    const arrays = d === 'f' ? F_ARRAYS : R_ARRAYS;
    for (const [name, kind] of arrays) this.grow(name, kind, at + moved, at);
    const ids = a[`${d}Edges`] as Int32Array;
    const other = a[d === 'f' ? 'fTo' : 'rFrom'] as Int32Array;
    const units = a[`${d}Units`] as Float64Array;
    const slot = a[`${d}Slot`] as Int32Array;
    ids.copyWithin(at, start[u], end[u]);
    other.copyWithin(at, start[u], end[u]);
    units.copyWithin(at, start[u], end[u]);
    for (let s = at; s < at + length; s++) slot[ids[s]] = s;
    this.deadRoom += cap[u];
    start[u] = at;
    end[u] = at + length + 1;
    cap[u] = moved;
    if (d === 'f') this.fTail = at + moved;
    else this.rTail = at + moved;
    return at + length;
  }
}
