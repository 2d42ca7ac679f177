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
  private readonly cache = new Map<string, HistoryPoint[]>();

  constructor(private readonly documents: DocumentStore<HistoryPoint>) {}

  list(tenant: string): HistoryPoint[] {
    let points = this.cache.get(tenant);
    if (!points) {
      points = this.documents.load(tenant);
      this.cache.set(tenant, points);
    }
    return points;
  }

  /** Records a point when it differs from the last one; true when it was recorded. */
  record(tenant: string, point: HistoryPoint): boolean {
    const last = this.list(tenant).at(-1);
    if (
      last &&
      last.criticalPaths === point.criticalPaths &&
      last.openPaths === point.openPaths &&
      last.suppressedPaths === point.suppressedPaths
    )
      return false;
    const next = [...this.list(tenant), point].slice(-MAX_POINTS);
    this.documents.save(tenant, next);
    this.cache.set(tenant, next);
    return true;
  }
}
