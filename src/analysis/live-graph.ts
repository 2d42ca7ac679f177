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
import type { GraphChanges, NodeAttributes, TakenChanges, TenantGraph } from '../graph/model.js';
import { EDGE_TYPES, type EdgeType } from '../graph/vocabulary.js';
import {
  BASIS_INDEX,
  CompileBuffers,
  compileGraph,
  compilePlan,
  hopUnits,
  priceEdge,
  roleOf,
  ROLE_START,
  TYPE_INDEX,
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
import { coreLengths, coreViews, type ForkDelta } from './fork-delta.js';
import { IdSlots, LayeredSlots } from './id-slots.js';
import { EDGE_ARRAYS, F_ARRAYS, LiveArrays, NODE_ARRAYS, R_ARRAYS } from './live-arrays.js';
import { tenantSource, type PatchSource } from './patch-source.js';
import { workloadPricer } from './workload-price.js';

// The live graph's parts, where its importers have always found them.
export { coreLengths, coreViews, type ForkDelta } from './fork-delta.js';
export { type Adjacency } from './live-arrays.js';
export { tenantSource, type PatchSource } from './patch-source.js';

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

/** Pricing reads these: a change to one of them can reprice hops into the workloads that depend on it. */
const PRICE_UP_IN = new Set(['DEPENDS_ON', 'BUILT_FROM']);
const PRICE_UP_OUT = new Set(['AFFECTS']);

export class LiveGraph extends LiveArrays {
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

  private rebuild(graph: TenantGraph, seedIamUsers: boolean): void {
    // The compile's arrays and the live graph's own in one buffer where any needs more room (reserve).
    const plan = new Map(compilePlan(graph.order, graph.size).map((entry) => [entry[0], entry]));
    for (const [name, kind] of NODE_ARRAYS) if (!plan.has(name)) plan.set(name, [name, kind, graph.order]);
    for (const [name, kind] of [...EDGE_ARRAYS, ...F_ARRAYS, ...R_ARRAYS])
      if (!plan.has(name)) plan.set(name, [name, kind, graph.size]);
    this.pool.reserve([...plan.values()]);
    const nodeAttrs = new Array<NodeAttributes>(graph.order);
    const roles = this.pool.view('roles', 'u8', graph.order);
    const c = compileGraph(graph, {
      seedIamUsers,
      buffers: this.pool,
      nodes: { attrs: nodeAttrs, roles },
    });
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
    // A compile's ids are the graph's: distinct. Where its indices are the store's own slots, the store's
    // table of them is copied rather than made again (100,000 ids hashed and placed: 25-60 ms).
    const table = graph.slots?.().idTableOver?.(this.nodeIds);
    this.slotOf = table ? IdSlots.adopting(table) : IdSlots.ofDistinct(this.nodeIds);
    this.names = c.names;
    this.nodeAttrs = nodeAttrs;
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
    fStart.set(c.fStart);
    fEnd.set(c.fEnd);
    rStart.set(c.rStart);
    rEnd.set(c.rEnd);
    for (let u = 0; u < n; u++) {
      fCap[u] = fEnd[u] - fStart[u];
      rCap[u] = rEnd[u] - rStart[u];
    }
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
}

/** The compiled form and the writer's changes disagree (a write that bypassed GraphChanges). */
class OutOfStep extends Error {
  constructor(what: string) {
    super(`analysis/live-graph: out of step with the graph at ${what}`);
  }
}
