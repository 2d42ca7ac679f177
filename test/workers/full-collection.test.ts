// The full collection an ingest worker runs after each report (src/workers/full-collection.ts).
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectingAfter, fullCollection } from '../../src/workers/full-collection.js';

describe('full collection on demand', () => {
  it("frees what the thread's heap holds and nothing references", () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf('function');
    const made: { garbage?: { i: number; s: string }[] } = {
      garbage: Array.from({ length: 400_000 }, (_, i) => ({ i, s: `item ${i}` })),
    };
    const held = getHeapStatistics().used_heap_size;
    expect(made.garbage?.length).toBe(400_000);
    made.garbage = undefined;
    collect!();
    // 400,000 records and strings are over 20 MB: all of it is gone, not some of it.
    expect(getHeapStatistics().used_heap_size).toBeLessThan(held - 20 * 1024 * 1024);
  });

  it('keeps what is still referenced', () => {
    const collect = fullCollection()!;
    const kept = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    collect();
    expect(kept.reduce((sum, { i }) => sum + i, 0)).toBe((99_999 * 100_000) / 2);
  });

  it('runs each job, then collects on the next turn', async () => {
    const seen: number[] = [];
    const made: { garbage?: unknown[] } = {};
    const handle = collectingAfter((job: number) => {
      seen.push(job);
      made.garbage = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `item ${i}` }));
    });
    handle(1);
    const held = getHeapStatistics().used_heap_size;
    made.garbage = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([1]);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(held - 20 * 1024 * 1024);
  });
});
