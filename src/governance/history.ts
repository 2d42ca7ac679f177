// The posture history (HISTORY_PATH, or the database governance backend): the one trend store. A point is
// recorded after an analyzer pass (and on the drift timer) whenever the tenant's critical paths, open paths,
// suppressions or risk changed, so the trend survives restarts and, in PostgreSQL, is the replicas' shared
// one; GraphQL `history.trend` serves it. The newest MAX_POINTS are kept. The drift webhook
// (src/governance/drift.ts) is sent from the same comparison.
import type { DocumentStore } from './store.js';

export interface HistoryPoint {
  at: string;
  criticalPaths: number;
  /** absent on points adopted from a 0.1 store's analyzer trend (`adopt`), which did not count them */
  openPaths?: number;
  suppressedPaths?: number;
  /**
   * 100 × (1 − Π (1 − score)) over the open paths (src/paths/history.ts `trendPoint`); absent on points
   * recorded before 0.2, which the trend does not serve.
   */
  riskPct?: number;
}

export const MAX_POINTS = 5_000;

export class PostureHistory {
  constructor(private readonly documents: DocumentStore<HistoryPoint>) {}

  list(tenant: string): HistoryPoint[] {
    return this.documents.load(tenant);
  }

  /** Records a point when it differs from the last one stored; true when it was recorded. */
  async record(tenant: string, point: HistoryPoint): Promise<boolean> {
    // Risk is compared to a hundredth of a percent: a rescore that moves it less is no new point.
    const risk = (p: HistoryPoint) => (p.riskPct === undefined ? undefined : Math.round(p.riskPct * 100));
    const same = (last: HistoryPoint | undefined) =>
      last !== undefined &&
      last.criticalPaths === point.criticalPaths &&
      last.openPaths === point.openPaths &&
      last.suppressedPaths === point.suppressedPaths &&
      risk(last) === risk(point);
    // Most passes change nothing: no write, not even a round trip.
    if (same(this.list(tenant).at(-1))) return false;
    const { result } = await this.documents.mutate(tenant, (current) =>
      same(current.at(-1))
        ? { next: current, result: false }
        : { next: [...current, point].slice(-MAX_POINTS), result: true },
    );
    return result;
  }

  /**
   * Points a store before 0.2 kept beside its path records (the analyzer's own trend, served until then),
   * taken into this history once, when it holds nothing yet: the trend a user saw survives the upgrade.
   */
  async adopt(tenant: string, points: readonly HistoryPoint[]): Promise<number> {
    if (!points.length || this.list(tenant).length) return 0;
    const { result } = await this.documents.mutate(tenant, (current) =>
      current.length
        ? { next: current, result: 0 }
        : { next: points.slice(-MAX_POINTS), result: points.length },
    );
    return result;
  }
}
