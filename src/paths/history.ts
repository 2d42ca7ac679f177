// Path history (spec "History"): open and resolved counts, mean time to resolve and the oldest open path,
// from the path store; and the trend point a pass's open paths make (`trendPoint`), which the posture
// history (src/governance/history.ts, HISTORY_PATH or PostgreSQL: the one trend store) records. `Trend`
// only reads back the points a 0.1 store kept beside its path records, for that history to adopt.
import { isCritical, type PathRecord, type SuppressedCheck } from './path-store.js';

export const TREND_LIMIT = 1_000;

export interface TrendPoint {
  /** Epoch ms of the pass. */
  at: number;
  criticalPaths: number;
  /**
   * Chance, in percent, that at least one open route succeeds if each were an independent chance:
   * 100 × (1 − Π (1 − score)) over the open paths.
   */
  riskPct: number;
}

export class Trend {
  private points: TrendPoint[] = [];

  add(point: TrendPoint): void {
    this.points.push(point);
    if (this.points.length > TREND_LIMIT) this.points.splice(0, this.points.length - TREND_LIMIT);
  }

  /** A point read back from a snapshot or the path log (in the order they were written). */
  restore(point: TrendPoint): void {
    if (this.points.length && this.points.at(-1)!.at > point.at) return;
    if (this.points.length && this.points.at(-1)!.at === point.at) this.points.pop();
    this.add(point);
  }

  list(): readonly TrendPoint[] {
    return this.points;
  }
}

/** The pass's trend point from its open paths; critical as everywhere else (`isCritical`: P1, not suppressed). */
export function trendPoint(at: number, open: Iterable<PathRecord>, suppressed?: SuppressedCheck): TrendPoint {
  let critical = 0;
  let miss = 1;
  for (const r of open) {
    if (isCritical(r, suppressed)) critical++;
    miss *= 1 - r.score;
  }
  return { at, criticalPaths: critical, riskPct: 100 * (1 - miss) };
}

export interface History {
  openPaths: number;
  resolvedPaths: number;
  /**
   * Mean seconds from a path's first_seen to its resolution, over resolved paths (the spec: "resolved minus
   * first_seen"; a path that came back is counted from when it was first seen, not from its reopening);
   * null if none.
   */
  mttrSeconds: number | null;
  /** Epoch ms the longest-open path has been open since; null when nothing is open. */
  oldestOpenSince: number | null;
}

export function historyOf(records: Iterable<PathRecord>): History {
  let open = 0;
  let resolved = 0;
  let repairTotal = 0;
  let oldest: number | null = null;
  for (const r of records) {
    if (r.state === 'open') {
      open++;
      if (oldest === null || r.openedAt < oldest) oldest = r.openedAt;
    } else {
      resolved++;
      repairTotal += Math.max(0, (r.resolvedAt ?? r.firstSeen) - r.firstSeen);
    }
  }
  return {
    openPaths: open,
    resolvedPaths: resolved,
    mttrSeconds: resolved ? repairTotal / resolved / 1000 : null,
    oldestOpenSince: oldest,
  };
}
