// The posture history (HISTORY_PATH): one point per analyzer pass that changed the tenant's critical
// paths, open paths or their suppressions, so a trend of critical paths over time survives restarts. The
// newest MAX_POINTS are kept. The drift webhook (src/governance/drift.ts) is sent from the same comparison.
import type { DocumentStore } from './store.js';

export interface HistoryPoint {
  at: string;
  criticalPaths: number;
  openPaths: number;
  suppressedPaths: number;
}

export const MAX_POINTS = 5_000;

export class PostureHistory {
  constructor(private readonly documents: DocumentStore<HistoryPoint>) {}

  list(tenant: string): HistoryPoint[] {
    return this.documents.load(tenant);
  }

  /** Records a point when it differs from the last one stored; true when it was recorded. */
  async record(tenant: string, point: HistoryPoint): Promise<boolean> {
    const same = (last: HistoryPoint | undefined) =>
      last !== undefined &&
      last.criticalPaths === point.criticalPaths &&
      last.openPaths === point.openPaths &&
      last.suppressedPaths === point.suppressedPaths;
    // Most passes change nothing: no write, not even a round trip.
    if (same(this.list(tenant).at(-1))) return false;
    const { result } = await this.documents.mutate(tenant, (current) =>
      same(current.at(-1))
        ? { next: current, result: false }
        : { next: [...current, point].slice(-MAX_POINTS), result: true },
    );
    return result;
  }
}
