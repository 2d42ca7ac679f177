// Copy-on-write views of a live compiled graph's typed arrays (live-graph.ts), for the gate's forks: a fork
// reads the live arrays in place and keeps its own writes (a few hundred to a few thousand hop prices, slots
// and list moves) in a map per array, so forking costs nothing on the main thread. The searchable copy of a
// fork (the live arrays with every layer of writes laid over them) is made where the search runs, on a
// worker thread (materialize, path-worker.ts), while the live graph is held still for the copy
// (LiveGraph.fork / release).

export type NumArray = Int32Array | Float64Array | Uint8Array;

/** One fork's writes to one array: slot → value (the last write wins). */
export type Writes = Map<number, number>;

/** One fork's writes as plain typed arrays, for postMessage: array name → [slots, values]. */
export type Layer = Record<string, [Int32Array, Float64Array]>;

/** How long a copy-on-write view says it is: its writes may go past the live array's end. */
const UNBOUNDED = 2 ** 30;

/**
 * A view of `base` (a typed array, or another fork's view of one) whose writes go into `writes` only.
 * Index reads and writes, `length`, `subarray` (as a plain array of the values) and `copyWithin` work; any
 * other typed-array method throws, so that a patch path that needs one is noticed rather than wrong.
 */
export function cowArray(base: NumArray, writes: Writes): NumArray {
  const kind = kindOf(base);
  const coerce: (v: number) => number =
    kind === 'i32' ? (v) => v | 0 : kind === 'u8' ? (v) => v & 255 : (v) => +v;
  const baseLength = base.length;
  const read = (i: number): number => {
    const w = writes.get(i);
    if (w !== undefined) return w;
    // Past the live array's end a fresh slot reads 0, as a grown buffer does.
    return i < baseLength ? base[i] : 0;
  };
  const methods: Record<string, unknown> = {
    length: UNBOUNDED,
    subarray: (start: number, end: number) => {
      const out: number[] = [];
      for (let i = start; i < end; i++) out.push(read(i));
      return out;
    },
    copyWithin: (target: number, start: number, end: number) => {
      const values: number[] = [];
      for (let i = start; i < end; i++) values.push(read(i));
      for (let j = 0; j < values.length; j++) writes.set(target + j, values[j]);
    },
  };
  return new Proxy(base, {
    get(_target, prop) {
      if (typeof prop === 'string') {
        const i = indexOf(prop);
        if (i >= 0) return read(i);
        if (prop in methods) return methods[prop];
        // An index that is not one (`array[undefined]`) reads undefined, as on a typed array.
        if (!(prop in Int32Array.prototype)) return undefined;
      } else if (prop === KIND) return kind;
      throw new Error(`analysis/cow-arrays: ${String(prop)} is not available on a fork's array`);
    },
    set(_target, prop, value: number) {
      const i = typeof prop === 'string' ? indexOf(prop) : -1;
      if (i < 0) throw new Error(`analysis/cow-arrays: cannot set ${String(prop)} on a fork's array`);
      writes.set(i, coerce(value));
      return true;
    },
  });
}

const KIND = Symbol('cow-kind');
type Kind = 'i32' | 'f64' | 'u8';

function kindOf(a: NumArray): Kind {
  const tagged = (a as unknown as Record<symbol, Kind | undefined>)[KIND];
  if (tagged) return tagged;
  return a instanceof Int32Array ? 'i32' : a instanceof Uint8Array ? 'u8' : 'f64';
}

/** The array index a property key names, or -1. */
function indexOf(prop: string): number {
  const c = prop.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  const i = Number(prop);
  return Number.isInteger(i) && i >= 0 && String(i) === prop ? i : -1;
}

/**
 * An array seen through a fork's own entries (node ids, names, attributes by slot): reads see `own` first,
 * writes go into it. The base is never written through this view, and the live graph never rewrites a slot
 * a fork can see in place (it appends past them, and replaces its names array before a rename), so forking
 * copies nothing.
 */
export function layeredArray<T>(base: readonly T[], own: Map<number, T> = new Map()): T[] {
  let length = base.length;
  return new Proxy(base as T[], {
    get(_target, prop) {
      if (typeof prop === 'string') {
        const i = indexOf(prop);
        if (i >= 0) return own.has(i) ? own.get(i) : i < base.length ? base[i] : undefined;
        if (prop === 'length') return length;
        // An index that is not one (`list[undefined]`) reads undefined, as on an array.
        if (!(prop in Array.prototype)) return undefined;
      }
      throw new Error(`analysis/cow-arrays: ${String(prop)} is not available on a fork's list`);
    },
    set(_target, prop, value: T) {
      const i = typeof prop === 'string' ? indexOf(prop) : -1;
      if (i < 0) throw new Error(`analysis/cow-arrays: cannot set ${String(prop)} on a fork's list`);
      own.set(i, value);
      if (i >= length) length = i + 1;
      return true;
    },
  });
}

/** A fork's writes, packed for postMessage (only the arrays it wrote). */
export function packLayer(writes: ReadonlyMap<string, Writes>): Layer {
  const layer: Layer = {};
  for (const [name, w] of writes) {
    if (w.size === 0) continue;
    const slots = new Int32Array(w.size);
    const values = new Float64Array(w.size);
    let j = 0;
    for (const [slot, value] of w) {
      slots[j] = slot;
      values[j] = value;
      j++;
    }
    layer[name] = [slots, values];
  }
  return layer;
}

/**
 * Fresh arrays (on SharedArrayBuffers) holding `base` with every layer's writes laid over it in order: the
 * arrays of a fork, searchable. Only the arrays named in `lengths` are made, each of that length (what a
 * search and the path store read: the live graph's bookkeeping arrays and its free room are left out).
 * Every one is copied, written or not, so that the copy stays what it is once the live graph moves on.
 */
export function materialize(
  base: Readonly<Record<string, NumArray>>,
  layers: readonly Layer[],
  lengths: Readonly<Record<string, number>>,
): Record<string, NumArray> {
  const out: Record<string, NumArray> = {};
  for (const [name, length] of Object.entries(lengths)) {
    const from = base[name];
    const to =
      from instanceof Int32Array
        ? new Int32Array(new SharedArrayBuffer(Math.max(1, length) * 4), 0, length)
        : from instanceof Float64Array
          ? new Float64Array(new SharedArrayBuffer(Math.max(1, length) * 8), 0, length)
          : new Uint8Array(new SharedArrayBuffer(Math.max(1, length)), 0, length);
    to.set(from.subarray(0, Math.min(length, from.length)));
    for (const layer of layers) {
      const w = layer[name];
      if (!w) continue;
      const [slots, values] = w;
      for (let j = 0; j < slots.length; j++) if (slots[j] < length) to[slots[j]] = values[j];
    }
    out[name] = to;
  }
  return out;
}
