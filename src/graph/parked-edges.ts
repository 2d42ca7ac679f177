// The writer's waiting room: an edge whose endpoint has not arrived waits here under its `type|from|to` key,
// indexed by the node ids it waits for, until the write that brings them lands it (writer.ts landParkedFor),
// a complete snapshot retracts it, or it outlives PARKED_TTL.
import type { EnvelopeEdge } from '../ingest/envelope.js';

export interface ParkedEdge {
  edge: EnvelopeEdge;
  receivedAt: number;
}

export class ParkedEdges {
  private readonly parked = new Map<string, ParkedEdge>();
  /** missing node id -> keys of parked edges waiting for it */
  private readonly waitingOn = new Map<string, Set<string>>();

  get size(): number {
    return this.parked.size;
  }

  has(key: string): boolean {
    return this.parked.has(key);
  }

  get(key: string): ParkedEdge | undefined {
    return this.parked.get(key);
  }

  /** Whether an edge waits for node `id`. */
  waitsFor(id: string): boolean {
    return this.waitingOn.has(id);
  }

  /** The keys of the edges waiting for node `id` (a copy: landing them unparks them). */
  keysWaitingFor(id: string): string[] {
    const keys = this.waitingOn.get(id);
    return keys ? [...keys] : [];
  }

  /** Parks `edge` under `key` (replacing what waited under it) until every node of `missing` is there. */
  park(key: string, edge: EnvelopeEdge, receivedAt: number, missing: string[]): void {
    this.unpark(key);
    this.parked.set(key, { edge, receivedAt });
    for (const id of missing) {
      let keys = this.waitingOn.get(id);
      if (!keys) this.waitingOn.set(id, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Takes the edge under `key` out of the waiting room; undefined when none waited there. */
  unpark(key: string): ParkedEdge | undefined {
    const entry = this.parked.get(key);
    if (!entry) return undefined;
    this.parked.delete(key);
    for (const id of [entry.edge.from, entry.edge.to]) {
      const keys = this.waitingOn.get(id);
      if (keys) {
        keys.delete(key);
        if (!keys.size) this.waitingOn.delete(id);
      }
    }
    return entry;
  }

  /** Unparks every edge received more than `ttlMs` before `now`; returns how many. */
  expire(now: number, ttlMs: number): number {
    let expired = 0;
    for (const [key, entry] of this.parked) {
      if (now - entry.receivedAt > ttlMs) {
        this.unpark(key);
        expired++;
      }
    }
    return expired;
  }

  /** Parked edges as they would be journaled, for snapshots. */
  entries(): Iterable<[string, ParkedEdge]> {
    return this.parked.entries();
  }
}
