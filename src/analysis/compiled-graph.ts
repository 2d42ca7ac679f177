// The compact form the analysis runs on: nodes and edges as dense indices, every hop priced once, forward
// and reverse adjacency as CSR typed arrays on SharedArrayBuffers, so worker threads read them in place.
import type { EdgeAttributes, GraphView, NodeAttributes } from '../graph/model.js';
import { EDGE_TYPES, NODE_LABELS, PROP, WEIGHT_BASES } from '../graph/vocabulary.js';
import { clampProbability, priceHop, withRuntimeEvidence, type HopPrice } from '../model/probability.js';
import { workloadPricer } from './workload-price.js';

/**
 * Search costs are integers in units of 2^-36 nat (exact in a double up to ~131,000 nats of path cost), so a
 * path's cost does not depend on the order its hops are added in: a search from the targets and one from
 * the starts see the same costs and the same ties.
 */
export const COST_UNITS_PER_NAT = 2 ** 36;

/** The numeric part of a compiled graph: everything the search needs, all on SharedArrayBuffers. */
export interface CompiledCore {
  nodeCount: number;
  edgeCount: number;
  /** Index into NODE_LABELS. */
  labels: Uint8Array;
  /**
   * Per edge, by edge index. A fresh compile numbers edges in forward CSR order (grouped by source node);
   * a live graph (live-graph.ts) keeps an edge's index for as long as the edge lives and lists a node's
   * edges through the adjacency below, so readers go through the adjacency, never through index order.
   */
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  /** Index into EDGE_TYPES. */
  edgeType: Uint8Array;
  /**
   * Hop probability from priceHop; 0 = not traversable. Its −ln p and search cost are derived from it
   * (hopCost, hopUnits), not kept per edge: the search reads the costs laid out by slot (fUnits, rUnits).
   */
  edgeP: Float64Array;
  /** Index into WEIGHT_BASES. */
  edgeBasis: Uint8Array;
  /**
   * Forward adjacency: the out-edges of u sit in slots fStart[u] .. fEnd[u] - 1, in the order the tenant
   * graph holds them (that order breaks ties between equally good routes, so it must not depend on how
   * the arrays were built). fEdges[k] is the edge in slot k; fTo is its edgeTo and fUnits its search cost
   * (hopUnits of its edgeP: round(−ln p × COST_UNITS_PER_NAT) + 1, the unit breaking exact ties toward fewer
   * hops; Infinity for p = 0), laid out by slot so a forward search reads sequentially. (A fresh compile has
   * fEdges[k] === k.)
   */
  fStart: Int32Array;
  fEnd: Int32Array;
  fEdges: Int32Array;
  fTo: Int32Array;
  fUnits: Float64Array;
  /** Reverse adjacency: the in-edges of v sit in slots rStart[v] .. rEnd[v] - 1 (any order). */
  rStart: Int32Array;
  rEnd: Int32Array;
  rEdges: Int32Array;
  /** edgeFrom and search cost of rEdges[k], laid out by reverse slot so a reverse search reads sequentially. */
  rFrom: Int32Array;
  rUnits: Float64Array;
  starts: Int32Array;
  targets: Int32Array;
  /** Targets with `public_access`: listed by the caller as direct-access paths. */
  directAccess: Int32Array;
  /**
   * Per node, a hash of its id (risk-simulation.ts withNodeKeys): what the Monte Carlo keys a hop's random
   * worlds on, so they do not depend on where a compile or a live patch numbered the hop. Optional: the
   * analysis service attaches it; without it the node index stands in.
   */
  nodeKeys?: Int32Array;
}

export interface CompiledGraph extends CompiledCore {
  nodeIds: string[];
  names: string[];
  /** Node index of an id, or -1. */
  indexOf(id: string): number;
}

/** A compiled graph as a plain object for postMessage: shared arrays are shared, not copied; no strings. */
export type SharedCompiledGraph = CompiledCore;

// Zero-length arrays still get a (one-element) buffer: a SharedArrayBuffer of size 0 is legal but pointless.
const bytes = (length: number, size: number) => new SharedArrayBuffer(Math.max(1, length) * size);
const sharedI32 = (length: number) => new Int32Array(bytes(length, 4), 0, length);

type ArrayKind = 'i32' | 'f64' | 'u8';
const BYTES: Readonly<Record<ArrayKind, number>> = { i32: 4, f64: 8, u8: 1 };

/** A named array's memory: `bytes` from `offset` in `buffer` (a buffer of its own, or a compile's arena). */
interface Region {
  buffer: SharedArrayBuffer;
  offset: number;
  bytes: number;
}

/** One named array of a compile's plan (CompileBuffers.reserve): its kind and length. */
export type ArrayPlan = readonly [name: string, kind: ArrayKind, length: number];

/** Regions in an arena start on a cache line (and so on any element's alignment). */
const REGION_ALIGN = 64;

/** The bytes `length` elements of `kind` take (a zero-length array still one element's). */
const bytesOf = (kind: ArrayKind, length: number) => Math.max(1, length) * BYTES[kind];

/**
 * SharedArrayBuffers kept from one compile to the next (one set per tenant). Reusing them keeps a large
 * estate's memory flat across passes: fresh buffers each pass would stay alive in idle worker threads until
 * those happen to collect garbage, and two generations would coexist during every compile. A compile
 * overwrites the previous one's arrays, so the caller must stop reading that one first (PathStore.freezeRoutes).
 *
 * A compile's arrays are laid out in one buffer (reserve): one allocation of tens of MiB, which glibc maps
 * with transparent huge pages where the service runs with `glibc.malloc.hugetlb=1` (as `npm start` does),
 * where twenty buffers of 0.4-3.5 MiB each (the 100k estate's) are too small for any. A fresh service's first
 * compile wrote its arrays into fresh memory at about 3.6 ms a MiB in 4 KiB pages, about 1.5 ms in huge ones
 * (docs/perf.md, "A compile's arrays in one buffer").
 */
export class CompileBuffers {
  private readonly regions = new Map<string, Region>();

  /** `headroom`: how much larger than asked a buffer is made, so that a growing estate rarely reallocates. */
  constructor(private readonly headroom = 1.25) {}

  /**
   * Room for every array of `plan` at once. Where one is missing or too small, all of them move to one new
   * buffer (with headroom), their contents not kept: the caller is about to write them all (a compile).
   * Arrays not in the plan stay where they are.
   */
  reserve(plan: readonly ArrayPlan[]): void {
    if (plan.every(([name, kind, length]) => (this.regions.get(name)?.bytes ?? -1) >= bytesOf(kind, length)))
      return;
    const sizes = plan.map(([, kind, length]) => {
      const bytes = Math.ceil(Math.max(1, length) * this.headroom) * BYTES[kind];
      return Math.ceil(bytes / REGION_ALIGN) * REGION_ALIGN;
    });
    const buffer = new SharedArrayBuffer(sizes.reduce((sum, bytes) => sum + bytes, 0));
    let offset = 0;
    plan.forEach(([name], k) => {
      this.regions.set(name, { buffer, offset, bytes: sizes[k] });
      offset += sizes[k];
    });
  }

  /** A view of `length` elements over the buffer named `name`, grown (with headroom) when too small. */
  view<K extends ArrayKind>(
    name: string,
    kind: K,
    length: number,
  ): K extends 'i32' ? Int32Array : K extends 'f64' ? Float64Array : Uint8Array {
    let region = this.regions.get(name);
    if (!region || region.bytes < bytesOf(kind, length)) {
      region = ownRegion(Math.ceil(Math.max(1, length) * this.headroom), BYTES[kind]);
      this.regions.set(name, region);
    }
    return viewOf(region, kind, length) as never;
  }

  /**
   * Like `view`, but keeps the first `keep` elements when the buffer has to grow (a live graph's arrays
   * grow in place). Growing moves them to a new buffer: callers take the returned view.
   */
  grown<K extends ArrayKind>(
    name: string,
    kind: K,
    length: number,
    keep: number,
  ): K extends 'i32' ? Int32Array : K extends 'f64' ? Float64Array : Uint8Array {
    const old = this.regions.get(name);
    if (old && old.bytes >= bytesOf(kind, length)) return this.view(name, kind, length);
    // Growth steps of at least 1.5×, so that a long run of additions copies each element a few times only.
    const wanted = Math.max(length, Math.ceil(((old?.bytes ?? 0) / BYTES[kind]) * 1.5));
    const fresh = ownRegion(Math.ceil(Math.max(1, wanted) * this.headroom), BYTES[kind]);
    if (old && keep > 0)
      new Uint8Array(fresh.buffer).set(new Uint8Array(old.buffer, old.offset, keep * BYTES[kind]));
    this.regions.set(name, fresh);
    return this.view(name, kind, length);
  }

  /** A view of the whole buffer named `name` (its capacity), or an empty one when there is none yet. */
  whole<K extends ArrayKind>(
    name: string,
    kind: K,
  ): K extends 'i32' ? Int32Array : K extends 'f64' ? Float64Array : Uint8Array {
    const region = this.regions.get(name);
    const length = region ? Math.floor(region.bytes / BYTES[kind]) : 0;
    return (region ? this.view(name, kind, length) : this.view(name, kind, 0)) as never;
  }

  /** A copy of every buffer: a fork of a live graph patches its own (src/analysis/live-graph.ts). */
  copy(): CompileBuffers {
    const out = new CompileBuffers(this.headroom);
    for (const [name, { buffer, offset, bytes }] of this.regions)
      out.regions.set(name, { buffer: buffer.slice(offset, offset + bytes), offset: 0, bytes });
    return out;
  }

  /** Bytes held, for tests and the bench. */
  get byteLength(): number {
    let total = 0;
    for (const region of this.regions.values()) total += region.bytes;
    return total;
  }
}

/** A region that is a buffer of its own, of `length` elements of `size` bytes. */
const ownRegion = (length: number, size: number): Region => {
  const buffer = bytes(length, size);
  return { buffer, offset: 0, bytes: buffer.byteLength };
};

function viewOf(region: Region, kind: ArrayKind, length: number): Int32Array | Float64Array | Uint8Array {
  const { buffer, offset } = region;
  return kind === 'i32'
    ? new Int32Array(buffer, offset, length)
    : kind === 'f64'
      ? new Float64Array(buffer, offset, length)
      : new Uint8Array(buffer, offset, length);
}

function sharedFrom(values: number[]): Int32Array {
  const out = sharedI32(values.length);
  out.set(values);
  return out;
}

/**
 * The price of one hop, as every compile (fresh or live) sets it. A hop into a workload without an explicit
 * probability is priced from the CVEs of what it runs (workload-price.ts).
 */
export function priceEdge(
  attrs: EdgeAttributes,
  target: string,
  targetAttrs: NodeAttributes,
  workloadPrice: (workload: string) => HopPrice | undefined,
): HopPrice {
  return attrs.p !== undefined
    ? priceHop(attrs)
    : targetAttrs.label === 'Service'
      ? priceHop(attrs, workloadPrice(target))
      : targetAttrs.props.runtime_observed === true
        ? priceHop(attrs, withRuntimeEvidence(undefined, true))
        : priceHop(attrs);
}

/** −ln p and the search cost of a hop probability (COST_UNITS_PER_NAT). */
export function hopCost(p: number): { cost: number; units: number } {
  if (p > 0) {
    const cost = p >= 1 ? 0 : -Math.log(p);
    return { cost, units: unitsOfCost(cost) };
  }
  return { cost: Infinity, units: Infinity };
}

/** The search cost of a hop probability alone: what fUnits and rUnits hold for the hop (hopCost's units). */
export function hopUnits(p: number): number {
  return p > 0 ? unitsOfCost(p >= 1 ? 0 : -Math.log(p)) : Infinity;
}

function unitsOfCost(cost: number): number {
  return Math.round(cost * COST_UNITS_PER_NAT) + 1;
}

/** Whether a node is a start or a target of the search (and a direct-access target). */
export function roleOf(attrs: NodeAttributes, seedIamUsers: boolean): number {
  const props = attrs.props;
  let role = 0;
  if (
    props[PROP.internetExposed] === true ||
    (seedIamUsers && attrs.label === 'User' && props[PROP.credentialExposed] === true)
  )
    role |= ROLE_START;
  if (props[PROP.crownJewel] === true) {
    role |= ROLE_TARGET;
    if (props[PROP.publicAccess] === true) role |= ROLE_DIRECT;
  }
  return role;
}
export const ROLE_START = 1;
export const ROLE_TARGET = 2;
export const ROLE_DIRECT = 4;

export const LABEL_INDEX = new Map<string, number>(NODE_LABELS.map((l, i) => [l, i]));
export const TYPE_INDEX = new Map<string, number>(EDGE_TYPES.map((t, i) => [t, i]));
export const BASIS_INDEX = new Map<string, number>(WEIGHT_BASES.map((b, i) => [b, i]));

/** The arrays a compile of `n` nodes and `m` edges writes into its pool (CompileBuffers.reserve). */
export function compilePlan(n: number, m: number): ArrayPlan[] {
  return [
    ['labels', 'u8', n],
    ['fOffsets', 'i32', n + 1],
    ['rOffsets', 'i32', n + 1],
    ['edgeFrom', 'i32', m],
    ['edgeTo', 'i32', m],
    ['edgeType', 'u8', m],
    ['edgeP', 'f64', m],
    ['edgeBasis', 'u8', m],
    ['fUnits', 'f64', m],
    ['fEdges', 'i32', m],
    ['fTo', 'i32', m],
    ['rEdges', 'i32', m],
    ['rFrom', 'i32', m],
    ['rUnits', 'f64', m],
  ];
}

export function compileGraph(
  graph: GraphView,
  options: {
    seedIamUsers: boolean;
    buffers?: CompileBuffers;
    /**
     * Filled by compile index as the nodes are visited: each node's attributes and role (roleOf), which a
     * live graph keeps (live-graph.ts), so that it need not walk the nodes a second time.
     */
    nodes?: { attrs: NodeAttributes[]; roles: Uint8Array };
  },
): CompiledGraph {
  const n = graph.order;
  const m = graph.size;
  // Without a pool, a throwaway one: the arrays in one fresh buffer, each of its exact size.
  const pool = options.buffers ?? new CompileBuffers(1);
  pool.reserve(compilePlan(n, m));
  const sharedI32 = (name: string, length: number) => pool.view(name, 'i32', length);
  const sharedF64 = (name: string, length: number) => pool.view(name, 'f64', length);
  const sharedU8 = (name: string, length: number) => pool.view(name, 'u8', length);
  const nodeIds = new Array<string>(n);
  const names = new Array<string>(n);
  const labels = sharedU8('labels', n);
  const fOffsets = sharedI32('fOffsets', n + 1);
  const starts: number[] = [];
  const targets: number[] = [];
  const direct: number[] = [];
  // The compact store hands nodes and edges over by slot (no id lookup or record per edge); any other graph
  // through graphology's iteration. Both give the same arrays.
  const slots = graph.slots?.();
  const kept = options.nodes;
  /** node slot -> compile index (the slot path) */
  const indexOfSlot = slots ? new Int32Array(slots.nodeSlotBound) : undefined;
  let i = 0;
  const visitNode = (id: string, attrs: NodeAttributes, outDegree: number) => {
    nodeIds[i] = id;
    names[i] = attrs.name;
    labels[i] = LABEL_INDEX.get(attrs.label) ?? 0;
    attrs.compileIndex = i;
    fOffsets[i + 1] = outDegree;
    const role = roleOf(attrs, options.seedIamUsers);
    if (kept) {
      kept.attrs[i] = attrs;
      kept.roles[i] = role;
    }
    if (role & ROLE_START) starts.push(i);
    if (role & ROLE_TARGET) targets.push(i);
    if (role & ROLE_DIRECT) direct.push(i);
    i++;
  };
  if (slots && indexOfSlot)
    slots.forEachNodeSlot((slot, id, attrs, outDegree) => {
      indexOfSlot[slot] = i;
      visitNode(id, attrs, outDegree);
    });
  else graph.forEachNode((id, attrs) => visitNode(id, attrs, graph.outDegree(id)));
  for (let v = 0; v < n; v++) fOffsets[v + 1] += fOffsets[v];

  // One pass over graphology's edges places each edge straight at its forward CSR slot (out-degrees are
  // known), so edge indices come out grouped by source with no second copy.
  const edgeFrom = sharedI32('edgeFrom', m);
  const edgeTo = sharedI32('edgeTo', m);
  const edgeType = sharedU8('edgeType', m);
  const edgeP = sharedF64('edgeP', m);
  const edgeBasis = sharedU8('edgeBasis', m);
  // A fresh compile's forward slot of edge k is k: its search cost goes straight to fUnits.
  const fUnits = sharedF64('fUnits', m);
  const rOffsets = sharedI32('rOffsets', n + 1);
  // Counted up below: a reused buffer holds the last compile's counts.
  rOffsets.fill(0);
  fOffsets[0] = 0;
  const cursor = fOffsets.slice(0, Math.max(1, n));
  // Consecutive edges mostly share a type and basis: compare strings before looking them up.
  let lastType = '';
  let typeIndex = 0;
  let lastBasis = '';
  let basisIndex = 0;
  // Endpoint indices come from the node attributes graphology hands over: no id lookups per edge.
  const workloadPrice = workloadPricer(graph);
  const place = (from: number, to: number, type: number, basis: number, p: number) => {
    const k = cursor[from]++;
    edgeFrom[k] = from;
    edgeTo[k] = to;
    edgeType[k] = type;
    edgeBasis[k] = basis;
    edgeP[k] = p;
    fUnits[k] = hopUnits(p);
    rOffsets[to + 1]++;
  };
  if (slots && indexOfSlot) {
    // An edge with its own probability (and no join confidence) is priced from it alone (priceHop): its
    // record is read only for the others.
    const heuristic = BASIS_INDEX.get('heuristic')!;
    slots.forEachEdgeSlot((slot, fromSlot, toSlot, type, basis, p) => {
      const from = indexOfSlot[fromSlot];
      const to = indexOfSlot[toSlot];
      if (p === p) {
        place(from, to, type, basis === 0 ? heuristic : basis - 1, clampProbability(p));
        return;
      }
      const attrs = slots.edgeAttributesAt(slot);
      const price = priceEdge(attrs, nodeIds[to], slots.attributesAt(toSlot), workloadPrice);
      place(from, to, type, BASIS_INDEX.get(price.basis) ?? 0, price.p);
    });
  } else {
    const forEachEdge = graph.forEachEdgeUnkeyed?.bind(graph) ?? graph.forEachEdge.bind(graph);
    forEachEdge((_key, attrs, _source, target, sourceAttrs, targetAttrs) => {
      const price = priceEdge(attrs, target, targetAttrs, workloadPrice);
      if (attrs.type !== lastType) {
        lastType = attrs.type;
        typeIndex = TYPE_INDEX.get(lastType) ?? 0;
      }
      if (price.basis !== lastBasis) {
        lastBasis = price.basis;
        basisIndex = BASIS_INDEX.get(lastBasis) ?? 0;
      }
      place(sourceAttrs.compileIndex!, targetAttrs.compileIndex!, typeIndex, basisIndex, price.p);
    });
  }
  for (let v = 0; v < n; v++) rOffsets[v + 1] += rOffsets[v];

  const fEdges = sharedI32('fEdges', m);
  const fTo = sharedI32('fTo', m);
  const rEdges = sharedI32('rEdges', m);
  const rFrom = sharedI32('rFrom', m);
  const rUnits = sharedF64('rUnits', m);
  fTo.set(edgeTo);
  cursor.set(rOffsets.subarray(0, n));
  for (let k = 0; k < m; k++) {
    fEdges[k] = k;
    const r = cursor[edgeTo[k]]++;
    rEdges[r] = k;
    rFrom[r] = edgeFrom[k];
    rUnits[r] = fUnits[k];
  }

  let index: Map<string, number> | undefined;
  return {
    nodeCount: n,
    edgeCount: m,
    nodeIds,
    names,
    labels,
    edgeFrom,
    edgeTo,
    edgeType,
    edgeP,
    edgeBasis,
    fStart: fOffsets.subarray(0, n),
    fEnd: fOffsets.subarray(1, n + 1),
    fEdges,
    fTo,
    fUnits,
    rStart: rOffsets.subarray(0, n),
    rEnd: rOffsets.subarray(1, n + 1),
    rEdges,
    rFrom,
    rUnits,
    starts: sharedFrom(starts),
    targets: sharedFrom(targets),
    directAccess: sharedFrom(direct),
    // Built on first use: a pass that never looks a node up does not pay for the map.
    indexOf(id: string): number {
      index ??= new Map(nodeIds.map((nodeId, at) => [nodeId, at]));
      return index.get(id) ?? -1;
    },
  };
}

const CORE_ARRAYS = [
  'labels',
  'edgeFrom',
  'edgeTo',
  'edgeType',
  'edgeP',
  'edgeBasis',
  'fStart',
  'fEnd',
  'fEdges',
  'fTo',
  'fUnits',
  'rStart',
  'rEnd',
  'rEdges',
  'rFrom',
  'rUnits',
  'starts',
  'targets',
  'directAccess',
] as const satisfies readonly (keyof CompiledCore)[];

/** The numeric arrays only, for postMessage: on SharedArrayBuffers they reach a worker without a copy. */
export function toShared(g: CompiledCore): SharedCompiledGraph {
  const out = { nodeCount: g.nodeCount, edgeCount: g.edgeCount } as Record<string, unknown>;
  for (const key of CORE_ARRAYS) out[key] = g[key];
  if (g.nodeKeys) out.nodeKeys = g.nodeKeys;
  return out as unknown as SharedCompiledGraph;
}

/** Checks a received description and returns it as the searchable core (no node ids or names). */
export function fromShared(d: SharedCompiledGraph): CompiledCore {
  for (const key of CORE_ARRAYS) {
    if (!ArrayBuffer.isView(d[key])) throw new Error(`analysis/compiled-graph: shared graph lacks ${key}`);
  }
  const { nodeCount: n, edgeCount: m } = d;
  if (
    d.fStart.length !== n ||
    d.fEnd.length !== n ||
    d.rStart.length !== n ||
    d.rEnd.length !== n ||
    d.edgeTo.length !== m ||
    d.fTo.length !== d.fEdges.length ||
    d.fUnits.length !== d.fEdges.length ||
    d.rFrom.length !== d.rEdges.length ||
    d.rUnits.length !== d.rEdges.length ||
    (d.nodeKeys !== undefined && (!ArrayBuffer.isView(d.nodeKeys) || d.nodeKeys.length !== n))
  ) {
    throw new Error('analysis/compiled-graph: shared graph arrays do not match its node and edge counts');
  }
  return toShared(d);
}
