// Path history from the path store: counts, mean time to resolve, oldest open, one trend point per pass,
// bounded, and carried through the store's serialization (snapshot and path log) into a new store.
import { describe, expect, it } from 'vitest';
import { historyOf, TREND_LIMIT } from '../../src/paths/history.js';
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
  it('counts, MTTR, oldest open and a trend point per pass, kept across a restore', () => {
    const store = new PathStore(thresholds);
    const open = graphWith(0.8);
    store.applyPass(open, bestPaths(open), 1_000);
    store.applyPass(open, bestPaths(open), 61_000);
    const closed = compile(
      estate({ a: { start: true }, b: { target: true }, c: { target: true } }, [['a', 'c', 0.5]]),
    );
    store.applyPass(closed, bestPaths(closed), 121_000);
    const history = historyOf(store.all(), store.trend.list());
    expect(history).toMatchObject({
      openPaths: 1,
      resolvedPaths: 1,
      mttrSeconds: 120,
      oldestOpenSince: 1_000,
    });
    // 1 − (1 − 0.8)(1 − 0.5) = 0.9 while both are open; 0.5 after.
    expect(history.trend.map((t) => [t.at, t.criticalPaths, Math.round(t.riskPct * 1e9) / 1e9])).toEqual([
      [1_000, 1, 90],
      [61_000, 1, 90],
      [121_000, 0, 50],
    ]);
    // The snapshot's lines restore into a new store; the path log's changes carry each pass's point.
    const copy = new PathStore(thresholds);
    for (const line of JSON.parse(JSON.stringify([...store.serialize()]))) copy.restore(line);
    expect(copy.trend.list()).toEqual(store.trend.list());
    const changes = store.takeChanges() as { trendPoint?: unknown }[];
    expect(changes.filter((c) => c.trendPoint)).toHaveLength(3);
    expect(store.takeChanges()).toEqual([]);
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
    expect(historyOf(store.all(), store.trend.list()).mttrSeconds).toBe(180);
  });

  it('keeps the last TREND_LIMIT points', () => {
    const store = new PathStore(thresholds);
    const g = graphWith(0.8);
    const found = bestPaths(g);
    for (let i = 0; i < TREND_LIMIT + 5; i++) store.applyPass(g, found, i);
    expect(store.trend.list()).toHaveLength(TREND_LIMIT);
    expect(store.trend.list()[0].at).toBe(5);
  });
});
