// The scope ledger as it was before edges got numbered slots (src/graph/scope-ledger.ts, commit 2b52a02): one
// Set per scope and one Map of claim counts, every item a string. The differential test drives both with the
// same random operations; what they retract and store must agree on every live item.
import type { ScopeState } from '../../src/graph/scope-ledger.js';

export class ReferenceScopeLedger {
  /** scope -> items its last complete report held */
  private readonly held = new Map<string, Set<string>>();
  /** scope -> items of the complete report now arriving (its chunks) */
  private readonly arriving = new Map<string, Set<string>>();
  /** item -> number of scopes whose last complete report held it */
  private readonly claims = new Map<string, number>();
  /** claimed items that a partial report also asserted: they outlive their scopes' claims */
  private readonly asserted = new Set<string>();

  /** Notes an item written by a complete report of `scope`. `existed`: it was in the graph before. */
  claim(scope: string, item: string, existed: boolean): void {
    let items = this.arriving.get(scope);
    if (!items) this.arriving.set(scope, (items = new Set()));
    // An item that was already there and nobody claimed came from a partial report.
    if (existed && !this.claims.has(item) && !items.has(item) && !this.held.get(scope)?.has(item))
      this.asserted.add(item);
    items.add(item);
  }

  /** Notes an item written by a partial report. */
  assert(item: string): void {
    if (this.claims.has(item)) this.asserted.add(item);
  }

  /** Ends the complete report of `scope`; returns the items to retract. */
  complete(scope: string): string[] {
    const next = this.arriving.get(scope) ?? new Set<string>();
    this.arriving.delete(scope);
    const previous = this.held.get(scope) ?? new Set<string>();
    for (const item of next) if (!previous.has(item)) this.claims.set(item, (this.claims.get(item) ?? 0) + 1);
    const retract: string[] = [];
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
    return retract;
  }

  /** Gives an item a new key (a parked edge that landed), keeping every claim and assertion on it. */
  rename(from: string, to: string): void {
    let held = false;
    for (const items of this.held.values()) {
      if (!items.delete(from)) continue;
      items.add(to);
      held = true;
    }
    for (const items of this.arriving.values()) if (items.delete(from)) items.add(to);
    if (this.asserted.delete(from)) this.asserted.add(to);
    if (!held && !this.claims.has(from)) return;
    this.claims.delete(from);
    // Both keys may have been held by one scope: count the scopes anew.
    let count = 0;
    for (const items of this.held.values()) if (items.has(to)) count++;
    if (count) this.claims.set(to, count);
    else this.claims.delete(to);
  }

  /** Forgets an item that left the graph another way (pruned, or dropped with its node). */
  forget(item: string): void {
    if (!this.claims.has(item)) return;
    this.claims.delete(item);
    this.asserted.delete(item);
    for (const items of this.held.values()) items.delete(item);
  }

  get scopeCount(): number {
    return this.held.size;
  }

  /** The ledger as stored, each item as `stored` names it (items it maps to undefined are left out). */
  serialize(stored: (item: string) => string | undefined = (item) => item): ScopeState {
    const names = (items: Iterable<string>) => {
      const out: string[] = [];
      for (const item of items) {
        const name = stored(item);
        if (name !== undefined) out.push(name);
      }
      return out;
    };
    return {
      scopes: [...this.held].map(([scope, items]) => [scope, names(items)]),
      asserted: names(this.asserted),
    };
  }

  /** Restores a serialized ledger, each stored name mapped back to an item key by `item`. */
  restore(state: ScopeState, item: (stored: string) => string = (stored) => stored): void {
    for (const [scope, stored] of state.scopes) {
      const items = new Set(stored.map(item));
      this.held.set(scope, items);
      for (const key of items) this.claims.set(key, (this.claims.get(key) ?? 0) + 1);
    }
    for (const stored of state.asserted) this.asserted.add(item(stored));
  }
}
