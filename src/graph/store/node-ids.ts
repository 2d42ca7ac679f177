// Node id -> slot, for the writer's lookup of every edge's ends: an open-addressing table in one Int32Array,
// beside the store's array of ids. At a million nodes a JS Map's lookup of a string fresh from JSON.parse was
// the writer's largest cost (its entries and keys scattered over the heap: several cache misses each).
//
// A well-formed id (`<Label>:<16 lowercase hex>`, graph/ids.ts) is kept as numbers: its 64 bits of hex and a
// tag for its label. Its lookup reads one bucket and compares numbers; it reads neither the store's array of
// ids nor the stored string, two of the three cache misses of a lookup that compares strings. Any other id
// (tests, hand-written graphs) is kept by its hash and compared as a string.

/** FNV-1a over the UTF-16 code units. */
export function idHash(id: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h;
}

/** Int32 per bucket: the slot + 1 (0 for an empty bucket), then the key: hi, lo and tag (see `key`). */
const WIDTH = 4;

/** Each code unit's value as a lowercase hex digit, or -1 (256 entries: a code unit above is never one). */
const HEX = (() => {
  const table = new Int8Array(256).fill(-1);
  for (let c = 48; c <= 57; c++) table[c] = c - 48;
  for (let c = 97; c <= 102; c++) table[c] = c - 87;
  return table;
})();

/** Set by hex8 when a digit it read was not a lowercase hex digit. */
let notHex = false;

/** The 8 hex digits of `id` from `at` as an int32 (sets `notHex` if any is not a lowercase hex digit). */
function hex8(id: string, at: number): number {
  let v = 0;
  let or = 0;
  for (let i = at; i < at + 8; i++) {
    const c = id.charCodeAt(i);
    const d = c < 256 ? HEX[c] : -1;
    or |= d;
    v = (v << 4) | (d & 15);
  }
  if (or < 0) notHex = true;
  return v;
}

/** Whether `id`'s first `length` code units are letters and `_`, as idLabel accepts. */
function labelShaped(id: string, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  }
  return true;
}

/**
 * The labels of well-formed ids, each with a tag (1 and up, never reused), found by the label's length and
 * first and last letters and confirmed in place (`startsWith`): a lookup cuts nothing out of the id. The
 * labels are a vocabulary's few dozen short strings, so all of this stays in cache.
 */
class LabelTags {
  private readonly labels: string[] = [];
  private readonly byShape = new Map<number, number[]>();

  /** The tag of the label that `id`'s first `length` code units spell, or 0 if none has one yet. */
  find(id: string, length: number): number {
    const tags = this.byShape.get(shapeOf(id, length));
    if (tags !== undefined)
      for (const tag of tags) {
        const label = this.labels[tag - 1];
        if (label.length === length && id.startsWith(label)) return tag;
      }
    return 0;
  }

  /** Gives the label of `id`'s first `length` code units (letters and `_`) a tag, if it has none. */
  assign(id: string, length: number): number {
    const found = this.find(id, length);
    if (found) return found;
    this.labels.push(id.slice(0, length));
    const tag = this.labels.length;
    const shape = shapeOf(id, length);
    const tags = this.byShape.get(shape);
    if (tags) tags.push(tag);
    else this.byShape.set(shape, [tag]);
    return tag;
  }
}

function shapeOf(id: string, length: number): number {
  return (length << 16) | ((id.charCodeAt(0) & 255) << 8) | (id.charCodeAt(length - 1) & 255);
}

/** The key of one id (see `key`). */
interface Key {
  hi: number;
  lo: number;
  tag: number;
}

/**
 * `id`'s key into `out`: for a well-formed id the high and low 32 bits of its hex and its label's tag; for
 * any other id its FNV hash, 0 and tag 0. `assign`: a well-formed id's label without a tag gets one (set);
 * a lookup passes false, and gets false back when a well-formed id's label has no tag (no bucket holds it).
 */
function key(id: string, labels: LabelTags, assign: boolean, out: Key): boolean {
  const colon = id.length - 17;
  if (colon >= 1 && id.charCodeAt(colon) === 58) {
    notHex = false;
    const hi = hex8(id, colon + 1);
    const lo = hex8(id, colon + 9);
    if (!notHex) {
      // Known labels first: the common case reads no label character twice.
      let tag = labels.find(id, colon);
      if (tag === 0 && labelShaped(id, colon)) {
        if (!assign) return false;
        tag = labels.assign(id, colon);
      }
      if (tag !== 0) {
        out.hi = hi;
        out.lo = lo;
        out.tag = tag;
        return true;
      }
    }
  }
  out.hi = idHash(id);
  out.lo = 0;
  out.tag = 0;
  return true;
}

/** A key's home-bucket hash: the hex's bits (SHA-1 output) mixed with the tag, or the string's hash. */
function home(hi: number, lo: number, tag: number): number {
  return tag === 0 ? hi : lo ^ Math.imul(tag, 0x9e3779b1) ^ (hi >>> 11);
}

export class NodeIds {
  /** WIDTH int32 per bucket, side by side: a probe reads one cache line. */
  private table = new Int32Array(WIDTH * 1024);
  private mask = 1023;
  private count = 0;
  private readonly labels = new LabelTags();
  private readonly key: Key = { hi: 0, lo: 0, tag: 0 };

  /** `ids[slot]`: the store's array of node ids by slot (undefined for a dead slot). */
  constructor(private ids: (string | undefined)[]) {}

  get size(): number {
    return this.count;
  }

  /** The slot of `id`, or -1. */
  get(id: string): number {
    const k = this.key;
    if (!key(id, this.labels, false, k)) return -1;
    const { hi, lo, tag } = k;
    const { table, mask } = this;
    for (let i = home(hi, lo, tag) & mask; ; i = (i + 1) & mask) {
      const b = WIDTH * i;
      const entry = table[b];
      if (entry === 0) return -1;
      if (table[b + 1] !== hi || table[b + 2] !== lo || table[b + 3] !== tag) continue;
      // A well-formed id's key is the id itself; a hashed one is compared as a string.
      if (tag !== 0 || this.ids[entry - 1] === id) return entry - 1;
    }
  }

  /** Maps `id` (not present) to `slot`; `ids[slot]` must already hold it. */
  set(id: string, slot: number): void {
    if ((this.count + 1) * 10 > (this.mask + 1) * 7) this.grow();
    const k = this.key;
    key(id, this.labels, true, k);
    this.place(k.hi, k.lo, k.tag, slot);
    this.count++;
  }

  /** Forgets `id` (present at `slot`). */
  delete(id: string, slot: number): void {
    const { table, mask } = this;
    const k = this.key;
    key(id, this.labels, true, k);
    let i = home(k.hi, k.lo, k.tag) & mask;
    while (table[WIDTH * i] !== slot + 1) {
      if (table[WIDTH * i] === 0) return;
      i = (i + 1) & mask;
    }
    // Backward shift: entries after the hole move into it when their home bucket allows it.
    let hole = i;
    for (let j = (i + 1) & mask; table[WIDTH * j] !== 0; j = (j + 1) & mask) {
      const b = WIDTH * j;
      const at = home(table[b + 1], table[b + 2], table[b + 3]) & mask;
      if (((j - at) & mask) >= ((j - hole) & mask)) {
        table.copyWithin(WIDTH * hole, b, b + WIDTH);
        hole = j;
      }
    }
    table[WIDTH * hole] = 0;
    this.count--;
  }

  /** Rebuilds from a new array of ids by slot (after the store renumbered its nodes). */
  rebuild(ids: (string | undefined)[]): void {
    this.ids = ids;
    let capacity = 1024;
    let live = 0;
    for (const id of ids) if (id !== undefined) live++;
    while (live * 10 > capacity * 7) capacity *= 2;
    this.table = new Int32Array(WIDTH * capacity);
    this.mask = capacity - 1;
    this.count = 0;
    const k = this.key;
    ids.forEach((id, slot) => {
      if (id === undefined) return;
      key(id, this.labels, true, k);
      this.place(k.hi, k.lo, k.tag, slot);
      this.count++;
    });
  }

  private place(hi: number, lo: number, tag: number, slot: number): void {
    const { table, mask } = this;
    let i = home(hi, lo, tag) & mask;
    while (table[WIDTH * i] !== 0) i = (i + 1) & mask;
    const b = WIDTH * i;
    table[b] = slot + 1;
    table[b + 1] = hi;
    table[b + 2] = lo;
    table[b + 3] = tag;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length / WIDTH - 1;
    for (let b = 0; b < old.length; b += WIDTH)
      if (old[b] !== 0) this.place(old[b + 1], old[b + 2], old[b + 3], old[b] - 1);
  }
}
