// Columns of numbers in fixed-size pages: a column grows by one page at a time, so a growing graph never
// copies what it holds (a doubling array copies all of it, and holds up to twice what it needs while it
// does), and the garbage collector sees one object per 65,536 values.

export const PAGE_BITS = 16;
export const PAGE_SIZE = 1 << PAGE_BITS;
const MASK = PAGE_SIZE - 1;

type Page = Int32Array | Float64Array | Uint8Array;

/** One column of a fixed element type. Values of slots never set read as 0. */
class PagedColumn<P extends Page> {
  pages: P[] = [];

  constructor(private readonly page: () => P) {}

  get capacity(): number {
    return this.pages.length * PAGE_SIZE;
  }

  get(i: number): number {
    return this.pages[i >>> PAGE_BITS][i & MASK];
  }

  set(i: number, value: number): void {
    this.pages[i >>> PAGE_BITS][i & MASK] = value;
  }

  /** Makes slots `0 .. length - 1` addressable. */
  reserve(length: number): void {
    while (this.pages.length * PAGE_SIZE < length) this.pages.push(this.page());
  }

  /** Drops every page (the column reads as empty; reserve again before use). */
  clear(): void {
    this.pages = [];
  }
}

export class PagedI32 extends PagedColumn<Int32Array> {
  constructor() {
    super(() => new Int32Array(PAGE_SIZE));
  }
}

export class PagedF64 extends PagedColumn<Float64Array> {
  constructor() {
    super(() => new Float64Array(PAGE_SIZE));
  }
}

export class PagedU8 extends PagedColumn<Uint8Array> {
  constructor() {
    super(() => new Uint8Array(PAGE_SIZE));
  }
}

/**
 * Slots by a number that only grows (an edge's key): a page exists while one of its numbers is in use, so
 * the map follows the live numbers, not every number ever handed out.
 */
export class SparsePagedI32 {
  private pages: (Int32Array | undefined)[] = [];
  private used: number[] = [];

  /** The value stored for `n`, or 0. */
  get(n: number): number {
    const page = this.pages[n >>> PAGE_BITS];
    return page ? page[n & MASK] : 0;
  }

  /** Stores a non-zero value for `n`; 0 forgets it (and frees its page when the page holds nothing). */
  set(n: number, value: number): void {
    const index = n >>> PAGE_BITS;
    let page = this.pages[index];
    if (!page) {
      if (value === 0) return;
      while (this.pages.length <= index) {
        this.pages.push(undefined);
        this.used.push(0);
      }
      page = this.pages[index] = new Int32Array(PAGE_SIZE);
    }
    const i = n & MASK;
    const was = page[i] !== 0;
    page[i] = value;
    const is = value !== 0;
    if (was === is) return;
    this.used[index] += is ? 1 : -1;
    if (this.used[index] === 0) this.pages[index] = undefined;
  }

  get allocatedPages(): number {
    let count = 0;
    for (const page of this.pages) if (page) count++;
    return count;
  }
}

/**
 * References by slot (an edge's properties), in pages made only when one of their slots holds something:
 * most edges of an estate have none, and a page of 65,536 empty references costs what it holds.
 */
export class SparseRefs<T> {
  private pages: (T[] | undefined)[] = [];

  get(i: number): T | undefined {
    return this.pages[i >>> PAGE_BITS]?.[i & MASK];
  }

  set(i: number, value: T | undefined): void {
    const index = i >>> PAGE_BITS;
    let page = this.pages[index];
    if (!page) {
      if (value === undefined) return;
      while (this.pages.length <= index) this.pages.push(undefined);
      page = this.pages[index] = new Array<T>(PAGE_SIZE);
    }
    page[i & MASK] = value as T;
  }
}
