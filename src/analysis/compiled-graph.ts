// The compact form the analysis runs on: nodes and edges as indices, hops priced once, forward and reverse
// adjacency as CSR typed arrays on SharedArrayBuffers, so worker threads read them without copying.
import type { TenantGraph } from '../graph/model.js';
import { EDGE_TYPES, NODE_LABELS, PROP, WEIGHT_BASES } from '../graph/vocabulary.js';
import { priceHop } from '../model/probability.js';

/** The numeric part of a compiled graph: what worker threads receive. */
export interface CompiledArrays {
  nodeCount: number;
  edgeCount: number;
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  /** Forward CSR over traversable edges (p > 0): neighbours, costs (−ln p) and edge indices of node i at fOffsets[i]..fOffsets[i+1]. */
  fOffsets: Int32Array;
  fAdj: Int32Array;
  fCost: Float64Array;
  fEdge: Int32Array;
  /** The same, reversed: for node i, the nodes with an edge into i. */
  rOffsets: Int32Array;
  rAdj: Int32Array;
  rCost: Float64Array;
  rEdge: Int32Array;
  starts: Int32Array;
  targets: Int32Array;
  isStart: Uint8Array;
  isTarget: Uint8Array;
}

export interface CompiledGraph extends CompiledArrays {
  nodeIds: string[];
  names: string[];
  /** Index into NODE_LABELS. */
  labels: Uint8Array;
  /** Index into EDGE_TYPES. */
  edgeType: Uint8Array;
  edgeP: Float64Array;
  /** Index into WEIGHT_BASES. */
  edgeBasis: Uint8Array;
  /** Targets with `public_access`: direct-access paths. */
  directAccess: Int32Array;
  indexOf(id: string): number;
}

function shared<T extends Int32Array | Float64Array | Uint8Array>(Kind: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
  return new Kind(new SharedArrayBuffer(Math.max(1, length) * Kind.BYTES_PER_ELEMENT));
}

const LABEL_INDEX = new Map<string, number>(NODE_LABELS.map((l, i) => [l, i]));
const TYPE_INDEX = new Map<string, number>(EDGE_TYPES.map((t, i) => [t, i]));
const BASIS_INDEX = new Map<string, number>(WEIGHT_BASES.map((b, i) => [b, i]));

export function compileGraph(graph: TenantGraph, options: { seedIamUsers: boolean }): CompiledGraph {
  const n = graph.order;
  const m = graph.size;
  const nodeIds: string[] = new Array<string>(n);
  const names: string[] = new Array<string>(n);
  const labels = new Uint8Array(n);
  const isStart = shared(Uint8Array, n);
  const isTarget = shared(Uint8Array, n);
  const index = new Map<string, number>();
  const starts: number[] = [];
  const targets: number[] = [];
  const direct: number[] = [];
  let i = 0;
  graph.forEachNode((id, attrs) => {
    nodeIds[i] = id;
    names[i] = attrs.name;
    labels[i] = LABEL_INDEX.get(attrs.label) ?? 0;
    index.set(id, i);
    const props = attrs.props;
    if (props[PROP.internetExposed] === true || (options.seedIamUsers && attrs.label === 'User' && props[PROP.credentialExposed] === true)) {
      isStart[i] = 1;
      starts.push(i);
    }
    if (props[PROP.crownJewel] === true) {
      isTarget[i] = 1;
      targets.push(i);
      if (props[PROP.publicAccess] === true) direct.push(i);
    }
    i++;
  });

  const edgeFrom = shared(Int32Array, m);
  const edgeTo = shared(Int32Array, m);
  const edgeType = new Uint8Array(m);
  const edgeP = new Float64Array(m);
  const edgeBasis = new Uint8Array(m);
  const outDegree = new Int32Array(n + 1);
  const inDegree = new Int32Array(n + 1);
  let e = 0;
  let traversable = 0;
  graph.forEachEdge((_key, attrs, source, target) => {
    const from = index.get(source)!;
    const to = index.get(target)!;
    const price = priceHop(attrs);
    edgeFrom[e] = from;
    edgeTo[e] = to;
    edgeType[e] = TYPE_INDEX.get(attrs.type) ?? 0;
    edgeP[e] = price.p;
    edgeBasis[e] = BASIS_INDEX.get(price.basis) ?? 0;
    if (price.p > 0) {
      outDegree[from + 1]++;
      inDegree[to + 1]++;
      traversable++;
    }
    e++;
  });

  // Counting sort into CSR: offsets are prefix sums of degrees.
  const fOffsets = shared(Int32Array, n + 1);
  const rOffsets = shared(Int32Array, n + 1);
  for (let v = 0; v < n; v++) {
    fOffsets[v + 1] = fOffsets[v] + outDegree[v + 1];
    rOffsets[v + 1] = rOffsets[v] + inDegree[v + 1];
  }
  const fAdj = shared(Int32Array, traversable);
  const fCost = shared(Float64Array, traversable);
  const fEdge = shared(Int32Array, traversable);
  const rAdj = shared(Int32Array, traversable);
  const rCost = shared(Float64Array, traversable);
  const rEdge = shared(Int32Array, traversable);
  const fNext = fOffsets.slice(0, n);
  const rNext = rOffsets.slice(0, n);
  for (let k = 0; k < m; k++) {
    const p = edgeP[k];
    if (p <= 0) continue;
    const cost = -Math.log(p);
    const from = edgeFrom[k];
    const to = edgeTo[k];
    const f = fNext[from]++;
    fAdj[f] = to;
    fCost[f] = cost;
    fEdge[f] = k;
    const r = rNext[to]++;
    rAdj[r] = from;
    rCost[r] = cost;
    rEdge[r] = k;
  }

  const toShared = (values: number[]) => {
    const out = shared(Int32Array, values.length);
    out.set(values);
    return out.subarray(0, values.length);
  };
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
    fOffsets,
    fAdj,
    fCost,
    fEdge,
    rOffsets,
    rAdj,
    rCost,
    rEdge,
    starts: toShared(starts),
    targets: toShared(targets),
    isStart,
    isTarget,
    directAccess: Int32Array.from(direct),
    indexOf: (id: string) => index.get(id) ?? -1,
  };
}

/** The numeric arrays only, for posting to a worker (SharedArrayBuffers are shared, not copied). */
export function arraysOf(g: CompiledGraph): CompiledArrays {
  const { nodeCount, edgeCount, edgeFrom, edgeTo, fOffsets, fAdj, fCost, fEdge, rOffsets, rAdj, rCost, rEdge, starts, targets, isStart, isTarget } = g;
  return { nodeCount, edgeCount, edgeFrom, edgeTo, fOffsets, fAdj, fCost, fEdge, rOffsets, rAdj, rCost, rEdge, starts, targets, isStart, isTarget };
}
