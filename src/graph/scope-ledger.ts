// Who vouches for what, for snapshot sweeps (spec "Snapshot rules"). A complete report of a scope claims
// every node and edge it carries. When the next complete report of the same scope omits an item, the
// scope's claim lapses; an item no scope claims any more, and that no partial report ever asserted, is
// retracted. Items only partial reports carry are never swept (GRAPH_TTL ages them out instead).
// Item keys are the writer's (src/graph/writer.ts): a node id, the graph's key of an edge in the graph, or
// `type|from|to` for an edge parked until an endpoint arrives (renamed to its graph key when it lands).
// Snapshots store every edge as `type|from|to` (serialize/restore translate), so the format is unchanged.
//
// An edge in the graph is kept by number: its graph key is the writer's counter, so the key's number indexes
// typed arrays (claim counts, the arrival that last claimed it; EdgeSlots) and each scope lists its edges in
// a growable Int32Array. Claiming the 102,000 edges of a 50,000-object cluster dump then hashes nothing; as
// strings in a Set per scope and a Map of counts they were about a fifth of its graph write (docs/perf.md,
// "Tenth session"). Node ids and parked edges stay strings in Sets and Maps. Keys are never reused, so a
// number a list still holds after its edge left the graph reads as unclaimed from then on.
import { Int32List } from './store/int32-list.js';

export interface ScopeState {
  scopes: [string, string[]][];
  asserted: string[];
}

/**
 * Whether an item is the graph key of an edge (the writer's counter: digits only; node ids start with their
 * label, parked edges are `type|from|to`).
 */
export function isGraphEdgeKey(item: string): boolean {
  const c = item.charCodeAt(0);
  return c >= 48 && c <= 57;
}

/** The number of an edge's graph key, or -1 for any other item. */
function edgeNumber(item: string): number {
  return isGraphEdgeKey(item) ? Number(item) : -1;
}

/**
 * Per-edge counters by edge number, in pages of 2^pageBits edges: a page is allocated when one of its edges
 * is first claimed and freed when none of them is claimed or arriving any more. Graph keys only grow (the
 * writer's counter), so flat arrays would grow with every edge ever created since the start; pages follow the
 * edges alive. An edge of a freed page reads as unclaimed, which it is: keys are never reused.
 */
class EdgeSlots {
  /** Per page: claim counts, then arrival tokens, then scratch marks, 2^pageBits each. */
  private pages: (Int32Array | undefined)[] = [];
  /** Per page: how many of its edges are claimed or arriving. */
  private alive: number[] = [];
  private readonly size: number;
  private readonly mask: number;

  constructor(private readonly pageBits: number) {
    this.size = 1 << pageBits;
    this.mask = this.size - 1;
  }

  get allocatedPages(): number {
    let count = 0;
    for (const page of this.pages) if (page) count++;
    return count;
  }

  claims(n: number): number {
    const page = this.pages[n >>> this.pageBits];
    return page ? page[n & this.mask] : 0;
  }

  arrivedBy(n: number): number {
    const page = this.pages[n >>> this.pageBits];
    return page ? page[this.size + (n & this.mask)] : 0;
  }

  mark(n: number): number {
    const page = this.pages[n >>> this.pageBits];
    return page ? page[2 * this.size + (n & this.mask)] : 0;
  }

  setMark(n: number, mark: number): void {
    const page = this.pages[n >>> this.pageBits];
    if (page) page[2 * this.size + (n & this.mask)] = mark;
  }

  setClaims(n: number, count: number): void {
    this.set(n, 0, count);
  }

  setArrivedBy(n: number, token: number): void {
    this.set(n, this.size, token);
  }

  private set(n: number, offset: number, value: number): void {
    const index = n >>> this.pageBits;
    const i = n & this.mask;
    let page = this.pages[index];
    if (!page) {
      if (value === 0) return;
      while (this.pages.length <= index) {
        this.pages.push(undefined);
        this.alive.push(0);
      }
      page = this.pages[index] = new Int32Array(3 * this.size);
    }
    const before = page[i] !== 0 || page[this.size + i] !== 0;
    page[offset + i] = value;
    const after = page[i] !== 0 || page[this.size + i] !== 0;
    if (before === after) return;
    this.alive[index] += after ? 1 : -1;
    if (this.alive[index] === 0) this.pages[index] = undefined;
  }
}

/** The complete report of a scope now arriving, chunk by chunk. */
interface Arrival {
  /** Marks the edges this arrival claimed in `arrivedBy` (unique among arrivals). */
  readonly token: number;
  readonly items: Set<string>;
  readonly edges: Int32List;
  /**
   * Edges this arrival claimed whose mark another arrival, claiming them after, took over: only when two
   * complete reports arrive at once and carry the same edge.
   */
  overtaken?: Set<number>;
}

const NO_ITEMS: ReadonlySet<string> = new Set();
const NO_EDGES = new Int32List();

export class ScopeLedger {
  /** scope -> node ids and parked edges its last complete report held */
  private readonly held = new Map<string, Set<string>>();
  /** scope -> the edges in the graph its last complete report held, each once */
  private readonly heldEdges = new Map<string, Int32List>();
  /** scope -> the complete report now arriving */
  private readonly arriving = new Map<string, Arrival>();
  /** arrival token -> the arrival, while it arrives */
  private readonly arrivals = new Map<number, Arrival>();
  private nextToken = 1;
  /** The arrival the last claim went to: a report's items come one after another. */
  private lastScope: string | undefined;
  private lastArrival: Arrival | undefined;
  /** string item -> number of scopes whose last complete report held it */
  private readonly claims = new Map<string, number>();
  /** edge number -> number of scopes whose last complete report held it, the arrival that last claimed it */
  private readonly edges: EdgeSlots;
  /** claimed items that a partial report also asserted: they outlive their scopes' claims */
  private readonly asserted = new Set<string>();
  private readonly assertedEdges = new Set<number>();

  /** `pageBits`: 2^pageBits edges per page of counters (tests make pages small to see them freed). */
  constructor(options: { pageBits?: number } = {}) {
    this.edges = new EdgeSlots(options.pageBits ?? 12);
  }

  /** Pages of edge counters allocated now (tests). */
  get edgePages(): number {
    return this.edges.allocatedPages;
  }

  /** Notes an item written by a complete report of `scope`. `existed`: it was in the graph before. */
  claim(scope: string, item: string, existed: boolean): void {
    let arrival = this.lastScope === scope ? this.lastArrival : this.arriving.get(scope);
    if (!arrival) {
      arrival = { token: this.nextToken++, items: new Set(), edges: new Int32List() };
      this.arriving.set(scope, arrival);
      this.arrivals.set(arrival.token, arrival);
    }
    this.lastScope = scope;
    this.lastArrival = arrival;
    const n = edgeNumber(item);
    if (n < 0) {
      const items = arrival.items;
      // An item that was already there and nobody claimed came from a partial report.
      if (existed && !this.claims.has(item) && !items.has(item) && !this.held.get(scope)?.has(item))
        this.asserted.add(item);
      items.add(item);
      return;
    }
    const by = this.edges.arrivedBy(n);
    if (by === arrival.token || arrival.overtaken?.has(n)) return;
    // Claimed by a scope's last report means counted in the claims: this scope's included.
    if (existed && this.edges.claims(n) === 0) this.assertedEdges.add(n);
    if (by !== 0) {
      const other = this.arrivals.get(by);
      if (other) (other.overtaken ??= new Set()).add(n);
    }
    this.edges.setArrivedBy(n, arrival.token);
    arrival.edges.push(n);
  }

  /** Notes an item written by a partial report. */
  assert(item: string): void {
    const n = edgeNumber(item);
    if (n < 0) {
      if (this.claims.has(item)) this.asserted.add(item);
    } else if (this.edges.claims(n) > 0) this.assertedEdges.add(n);
  }

  /** Ends the complete report of `scope`; returns the items to retract. */
  complete(scope: string): string[] {
    const arrival = this.arriving.get(scope);
    this.arriving.delete(scope);
    if (arrival) this.arrivals.delete(arrival.token);
    this.lastScope = this.lastArrival = undefined;
    const retract: string[] = [];

    const next = arrival?.items ?? new Set<string>();
    const previous = this.held.get(scope) ?? NO_ITEMS;
    for (const item of next) if (!previous.has(item)) this.claims.set(item, (this.claims.get(item) ?? 0) + 1);
    for (const item of previous) {
      if (next.has(item)) continue;
      const left = (this.claims.get(item) ?? 1) - 1;
      if (left > 0) {
        this.claims.set(item, left);
        continue;
      }
      this.claims.delete(item);
      if (this.asserted.delete(item)) continue;
      retract.push(item);
    }
    this.held.set(scope, next);

    // Every edge the arrival claimed is in its list once, overtaken or not.
    const nextEdges = arrival?.edges ?? new Int32List();
    const before = this.heldEdges.get(scope) ?? NO_EDGES;
    const edges = this.edges;
    const arrived = (n: number) =>
      arrival !== undefined && (edges.arrivedBy(n) === arrival.token || arrival.overtaken?.has(n) === true);
    // Marks what this scope held before (a landed parked edge may be listed twice; a forgotten edge's page
    // may be gone, and it is unclaimed either way).
    const mark = this.nextToken++;
    for (let i = 0; i < before.length; i++) edges.setMark(before.items[i], mark);
    for (let i = 0; i < nextEdges.length; i++) {
      const n = nextEdges.items[i];
      if (edges.mark(n) !== mark) edges.setClaims(n, edges.claims(n) + 1);
    }
    for (let i = 0; i < before.length; i++) {
      const n = before.items[i];
      // Once each; and a forgotten edge (no claim left) is no longer this scope's to retract.
      const claims = edges.claims(n);
      if (edges.mark(n) !== mark || arrived(n) || claims === 0) continue;
      edges.setMark(n, 0);
      edges.setClaims(n, claims - 1);
      if (claims > 1 || this.assertedEdges.delete(n)) continue;
      retract.push(String(n));
    }
    if (arrival)
      for (let i = 0; i < arrival.edges.length; i++) {
        const n = arrival.edges.items[i];
        if (edges.arrivedBy(n) === arrival.token) edges.setArrivedBy(n, 0);
      }
    this.heldEdges.set(scope, nextEdges);
    return retract;
  }

  /** Gives an item a new key (a parked edge that landed), keeping every claim and assertion on it. */
  rename(from: string, to: string): void {
    const n = edgeNumber(to);
    if (n < 0 || edgeNumber(from) >= 0) {
      this.renameString(from, to);
      return;
    }
    const holders: string[] = [];
    for (const [scope, items] of this.held) if (items.delete(from)) holders.push(scope);
    const arriving: Arrival[] = [];
    for (const arrival of this.arriving.values()) if (arrival.items.delete(from)) arriving.push(arrival);
    const asserted = this.asserted.delete(from);
    this.claims.delete(from);
    if (!holders.length && !arriving.length && !asserted) return;
    // The landed edge may be one a scope already holds (rare: both keys held by one scope): count anew.
    const already = this.edges.claims(n) > 0 ? this.holdersOf(n) : new Set<string>();
    for (const scope of holders) {
      if (already.has(scope)) continue;
      this.heldEdges.get(scope)!.push(n);
      this.edges.setClaims(n, this.edges.claims(n) + 1);
    }
    for (const arrival of arriving) {
      const by = this.edges.arrivedBy(n);
      if (by === arrival.token || arrival.overtaken?.has(n)) continue;
      if (by !== 0) {
        const other = this.arrivals.get(by);
        if (other) (other.overtaken ??= new Set()).add(n);
      }
      this.edges.setArrivedBy(n, arrival.token);
      arrival.edges.push(n);
    }
    if (asserted) this.assertedEdges.add(n);
  }

  /** rename() between two string keys (the writer renames only onto graph keys; kept for any other caller). */
  private renameString(from: string, to: string): void {
    let held = false;
    for (const items of this.held.values()) {
      if (!items.delete(from)) continue;
      items.add(to);
      held = true;
    }
    for (const arrival of this.arriving.values()) if (arrival.items.delete(from)) arrival.items.add(to);
    if (this.asserted.delete(from)) this.asserted.add(to);
    if (!held && !this.claims.has(from)) return;
    this.claims.delete(from);
    let count = 0;
    for (const items of this.held.values()) if (items.has(to)) count++;
    if (count) this.claims.set(to, count);
    else this.claims.delete(to);
  }

  /** Forgets an item that left the graph another way (pruned, or dropped with its node). */
  forget(item: string): void {
    const n = edgeNumber(item);
    if (n >= 0) {
      // The scopes' lists keep the number; complete() skips an edge with no claim left.
      if (this.edges.claims(n) === 0) return;
      this.edges.setClaims(n, 0);
      this.assertedEdges.delete(n);
      return;
    }
    if (!this.claims.has(item)) return;
    this.claims.delete(item);
    this.asserted.delete(item);
    for (const items of this.held.values()) items.delete(item);
  }

  /** How many scopes completed a report (held and heldEdges have the same keys). */
  get scopeCount(): number {
    return this.held.size;
  }

  /** The ledger as stored, each item as `stored` names it (items it maps to undefined are left out). */
  serialize(stored: (item: string) => string | undefined = (item) => item): ScopeState {
    const names = (items: Iterable<string>, out: string[] = []) => {
      for (const item of items) {
        const name = stored(item);
        if (name !== undefined) out.push(name);
      }
      return out;
    };
    return {
      scopes: [...this.held].map(([scope, items]) => [scope, names(this.liveEdges(scope), names(items))]),
      asserted: names(
        [...this.assertedEdges].map((n) => String(n)),
        names(this.asserted),
      ),
    };
  }

  /** Restores a serialized ledger, each stored name mapped back to an item key by `item`. */
  restore(state: ScopeState, item: (stored: string) => string = (stored) => stored): void {
    for (const [scope, stored] of state.scopes) {
      const keys = new Set(stored.map(item));
      const strings = new Set<string>();
      const edges = new Int32List();
      for (const key of keys) {
        const n = edgeNumber(key);
        if (n < 0) {
          strings.add(key);
          this.claims.set(key, (this.claims.get(key) ?? 0) + 1);
        } else {
          edges.push(n);
          this.edges.setClaims(n, this.edges.claims(n) + 1);
        }
      }
      this.held.set(scope, strings);
      this.heldEdges.set(scope, edges);
    }
    for (const stored of state.asserted) {
      const key = item(stored);
      const n = edgeNumber(key);
      if (n < 0) this.asserted.add(key);
      else this.assertedEdges.add(n);
    }
  }

  /** The edges `scope` holds that still have a claim (forgotten ones are skipped), as graph keys, each once. */
  private liveEdges(scope: string): string[] {
    const list = this.heldEdges.get(scope) ?? NO_EDGES;
    const mark = this.nextToken++;
    const out: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const n = list.items[i];
      if (this.edges.claims(n) === 0 || this.edges.mark(n) === mark) continue;
      this.edges.setMark(n, mark);
      out.push(String(n));
    }
    return out;
  }

  /** The scopes whose lists hold edge `n` (a scan of every list: only for the rare rename onto a held edge). */
  private holdersOf(n: number): Set<string> {
    const holders = new Set<string>();
    for (const [scope, list] of this.heldEdges)
      for (let i = 0; i < list.length; i++)
        if (list.items[i] === n) {
          holders.add(scope);
          break;
        }
    return holders;
  }
}
