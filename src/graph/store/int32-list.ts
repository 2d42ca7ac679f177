// A list of 32-bit integers that grows by doubling: one typed array, not a JavaScript array that `push` grows by
// copying into fresh V8 memory (a typed array's memory comes from malloc, which glibc maps with huge pages:
// "Settings that matter" in docs/perf.md).

export class Int32List {
  items: Int32Array;
  length = 0;

  constructor(capacity = 16) {
    this.items = new Int32Array(Math.max(1, capacity));
  }

  push(n: number): void {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = n;
  }

  /** The list's values: a view of its array, valid until the next push. */
  view(): Int32Array {
    return this.items.subarray(0, this.length);
  }
}
