// FROZEN copy of src/graph/truth-expiry.ts as of commit 8f355e3, part of the graphology writer that is the oracle of the
// differential test (issue 38: test/graph/compact-store.differential.test.ts). Only its imports and the names of its
// exports were changed (Oracle*). Never change its behaviour: the compact store must match it.
// Edges true only until a known instant (DECISIONS "Time conditions": an IAM grant under a time condition
// that holds now is unconditional until its date passes, and the analyzer re-judges it then). A source
// writes the instant as the edge's `valid_until` (ISO 8601); the writer notes the earliest one, and at each
// analyzer pass retracts the edges whose instant has passed: the next pass sees a changed graph and the
// paths through them resolve. A report that restates the edge without `valid_until` says it no longer ends.
import type { OracleGraph } from './model.js';

export const VALID_UNTIL = 'valid_until';

/** The instant (epoch ms) an edge's properties say it ends; undefined when they name none (or none that parses). */
export function validUntil(props: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const value = props?.[VALID_UNTIL];
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** The earliest `valid_until` among the edges written: a pass before it has nothing to retract. */
export class OracleTimedTruth {
  next = Infinity;

  note(props: Readonly<Record<string, unknown>> | undefined): void {
    const until = validUntil(props);
    if (until !== undefined && until < this.next) this.next = until;
  }

  /** The edges of the graph that have ended by `now`; notes the next instant among the rest. */
  ended(graph: OracleGraph, now: number): string[] {
    if (now < this.next) return [];
    const out: string[] = [];
    let next = Infinity;
    graph.forEachEdge((key, attrs) => {
      const until = validUntil(attrs.props);
      if (until === undefined) return;
      if (until <= now) out.push(key);
      else if (until < next) next = until;
    });
    this.next = next;
    return out;
  }
}
