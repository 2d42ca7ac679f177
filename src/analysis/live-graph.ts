// The compiled graph that lives across passes (one per tenant). A full compile (compiled-graph.ts) happens
// once, then each pass patches it with what the graph writer says changed (GraphChanges): a reprice
// rewrites the hop's weights in place, an added node or edge takes the next slot (a node's out- and
// in-edge lists grow into free room at the end of the adjacency arrays), a removal tombstones. It is
// compiled afresh only when the dead room passes a bound, or when the changes are too many to patch.
//
// Exactness: a node's out-edges keep the order graphology iterates them in (the order routes break ties
// in), and nodes keep graphology's order too (new ones are appended, as graphology appends them), so a
// search over the live form gives the same pairs, scores and routes as over a fresh compile
// (test/analysis/incremental.property.test.ts).
import {
  findEdge,
  type EdgeAttributes,
  type GraphChanges,
  type GraphView,
  type NodeAttributes,
  type TakenChanges,
  type TenantGraph,
} from '../graph/model.js';
import { EDGE_TYPES, type EdgeType } from '../graph/vocabulary.js';
import {
  BASIS_INDEX,
  CompileBuffers,
  compileGraph,
  hopUnits,
  LABEL_INDEX,
  priceEdge,
  roleOf,
  ROLE_DIRECT,
  ROLE_START,
  ROLE_TARGET,
  TYPE_INDEX,
  type CompiledCore,
  type CompiledGraph,
} from './compiled-graph.js';
import {
  cowArray,
  layeredArray,
  materialize,
  packLayer,
  type Layer,
  type NumArray,
  type Writes,
} from './cow-arrays.js';
import { IdSlots } from './id-slots.js';
import { workloadPricer } from './workload-price.js';

/** What a walk on the caller's thread reads of a live graph or fork (LiveGraph.adjacency). */
export type Adjacency = Pick<
  CompiledCore,
  'edgeFrom' | 'edgeTo' | 'fStart' | 'fEnd' | 'fTo' | 'fEdges' | 'rStart' | 'rEnd' | 'rFrom'
> & { roles: Uint8Array };

/** What one sync did, for the pass that follows (pass-scope.ts). */
export interface SyncResult {
  /** Compiled afresh: every earlier index may mean something else now. */
  rebuilt: boolean;
  /** The starts, targets or direct-access targets changed: the pass searches everything. */
  rolesChanged: boolean;
  /** Edges whose cost went down: added, or repriced cheaper. */
  cheaper: number[];
  /** Edges removed, repriced dearer, or repriced to the same cost with another probability or basis. */
  dearer: number[];
  /** Changed records (nodes + edges) the writer listed. */
  changes: number;
  /**
   * Set when `rolesChanged` and every role change was a node added as, or becoming, a start (nothing lost
   * a role, no target came or went): those nodes. A search scoped to what they reach stays exact (the gate:
   * a pull request's new internet-facing load balancer, src/analysis/patched-search.ts).
   */
  startsAdded?: number[];
}

export interface SyncOptions {
  seedIamUsers: boolean;
  /** Called before a full compile overwrites the arrays (readers of the old ones copy what they need). */
  beforeRebuild?: () => void;
  /**
   * Called before hop prices or node names are rewritten in place, with the edges and nodes about to
   * change: readers holding routes through them copy those routes first.
   */
  beforePatch?: (edges: ReadonlySet<number>, nodes: ReadonlySet<number>) => void;
}

type Kind = 'i32' | 'f64' | 'u8';
const NODE_ARRAYS: [string, Kind][] = [
  ['labels', 'u8'],
  ['roles', 'u8'],
  ['fStart', 'i32'],
  ['fEnd', 'i32'],
  ['fCap', 'i32'],
  ['rStart', 'i32'],
  ['rEnd', 'i32'],
  ['rCap', 'i32'],
];
const EDGE_ARRAYS: [string, Kind][] = [
  ['edgeFrom', 'i32'],
  ['edgeTo', 'i32'],
  ['edgeType', 'u8'],
  ['edgeP', 'f64'],
  ['edgeBasis', 'u8'],
  ['fSlot', 'i32'],
  ['rSlot', 'i32'],
];
const F_ARRAYS: [string, Kind][] = [
  ['fEdges', 'i32'],
  ['fTo', 'i32'],
  ['fUnits', 'f64'],
];
const R_ARRAYS: [string, Kind][] = [
  ['rEdges', 'i32'],
  ['rFrom', 'i32'],
  ['rUnits', 'f64'],
];

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

/** Pricing reads these: a change to one of them can reprice hops into the workloads that depend on it. */
const PRICE_UP_IN = new Set(['DEPENDS_ON', 'BUILT_FROM']);
const PRICE_UP_OUT = new Set(['AFFECTS']);

export class LiveGraph implements CompiledGraph {
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
  private a: Record<string, Int32Array | Float64Array | Uint8Array> = {};
  constructor(private readonly pool = new CompileBuffers()) {}

  private slotOf: SlotMap = new IdSlots(this.nodeIds);
  /** The graphology attributes object of each slot's node: a node removed and added again has a new one. */
  private nodeAttrs: NodeAttributes[] = [];
  private built = false;
  private seedIamUsers = false;
  /** Used adjacency slots (live lists, their free room and dead room) and the dead part. */
  private fTail = 0;
  private rTail = 0;
  private deadRoom = 0;
  private deadNodes = 0;
  private deadEdges = 0;
  /** Full compiles so far (tests, status). */
  rebuilds = 0;

  /**
   * A fork's own writes, per array (null on a live graph): its arrays are copy-on-write views of its
   * parent's (cow-arrays.ts), and it is searched through a copy made where the search runs.
   */
  private writes: Map<string, Writes> | null = null;
  private parent: LiveGraph | null = null;
  /**
   * The live graph at the bottom of a chain of forks (null on the live graph itself: a self-reference would
   * make it unserializable), and its arrays as they were when forked.
   */
  private root: LiveGraph | null = null;
  private rootArrays: Record<string, NumArray> = {};
  private released = false;
  /** Forks not yet copied: the live arrays must not change under them (see fork). */
  private pins = 0;
  private unpinned: (() => void)[] = [];
  private waitingSyncs: (() => void)[] = [];
  /** A fork's own node ids and names by slot (layeredArray over its parent's lists). */
  private readonly ownIds = new Map<number, string>();
  private readonly ownNames = new Map<number, string>();

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

  /**
   * Whether the next sync would be a patch, not a full compile (a pass over it costs what changed, so the
   * analyzer need not wait for a quiet moment before it: TenantState.due).
   */
  patchable(
    graph: TenantGraph,
    changes: GraphChanges,
    seedIamUsers: boolean,
    /** At most this many changed records (the bound a sync patches under, by default). */
    limit = Math.max(4096, graph.size / 8),
  ): boolean {
    const pending = changes.peek();
    return (
      this.built &&
      pending !== null &&
      seedIamUsers === this.seedIamUsers &&
      !this.fragmented() &&
      pending.nodes.size + pending.edges.size <= Math.min(limit, Math.max(4096, graph.size / 8))
    );
  }

  /** Brings the compiled form up to date with `graph`, from what `changes` lists. */
  sync(graph: TenantGraph, changes: GraphChanges, options: SyncOptions): SyncResult {
    const taken = changes.take();
    const count = taken.nodes.size + taken.edges.size;
    if (
      !this.built ||
      taken.all ||
      options.seedIamUsers !== this.seedIamUsers ||
      this.fragmented() ||
      count > Math.max(4096, graph.size / 8)
    ) {
      options.beforeRebuild?.();
      this.rebuild(graph, options.seedIamUsers);
      return { rebuilt: true, rolesChanged: true, cheaper: [], dearer: [], changes: count };
    }
    try {
      return this.patch(tenantSource(graph), taken, options, count, true);
    } catch (error) {
      // Half-patched arrays are never searched: the next sync compiles afresh whatever happened.
      this.built = false;
      if (!(error instanceof OutOfStep)) throw error;
      options.beforeRebuild?.();
      this.rebuild(graph, options.seedIamUsers);
      return { rebuilt: true, rolesChanged: true, cheaper: [], dearer: [], changes: count };
    }
  }

  /**
   * A fork that can be patched without touching this graph (the gate lays a pull request's change over the
   * live estate this way). It costs nothing to make: its arrays are copy-on-write views of this graph's
   * and keep their own writes, so it is never searched directly; `forkDelta` hands what it holds to a
   * search (path-worker.ts), which makes the searchable copy where it runs. Until that copy is made (or the
   * fork is let go, `release`), the live graph at the bottom is pinned: `settled` waits for it before a
   * sync rewrites the live arrays in place.
   */
  fork(): LiveGraph {
    const f = new LiveGraph(new CompileBuffers());
    f.nodeCount = this.nodeCount;
    f.edgeCount = this.edgeCount;
    f.built = this.built;
    f.seedIamUsers = this.seedIamUsers;
    f.fTail = this.fTail;
    f.rTail = this.rTail;
    f.deadRoom = this.deadRoom;
    f.deadNodes = this.deadNodes;
    f.deadEdges = this.deadEdges;
    f.nodeIds = layeredArray(this.nodeIds, f.ownIds);
    f.names = layeredArray(this.names, f.ownNames);
    f.nodeAttrs = layeredArray(this.nodeAttrs);
    f.slotOf = new LayeredSlots(this.slotOf);
    f.parent = this;
    const root = this.root ?? this;
    f.root = root;
    f.rootArrays = this.writes ? this.rootArrays : { ...this.a };
    f.writes = new Map();
    for (const [name] of [...NODE_ARRAYS, ...EDGE_ARRAYS, ...F_ARRAYS, ...R_ARRAYS]) {
      const w: Writes = new Map();
      f.writes.set(name, w);
      f.a[name] = cowArray(this.a[name], w);
    }
    f.starts = this.starts;
    f.targets = this.targets;
    f.directAccess = this.directAccess;
    root.pins++;
    return f;
  }

  /** Lets go of a fork's pin on the live graph (idempotent): its searchable copy is made, or not needed. */
  release(): void {
    if (!this.writes || this.released) return;
    this.released = true;
    const root = this.root!;
    if (--root.pins === 0) {
      // The syncs that waited run here, synchronously, before any fork can pin the arrays again.
      const syncs = root.waitingSyncs;
      root.waitingSyncs = [];
      for (const run of syncs) run();
      const waiting = root.unpinned;
      root.unpinned = [];
      for (const resolve of waiting) resolve();
    }
  }

  /** Whether forks not yet copied read this graph's arrays (a sync must wait: `whenUnpinned`). */
  get pinned(): boolean {
    return this.pins > 0;
  }

  /**
   * Runs `work` (a sync, which rewrites the arrays in place) as soon as no fork reads them: at once, or
   * inside the release that lets go of the last pin. Forks made meanwhile wait for it (`turn`), so a stream
   * of gate calls cannot hold a sync off for ever.
   */
  whenUnpinned<T>(work: () => T): Promise<T> {
    if (this.pins === 0) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return new Promise<T>((resolve, reject) =>
      this.waitingSyncs.push(() => {
        try {
          resolve(work());
        } catch (error) {
          reject(error as Error);
        }
      }),
    );
  }

  /** Resolves once no sync waits for this graph's forks to be copied (a gate call forks after it). */
  async turn(): Promise<void> {
    while (this.waitingSyncs.length > 0) await new Promise<void>((resolve) => this.unpinned.push(resolve));
  }

  /** What a search needs to make a fork's searchable copy: the live arrays and every fork's writes on them. */
  forkDelta(): ForkDelta {
    if (!this.writes) throw new Error('analysis/live-graph: forkDelta of a graph that is not a fork');
    const layers: Layer[] = [packLayer(this.writes)];
    for (let f = this.parent; f?.writes; f = f.parent) layers.unshift(packLayer(f.writes));
    return {
      base: this.rootArrays,
      layers,
      nodeCount: this.nodeCount,
      edgeCount: this.edgeCount,
      fTail: this.fTail,
      rTail: this.rTail,
      starts: this.starts,
      targets: this.targets,
      directAccess: this.directAccess,
    };
  }

  /**
   * A fork as a compiled graph of its own, made here and now (on this thread): its arrays copied
   * (materialize), its node ids, names and index as plain lists, and its pin let go. For readers that keep
   * the graph while the live one moves on (the analyses' graph per version, analysis-service.ts).
   */
  detachedCopy(): LiveGraph {
    if (!this.writes || !this.parent || this.parent.writes)
      throw new Error('analysis/live-graph: detachedCopy of a graph that is not a fork of a live graph');
    const d = this.forkDelta();
    try {
      // A graph of its own that is never synced: only what a search and its readers use is copied.
      const copy = new LiveGraph(new CompileBuffers());
      copy.a = materialize(d.base, d.layers, coreLengths(d));
      copy.nodeCount = this.nodeCount;
      copy.edgeCount = this.edgeCount;
      copy.fTail = this.fTail;
      copy.rTail = this.rTail;
      copy.deadNodes = this.deadNodes;
      copy.deadEdges = this.deadEdges;
      copy.seedIamUsers = this.seedIamUsers;
      const plain = (base: string[], own: Map<number, string>) => {
        const out = base.slice(0, this.nodeCount);
        for (const [slot, value] of own) out[slot] = value;
        return out;
      };
      copy.nodeIds = plain(this.parent.nodeIds, this.ownIds);
      copy.names = plain(this.parent.names, this.ownNames);
      const layered = this.slotOf;
      copy.slotOf = IdSlots.of(copy.nodeIds, (id) => layered.get(id));
      copy.starts = this.starts;
      copy.targets = this.targets;
      copy.directAccess = this.directAccess;
      copy.publish();
      return copy;
    } finally {
      this.release();
    }
  }

  /** The fork as a searchable compiled graph, over `arrays` (its copy, materialize(forkDelta())). */
  searchable(arrays: Readonly<Record<string, NumArray>>): CompiledGraph {
    const slotOf = this.slotOf;
    const { nodeCount, edgeCount, fTail, rTail, starts, targets, directAccess } = this;
    return {
      ...coreViews(arrays, { nodeCount, edgeCount, fTail, rTail, starts, targets, directAccess }),
      nodeIds: this.nodeIds,
      names: this.names,
      indexOf: (id: string) => slotOf.get(id) ?? -1,
    };
  }

  /**
   * Patches this graph (a fork) with `changes` as `source` presents them. `identity`: as for a tenant graph,
   * a node under a new attributes object was removed and added again (false for an overlay, whose re-stated
   * nodes are new objects in their old place). Null when the changes cannot be patched (too many, or out of
   * step with `source`): compile afresh then.
   */
  patchWith(source: PatchSource, changes: TakenChanges, identity = false): SyncResult | null {
    const count = changes.nodes.size + changes.edges.size;
    if (!this.built || count > Math.max(4096, source.size / 8)) return null;
    try {
      return this.patch(source, changes, {}, count, identity);
    } catch (error) {
      this.built = false;
      if (error instanceof OutOfStep) return null;
      throw error;
    }
  }

  private fragmented(): boolean {
    const size = this.edgeCount - this.deadEdges;
    return this.deadRoom + this.deadEdges > size / 2 + 4096 || this.deadNodes > this.nodeCount / 4 + 1024;
  }

  private rebuild(graph: TenantGraph, seedIamUsers: boolean): void {
    const c = compileGraph(graph, { seedIamUsers, buffers: this.pool });
    const n = c.nodeCount;
    const m = c.edgeCount;
    this.rebuilds++;
    this.built = true;
    this.seedIamUsers = seedIamUsers;
    this.nodeCount = n;
    this.edgeCount = m;
    this.fTail = m;
    this.rTail = m;
    this.deadRoom = 0;
    this.deadNodes = 0;
    this.deadEdges = 0;
    this.nodeIds = c.nodeIds;
    this.slotOf = new IdSlots(this.nodeIds);
    this.names = c.names;
    this.nodeAttrs = new Array<NodeAttributes>(n);
    // compileGraph's own arrays (labels, edges, adjacency) are adopted as they are; the live-only ones are
    // filled from them. fStart and friends are views of compileGraph's offsets: copied before they change.
    for (const [name, kind] of [...NODE_ARRAYS, ...EDGE_ARRAYS, ...F_ARRAYS, ...R_ARRAYS])
      this.a[name] = this.pool.whole(name, kind);
    const fStart = this.grow('fStart', 'i32', n, 0) as Int32Array;
    const fEnd = this.grow('fEnd', 'i32', n, 0) as Int32Array;
    const fCap = this.grow('fCap', 'i32', n, 0) as Int32Array;
    const rStart = this.grow('rStart', 'i32', n, 0) as Int32Array;
    const rEnd = this.grow('rEnd', 'i32', n, 0) as Int32Array;
    const rCap = this.grow('rCap', 'i32', n, 0) as Int32Array;
    const roles = this.grow('roles', 'u8', n, 0) as Uint8Array;
    fStart.set(c.fStart);
    fEnd.set(c.fEnd);
    rStart.set(c.rStart);
    rEnd.set(c.rEnd);
    for (let u = 0; u < n; u++) {
      fCap[u] = fEnd[u] - fStart[u];
      rCap[u] = rEnd[u] - rStart[u];
    }
    roles.fill(0, 0, n);
    let i = 0;
    graph.forEachNode((id, attrs) => {
      this.slotOf.set(id, i);
      this.nodeAttrs[i] = attrs;
      roles[i] = roleOf(attrs, seedIamUsers);
      i++;
    });
    const fSlot = this.grow('fSlot', 'i32', m, 0) as Int32Array;
    const rSlot = this.grow('rSlot', 'i32', m, 0) as Int32Array;
    const rEdges = c.rEdges;
    for (let k = 0; k < m; k++) fSlot[k] = k;
    for (let r = 0; r < m; r++) rSlot[rEdges[r]] = r;
    this.starts = c.starts;
    this.targets = c.targets;
    this.directAccess = c.directAccess;
    this.publish();
  }

  /** The whole-buffer view of `name` with room for `need` elements, keeping the first `keep`. */
  private grow(name: string, kind: Kind, need: number, keep: number): Int32Array | Float64Array | Uint8Array {
    const current = this.a[name];
    if (current && current.length >= need) return current;
    this.pool.grown(name, kind, need, keep);
    const view = this.pool.whole(name, kind);
    this.a[name] = view;
    return view;
  }

  /** Exact-length views on the public fields, as a fresh compile hands them over. */
  private publish(): void {
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
   * Applies `taken` as read from `graph`. `identity`: a node whose graphology attributes object is not the
   * one compiled was removed and added again (tenant graphs; an overlay presents re-stated nodes under new
   * objects at their old place).
   */
  private patch(
    graph: PatchSource,
    taken: TakenChanges,
    options: Pick<SyncOptions, 'beforePatch'>,
    count: number,
    identity: boolean,
  ): SyncResult {
    const result: SyncResult = {
      rebuilt: false,
      rolesChanged: false,
      cheaper: [],
      dearer: [],
      changes: count,
    };
    /** Nodes whose in-hops, or whose dependants' in-hops, may be priced differently now. */
    const priceRoots = new Set<string>();
    /** Edges to price (existing ones and new ones). */
    const reprice = new Set<number>();
    const added = new Set<number>();
    const renamed = new Map<number, string>();
    const startsAdded: number[] = [];
    let otherRoles = false;

    for (const id of taken.nodes) {
      let slot = this.slotOf.get(id);
      const attrs = graph.hasNode(id) ? graph.getNodeAttributes(id) : undefined;
      const gone =
        attrs === undefined || taken.removedNodes.has(id) || (identity && attrs !== this.nodeAttrs[slot!]);
      if (slot !== undefined && gone) {
        if (this.roleAt(slot) !== 0) otherRoles = true;
        this.tombstone(slot, priceRoots, result);
        slot = undefined;
      }
      if (attrs === undefined) continue;
      if (slot === undefined) {
        slot = this.appendNode(id, attrs);
        const role = this.roleAt(slot);
        if (role !== 0) {
          result.rolesChanged = true;
          if (role === ROLE_START) startsAdded.push(slot);
          else otherRoles = true;
        }
      } else {
        const role = roleOf(attrs, this.seedIamUsers);
        const was = this.roleAt(slot);
        if (role !== was) {
          (this.a.roles as Uint8Array)[slot] = role;
          result.rolesChanged = true;
          if (role === (was | ROLE_START)) startsAdded.push(slot);
          else otherRoles = true;
        }
        if (attrs.name !== this.names[slot]) renamed.set(slot, attrs.name);
      }
      priceRoots.add(id);
    }

    for (const key of taken.edges) {
      const [type, from, to] = key.split('|');
      const typeIndex = TYPE_INDEX.get(type) ?? 0;
      const u = this.slotOf.get(from);
      const v = this.slotOf.get(to);
      let k = u !== undefined && v !== undefined ? this.findSlot(u, v, typeIndex) : -1;
      const present =
        graph.hasNode(from) &&
        graph.hasNode(to) &&
        graph.edgeAttributes(type as EdgeType, from, to) !== undefined;
      // An edge of a node the writer never listed: the changes are not the whole story, compile afresh.
      if (present && (u === undefined || v === undefined)) throw new OutOfStep(key);
      if (k >= 0 && (!present || taken.removedEdges.has(key))) {
        this.removeEdge(k);
        result.dearer.push(k);
        k = -1;
      }
      if (present) {
        if (k < 0) {
          k = this.appendEdge(u!, v!, typeIndex);
          added.add(k);
        }
        reprice.add(k);
      }
      priceRoots.add(from);
      priceRoots.add(to);
    }

    // Hop prices read the CVEs of the images a workload runs (workload-price.ts): follow the pricing
    // dependencies from every changed node to the workloads whose in-hops they price.
    const dependants = new Set<string>();
    const queue = [...priceRoots].filter((id) => graph.hasNode(id));
    for (const id of queue) dependants.add(id);
    for (let q = 0; q < queue.length; q++) {
      const id = queue[q];
      const reach = (next: string) => {
        if (!dependants.has(next)) {
          dependants.add(next);
          queue.push(next);
        }
      };
      graph.forEachInEdge(id, (_key, attrs, source) => {
        if (PRICE_UP_IN.has(attrs.type)) reach(source);
      });
      graph.forEachOutEdge(id, (_key, attrs, _source, target) => {
        if (PRICE_UP_OUT.has(attrs.type)) reach(target);
      });
    }
    const rStart = this.a.rStart as Int32Array;
    const rEnd = this.a.rEnd as Int32Array;
    const rEdges = this.a.rEdges as Int32Array;
    for (const id of dependants) {
      const v = this.slotOf.get(id);
      if (v === undefined) throw new OutOfStep(id);
      for (let r = rStart[v], end = rEnd[v]; r < end; r++) reprice.add(rEdges[r]);
    }

    // Price first, write after: readers holding routes through a hop that changes copy them in between.
    const workloadPrice = workloadPricer(graph);
    const edgeFrom = this.a.edgeFrom as Int32Array;
    const edgeTo = this.a.edgeTo as Int32Array;
    const edgeType = this.a.edgeType as Uint8Array;
    const edgeP = this.a.edgeP as Float64Array;
    const edgeBasis = this.a.edgeBasis as Uint8Array;
    const prices: [number, number, number][] = [];
    const inPlace = new Set<number>();
    for (const k of reprice) {
      const fromId = this.nodeIds[edgeFrom[k]];
      const toId = this.nodeIds[edgeTo[k]];
      const attrs = graph.edgeAttributes(EDGE_TYPES[edgeType[k]], fromId, toId);
      if (attrs === undefined) throw new OutOfStep(`${EDGE_TYPES[edgeType[k]]}|${fromId}|${toId}`);
      const price = priceEdge(attrs, toId, graph.getNodeAttributes(toId), workloadPrice);
      const basis = BASIS_INDEX.get(price.basis) ?? 0;
      if (added.has(k)) prices.push([k, price.p, basis]);
      else if (price.p !== edgeP[k] || basis !== edgeBasis[k]) {
        prices.push([k, price.p, basis]);
        inPlace.add(k);
      }
    }
    if (inPlace.size || renamed.size) options.beforePatch?.(inPlace, new Set(renamed.keys()));
    const fUnits = this.a.fUnits as Float64Array;
    const rUnits = this.a.rUnits as Float64Array;
    const fSlot = this.a.fSlot as Int32Array;
    const rSlot = this.a.rSlot as Int32Array;
    for (const [k, p, basis] of prices) {
      const units = hopUnits(p);
      const before = fUnits[fSlot[k]];
      edgeP[k] = p;
      edgeBasis[k] = basis;
      fUnits[fSlot[k]] = units;
      rUnits[rSlot[k]] = units;
      if (added.has(k)) {
        if (units !== Infinity) result.cheaper.push(k);
      } else if (units < before) result.cheaper.push(k);
      else result.dearer.push(k);
    }
    // Forks read the live names in place (layeredArray): a live graph renames in a copy of its list.
    if (!this.writes && renamed.size) this.names = this.names.slice();
    for (const [slot, name] of renamed) this.names[slot] = name;

    if (result.rolesChanged) this.collectRoles();
    if (result.rolesChanged && !otherRoles) result.startsAdded = startsAdded;
    this.publish();
    return result;
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

  private roleAt(slot: number): number {
    return (this.a.roles as Uint8Array)[slot];
  }

  private collectRoles(): void {
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
  private findSlot(u: number, v: number, typeIndex: number): number {
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

  private appendNode(id: string, attrs: NodeAttributes): number {
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

  /** Removes a node's edges from the lists of its neighbours (who may be priced differently now). */
  private tombstone(slot: number, priceRoots: Set<string>, result: SyncResult): void {
    const a = this.a;
    const fEdges = a.fEdges as Int32Array;
    const rEdges = a.rEdges as Int32Array;
    const edgeTo = a.edgeTo as Int32Array;
    const edgeFrom = a.edgeFrom as Int32Array;
    const fStart = a.fStart as Int32Array;
    const fEnd = a.fEnd as Int32Array;
    const rStart = a.rStart as Int32Array;
    const rEnd = a.rEnd as Int32Array;
    const out = Array.from(fEdges.subarray(fStart[slot], fEnd[slot]));
    const into = Array.from(rEdges.subarray(rStart[slot], rEnd[slot]));
    for (const k of out) {
      priceRoots.add(this.nodeIds[edgeTo[k]]);
      this.removeEdge(k);
      result.dearer.push(k);
    }
    for (const k of into) {
      priceRoots.add(this.nodeIds[edgeFrom[k]]);
      this.removeEdge(k);
      result.dearer.push(k);
    }
    if (this.roleAt(slot) !== 0) result.rolesChanged = true;
    (a.roles as Uint8Array)[slot] = 0;
    this.deadRoom += (a.fCap as Int32Array)[slot] + (a.rCap as Int32Array)[slot];
    (a.fCap as Int32Array)[slot] = 0;
    (a.rCap as Int32Array)[slot] = 0;
    this.slotOf.delete(this.nodeIds[slot]);
    this.deadNodes++;
  }

  /** Takes an edge out of both adjacency lists; its per-edge data stays for readers of old routes. */
  private removeEdge(k: number): void {
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
  private appendEdge(u: number, v: number, typeIndex: number): number {
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
  private room(d: 'f' | 'r', u: number): number {
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

/** The compiled form and the writer's changes disagree (a write that bypassed GraphChanges). */
class OutOfStep extends Error {
  constructor(what: string) {
    super(`analysis/live-graph: out of step with the graph at ${what}`);
  }
}

/** A fork as a search takes it: the live arrays (shared, read only) and the forks' writes on them. */
export interface ForkDelta {
  base: Record<string, NumArray>;
  /** From the fork nearest the live graph to this one. */
  layers: Layer[];
  nodeCount: number;
  edgeCount: number;
  fTail: number;
  rTail: number;
  starts: Int32Array;
  targets: Int32Array;
  directAccess: Int32Array;
}

/** The arrays of a compiled core and their lengths in a fork: what its copy holds (coreViews reads them). */
export function coreLengths(
  d: Pick<ForkDelta, 'nodeCount' | 'edgeCount' | 'fTail' | 'rTail'>,
): Record<string, number> {
  const lengths: Record<string, number> = {};
  for (const name of ['labels', 'fStart', 'fEnd', 'rStart', 'rEnd']) lengths[name] = d.nodeCount;
  for (const name of ['edgeFrom', 'edgeTo', 'edgeType', 'edgeP', 'edgeBasis']) lengths[name] = d.edgeCount;
  for (const name of ['fEdges', 'fTo', 'fUnits']) lengths[name] = d.fTail;
  for (const name of ['rEdges', 'rFrom', 'rUnits']) lengths[name] = d.rTail;
  return lengths;
}

/** Exact-length views of a fork's copy, as a fresh compile hands them over (publish does the same). */
export function coreViews(
  arrays: Readonly<Record<string, NumArray>>,
  d: Pick<ForkDelta, 'nodeCount' | 'edgeCount' | 'fTail' | 'rTail' | 'starts' | 'targets' | 'directAccess'>,
): CompiledCore {
  const n = d.nodeCount;
  const m = d.edgeCount;
  const i32 = (name: string, length: number) => (arrays[name] as Int32Array).subarray(0, length);
  const f64 = (name: string, length: number) => (arrays[name] as Float64Array).subarray(0, length);
  const u8 = (name: string, length: number) => (arrays[name] as Uint8Array).subarray(0, length);
  return {
    nodeCount: n,
    edgeCount: m,
    labels: u8('labels', n),
    fStart: i32('fStart', n),
    fEnd: i32('fEnd', n),
    rStart: i32('rStart', n),
    rEnd: i32('rEnd', n),
    edgeFrom: i32('edgeFrom', m),
    edgeTo: i32('edgeTo', m),
    edgeType: u8('edgeType', m),
    edgeP: f64('edgeP', m),
    edgeBasis: u8('edgeBasis', m),
    fEdges: i32('fEdges', d.fTail),
    fTo: i32('fTo', d.fTail),
    fUnits: f64('fUnits', d.fTail),
    rEdges: i32('rEdges', d.rTail),
    rFrom: i32('rFrom', d.rTail),
    rUnits: f64('rUnits', d.rTail),
    starts: d.starts,
    targets: d.targets,
    directAccess: d.directAccess,
  };
}

/** Node slots by id: a Map on a live graph, a layer over the parent's on a fork. */
interface SlotMap {
  get(id: string): number | undefined;
  set(id: string, slot: number): unknown;
  delete(id: string): unknown;
}

class LayeredSlots implements SlotMap {
  private readonly own = new Map<string, number>();
  private readonly gone = new Set<string>();
  constructor(private readonly base: SlotMap) {}
  get(id: string): number | undefined {
    const slot = this.own.get(id);
    if (slot !== undefined) return slot;
    return this.gone.has(id) ? undefined : this.base.get(id);
  }
  set(id: string, slot: number): void {
    this.own.set(id, slot);
    this.gone.delete(id);
  }
  delete(id: string): void {
    this.own.delete(id);
    this.gone.add(id);
  }
}
