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
  private mask = 1023;
  private count = 0;

  constructor(private readonly ends: EdgeEnds) {}

  get size(): number {
    return this.count;
  }

  /** The slot of the (first) edge of `type` from `from` to `to`, or -1. */
  find(type: number, from: number, to: number): number {
    const { table, mask, ends } = this;
    for (let i = hash(from, to) & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === EMPTY) return -1;
      const slot = entry - 1;
      if (ends.fromOf(slot) === from && ends.toOf(slot) === to && ends.typeOf(slot) === type) return slot;
    }
  }

  /** The slot of some edge from `from` to `to`, whatever its type, or -1. */
  findPair(from: number, to: number): number {
    const { table, mask, ends } = this;
    for (let i = hash(from, to) & mask; ; i = (i + 1) & mask) {
      const entry = table[i];
      if (entry === EMPTY) return -1;
      const slot = entry - 1;
      if (ends.fromOf(slot) === from && ends.toOf(slot) === to) return slot;
    }
  }

  /** Indexes an edge slot whose ends and type are already written. */
  add(slot: number): void {
    if ((this.count + 1) * 10 > this.table.length * 7) this.grow();
    this.place(slot);
    this.count++;
  }

  /** Forgets an edge slot (before its ends are overwritten). */
  remove(slot: number): void {
    const { table, mask, ends } = this;
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
    this.table = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.count = 0;
    for (const slot of slots) {
      this.place(slot);
      this.count++;
    }
  }

  private place(slot: number): void {
    const { table, mask, ends } = this;
    let i = hash(ends.fromOf(slot), ends.toOf(slot)) & mask;
    while (table[i] !== EMPTY) i = (i + 1) & mask;
    table[i] = slot + 1;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length - 1;
    for (const entry of old) if (entry !== EMPTY) this.place(entry - 1);
  }
}
