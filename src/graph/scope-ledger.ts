// Who vouches for what, for snapshot sweeps (spec "Snapshot rules"). A complete report of a scope claims
// every node and edge it carries. When the next complete report of the same scope omits an item, the
// scope's claim lapses; an item no scope claims any more, and that no partial report ever asserted, is
// retracted. Items only partial reports carry are never swept (GRAPH_TTL ages them out instead).
// Item keys: a node id, or an edge key `type|from|to`.

export interface ScopeState {
  scopes: [string, string[]][];
  asserted: string[];
}

export class ScopeLedger {
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

  serialize(): ScopeState {
    return {
      scopes: [...this.held].map(([scope, items]) => [scope, [...items]]),
      asserted: [...this.asserted],
    };
  }

  restore(state: ScopeState): void {
    for (const [scope, items] of state.scopes) {
      this.held.set(scope, new Set(items));
      for (const item of items) this.claims.set(item, (this.claims.get(item) ?? 0) + 1);
    }
    for (const item of state.asserted) this.asserted.add(item);
  }
}
