// A live graph's node id -> slot, in the graph store's typed-array id table (src/graph/store/node-ids.ts)
// over the live graph's own array of ids: at 1M nodes a JS Map of them was about 60 MB of heap, the table is
// two Int32Arrays off the heap (issue 38).
import { NodeIds } from '../graph/store/node-ids.js';

export class IdSlots {
  private readonly table: NodeIds;

  /** `ids`: the live graph's array of node ids by slot (its entries are written before `set`). */
  constructor(ids: (string | undefined)[], table = new NodeIds(ids)) {
    this.table = table;
  }

  /** A table made over the live graph's array of ids already (SlotView.idTableOver). */
  static adopting(table: NodeIds): IdSlots {
    return new IdSlots([], table);
  }

  get(id: string): number | undefined {
    const slot = this.table.get(id);
    return slot < 0 ? undefined : slot;
  }

  set(id: string, slot: number): void {
    const had = this.table.get(id);
    if (had >= 0) this.table.delete(id, had);
    this.table.set(id, slot);
  }

  delete(id: string): void {
    const slot = this.table.get(id);
    if (slot >= 0) this.table.delete(id, slot);
  }

  /** Every id of `ids` (distinct) at its index: a table sized once, each id hashed once (a full compile's). */
  static ofDistinct(ids: (string | undefined)[]): IdSlots {
    const out = new IdSlots(ids);
    out.table.rebuild(ids);
    return out;
  }

  /** The slots of `ids` that `live` says hold their id: a fork's map made plain over its own array. */
  static of(ids: string[], live: (id: string) => number | undefined): IdSlots {
    const out = new IdSlots(ids);
    for (let slot = 0; slot < ids.length; slot++) {
      const id = ids[slot];
      if (id !== undefined && live(id) === slot) out.table.set(id, slot);
    }
    return out;
  }
}

/** Node slots by id: a Map on a live graph, a layer over the parent's on a fork. */
export interface SlotMap {
  get(id: string): number | undefined;
  set(id: string, slot: number): unknown;
  delete(id: string): unknown;
}

export class LayeredSlots implements SlotMap {
  private readonly own = new Map<string, number>();
  private readonly gone = new Set<string>();
  constructor(private readonly base: SlotMap) {}
  get(id: string): number | undefined {
    const slot = this.own.get(id);
    if (slot !== undefined) return slot;
    return this.gone.has(id) ? undefined : this.base.get(id);
  }
  set(id: string, slot: number): void {
    this.own.set(id, slot);
    this.gone.delete(id);
  }
  delete(id: string): void {
    this.own.delete(id);
    this.gone.add(id);
  }
}
