// The edge of a type between two nodes, found by hashing (from, to): the writer asks it for every edge of
// every report (is this edge new?), and the store asks it for any edge between two nodes (where a new
// parallel edge goes in the nodes' lists). An open-addressing table of edge slots in one Int32Array, with
// linear probing and deletion by backward shift (no tombstones), so it holds no object per edge. The type
// is compared, not hashed: the few parallel edges of a pair share a probe run. Scanning the smaller
// adjacency list instead would cost the degree of a hub per lookup (an image's packages, a CVE's images).

/** What the index reads of an edge slot to compare keys. */
export interface EdgeEnds {
  fromOf(slot: number): number;
  toOf(slot: number): number;
  typeOf(slot: number): number;
  /** How many slots there are; a slot is live (and indexed) while its `fromOf` is not negative. */
  slotCount(): number;
}

const EMPTY = 0;

function hash(from: number, to: number): number {
  let h = Math.imul(from, 0x9e3779b1) ^ Math.imul(to + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

export class EdgeIndex {
  /** slot + 1, or 0 for an empty bucket */
  private table = new Int32Array(1024);
  /**
   * Per bucket, the top 8 bits of its edge's hash (the bucket is chosen by the low bits): a probe reads an
   * edge's ends (other pages, a cache miss each) only when they match, so a lookup of a new edge seldom reads any.
   */
  private tags = new Uint8Array(1024);
  private mask = 1023;
  private count = 0;

  constructor(private readonly ends: EdgeEnds) {}

  get size(): number {
    return this.count;
  }

  /** The slot of the (first) edge of `type` from `from` to `to`, or -1. */
  find(type: number, from: number, to: number): number {
    const { table, tags, mask, ends } = this;
    const h = hash(from, to);
    const tag = h >>> 24;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === EMPTY) return -1;
      if (tags[i] !== tag) continue;
      const slot = entry - 1;
      if (ends.fromOf(slot) === from && ends.toOf(slot) === to && ends.typeOf(slot) === type) return slot;
    }
  }

  /** The slot of some edge from `from` to `to`, whatever its type, or -1. */
  findPair(from: number, to: number): number {
    const { table, tags, mask, ends } = this;
    const h = hash(from, to);
    const tag = h >>> 24;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === EMPTY) return -1;
      if (tags[i] !== tag) continue;
      const slot = entry - 1;
      if (ends.fromOf(slot) === from && ends.toOf(slot) === to) return slot;
    }
  }

  /** Indexes an edge slot whose ends and type are already written. */
  add(slot: number): void {
    if ((this.count + 1) * 10 > this.table.length * 7) this.grow(slot);
    this.place(slot);
    this.count++;
  }

  /** Forgets an edge slot (before its ends are overwritten). */
  remove(slot: number): void {
    const { table, tags, mask, ends } = this;
    let i = hash(ends.fromOf(slot), ends.toOf(slot)) & mask;
    while (table[i] !== slot + 1) {
      if (table[i] === EMPTY) return;
      i = (i + 1) & mask;
    }
    // Backward shift: move later entries of the probe run into the hole when their home allows it.
    let hole = i;
    for (let j = (i + 1) & mask; table[j] !== EMPTY; j = (j + 1) & mask) {
      const s = table[j] - 1;
      const home = hash(ends.fromOf(s), ends.toOf(s)) & mask;
      // Entry j may fill the hole if its home is not in the cyclic range (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        table[hole] = table[j];
        tags[hole] = tags[j];
        hole = j;
      }
    }
    table[hole] = EMPTY;
    this.count--;
  }

  /** Rebuilds from the given slots (after the store renumbered them). */
  rebuild(slots: Iterable<number>, expected: number): void {
    let capacity = 1024;
    while (expected * 10 > capacity * 7) capacity *= 2;
    this.resize(capacity);
    for (const slot of slots) {
      this.place(slot);
      this.count++;
    }
  }

  /** An empty table of `capacity` buckets (a power of two). */
  private resize(capacity: number): void {
    this.table = new Int32Array(capacity);
    this.tags = new Uint8Array(capacity);
    this.mask = capacity - 1;
    this.count = 0;
  }

  private place(slot: number): void {
    this.placeHashed(slot, hash(this.ends.fromOf(slot), this.ends.toOf(slot)));
  }

  private placeHashed(slot: number, h: number): void {
    const { table, tags, mask } = this;
    let i = h & mask;
    while (table[i] !== EMPTY) i = (i + 1) & mask;
    table[i] = slot + 1;
    tags[i] = h >>> 24;
  }

  /**
   * Doubles the table, placing the live slots again in slot order (`adding`, not yet indexed, is left to the
   * caller): the ends are then read page by page, not in the old table's random order.
   */
  private grow(adding: number): void {
    const count = this.count;
    this.resize(this.table.length * 2);
    const { ends } = this;
    const slots = ends.slotCount();
    for (let slot = 0; slot < slots; slot++) {
      const from = ends.fromOf(slot);
      if (from >= 0 && slot !== adding) this.placeHashed(slot, hash(from, ends.toOf(slot)));
    }
    this.count = count;
  }
}
