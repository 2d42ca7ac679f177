// Path history from the path store: counts, mean time to resolve, oldest open, one trend point per pass,
// bounded, and carried through the store's serialization (snapshot and path log) into a new store.
import { describe, expect, it } from 'vitest';
import { historyOf, trendPoint } from '../../src/paths/history.js';
import { PathStore } from '../../src/paths/path-store.js';
import { bestPaths } from '../../src/analysis/best-paths.js';
import { compile, estate } from './small-estate.js';

const thresholds = { p1: 0.7, p2: 0.4 };
const graphWith = (p: number) =>
  compile(
    estate({ a: { start: true }, b: { target: true }, c: { target: true } }, [
      ['a', 'b', p],
      ['a', 'c', 0.5],
    ]),
  );

describe('history', () => {
  it('counts, MTTR and oldest open from the path store', () => {
    const store = new PathStore(thresholds);
    const open = graphWith(0.8);
    store.applyPass(open, bestPaths(open), 1_000);
    store.applyPass(open, bestPaths(open), 61_000);
    const closed = compile(
      estate({ a: { start: true }, b: { target: true }, c: { target: true } }, [['a', 'c', 0.5]]),
    );
    store.applyPass(closed, bestPaths(closed), 121_000);
    expect(historyOf(store.all())).toEqual({
      openPaths: 1,
      resolvedPaths: 1,
      mttrSeconds: 120,
      oldestOpenSince: 1_000,
    });
  });

  it('the trend point of a pass: critical as everywhere, risk 100 × (1 − Π (1 − score))', () => {
    const store = new PathStore(thresholds);
    const open = graphWith(0.8);
    store.applyPass(open, bestPaths(open), 1_000);
    // 1 − (1 − 0.8)(1 − 0.5) = 0.9 while both are open.
    const point = trendPoint(5_000, store.open());
    expect([point.at, point.criticalPaths, Math.round(point.riskPct * 1e9) / 1e9]).toEqual([5_000, 1, 90]);
  });

  it("writes no trend beside the path records any more; reads a 0.1 store's back for adoption", () => {
    const store = new PathStore(thresholds);
    const g = graphWith(0.8);
    store.applyPass(g, bestPaths(g), 1_000);
    const lines = JSON.parse(JSON.stringify([...store.serialize()])) as object[];
    expect(lines.some((l) => 'trendPoint' in l)).toBe(false);
    expect(store.takeChanges().some((l) => 'trendPoint' in l)).toBe(false);
    // A 0.1 snapshot's lines: records and trend points.
    const copy = new PathStore(thresholds);
    for (const line of lines) copy.restore(line as never);
    copy.restore({ trendPoint: { at: 1_000, criticalPaths: 1, riskPct: 90 } });
    copy.restore({ trendPoint: { at: 2_000, criticalPaths: 0, riskPct: 50 } });
    expect(copy.legacyTrend.list()).toEqual([
      { at: 1_000, criticalPaths: 1, riskPct: 90 },
      { at: 2_000, criticalPaths: 0, riskPct: 50 },
    ]);
  });

  it('measures MTTR as resolved minus first_seen, not from the last reopening (the spec)', () => {
    const store = new PathStore(thresholds);
    const open = graphWith(0.8);
    const closed = compile(
      estate({ a: { start: true }, b: { target: true }, c: { target: true } }, [['a', 'c', 0.5]]),
    );
    store.applyPass(open, bestPaths(open), 1_000); // a→b first seen
    store.applyPass(closed, bestPaths(closed), 61_000); // resolved
    store.applyPass(open, bestPaths(open), 121_000); // reopened
    store.applyPass(closed, bestPaths(closed), 181_000); // resolved again
    const resolved = [...store.all()].filter((r) => r.state === 'resolved');
    expect(resolved.map((r) => [r.firstSeen, r.openedAt, r.resolvedAt, r.reopens])).toEqual([
      [1_000, 121_000, 181_000, 1],
    ]);
    // 180 s from first_seen; measured from the reopening it would have been 60 s.
    expect(historyOf(store.all()).mttrSeconds).toBe(180);
  });
});
