// Node id -> slot, for the writer's lookup of every edge's ends. An open-addressing table in one Int32Array
// (each bucket the slot + 1 and the id's hash, side by side) beside the store's array of ids: a probe
// compares hashes and reads an id string only on a hash match. At a million nodes a JS Map's lookup of a
// string fresh from JSON.parse was the writer's largest cost (its entries and keys scattered over the heap:
// several cache misses each); this table measured about a third faster on the same lookups.

/**
 * The table's hash of an id. A well-formed id (`<Label>:<16 hex>`, graph/ids.ts) ends in the random bits of
 * a SHA-1: its last eight characters, packed four to a word and mixed, with its length and first character
 * for the label, spread as well as a hash of the whole id. Any other id: FNV-1a over every code unit.
 * FNV-1a over whole ids was slower to compute (a multiply chain 25 long) and spread worse in the low bits
 * linear probing uses: lookups of the 100k estate's edge ends measured 0.09 s against 0.13 s, a rebuild of
 * 3M ids 0.43–0.49 s against 0.83–0.90 s (docs/perf.md, "Issue 38: the node id hash").
 */
export function idHash(id: string): number {
  const n = id.length;
  if (n >= 18 && id.charCodeAt(n - 17) === 58) {
    const a =
      id.charCodeAt(n - 8) |
      (id.charCodeAt(n - 7) << 8) |
      (id.charCodeAt(n - 6) << 16) |
      (id.charCodeAt(n - 5) << 24);
    const b =
      id.charCodeAt(n - 4) |
      (id.charCodeAt(n - 3) << 8) |
      (id.charCodeAt(n - 2) << 16) |
      (id.charCodeAt(n - 1) << 24);
    let h =
      Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) ^
      Math.imul(n ^ (id.charCodeAt(0) << 8), 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x27d4eb2f);
    return h ^ (h >>> 13);
  }
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h;
}

export class NodeIds {
  /**
   * Two int32 per bucket, side by side so that a probe reads one cache line: the slot + 1 (0 for an empty
   * bucket) and the id's hash.
   */
  private table = new Int32Array(2048);
  private mask = 1023;
  private count = 0;

  /** `ids[slot]`: the store's array of node ids by slot (undefined for a dead slot). */
  constructor(private ids: (string | undefined)[]) {}

  get size(): number {
    return this.count;
  }

  /** The slot of `id`, or -1. */
  get(id: string): number {
    const h = idHash(id);
    const { table, mask, ids } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i];
      if (entry === 0) return -1;
      if (table[2 * i + 1] === h && ids[entry - 1] === id) return entry - 1;
    }
  }

  /** Maps `id` (not present) to `slot`; `ids[slot]` must already hold it. */
  set(id: string, slot: number): void {
    if ((this.count + 1) * 10 > (this.mask + 1) * 7) this.grow();
    this.place(idHash(id), slot);
    this.count++;
  }

  /** Forgets `id` (present at `slot`). */
  delete(id: string, slot: number): void {
    const { table, mask } = this;
    let i = idHash(id) & mask;
    while (table[2 * i] !== slot + 1) {
      if (table[2 * i] === 0) return;
      i = (i + 1) & mask;
    }
    // Backward shift: entries after the hole move into it when their home bucket allows it.
    let hole = i;
    for (let j = (i + 1) & mask; table[2 * j] !== 0; j = (j + 1) & mask) {
      const home = table[2 * j + 1] & mask;
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        table[2 * hole] = table[2 * j];
        table[2 * hole + 1] = table[2 * j + 1];
        hole = j;
      }
    }
    table[2 * hole] = 0;
    this.count--;
  }

  /**
   * This table over `ids`, which must hold at every slot the id this table's array holds there: a copy of
   * the buckets (one memory copy), not the ids hashed and placed again.
   */
  copyOver(ids: (string | undefined)[]): NodeIds {
    const out = new NodeIds(ids);
    out.table = this.table.slice();
    out.mask = this.mask;
    out.count = this.count;
    return out;
  }

  /** Rebuilds from a new array of ids by slot (after the store renumbered its nodes). */
  rebuild(ids: (string | undefined)[]): void {
    this.ids = ids;
    let capacity = 1024;
    let live = 0;
    for (const id of ids) if (id !== undefined) live++;
    while (live * 10 > capacity * 7) capacity *= 2;
    this.table = new Int32Array(2 * capacity);
    this.mask = capacity - 1;
    this.count = 0;
    ids.forEach((id, slot) => {
      if (id === undefined) return;
      this.place(idHash(id), slot);
      this.count++;
    });
  }

  private place(h: number, slot: number): void {
    const { table, mask } = this;
    let i = h & mask;
    while (table[2 * i] !== 0) i = (i + 1) & mask;
    table[2 * i] = slot + 1;
    table[2 * i + 1] = h;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length / 2 - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i + 1], old[i] - 1);
  }
}
