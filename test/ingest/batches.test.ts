// Batch progress: counts from the receipt, or summed chunk by chunk when a batch is first seen on journal
// replay; kept for the retention period and within the capacity; through a snapshot and back.
import { describe, expect, it } from 'vitest';
import { BatchTracker, type DeliveredChunk } from '../../src/ingest/batches.js';

const chunk = (batchId: string, nodes: number, edges: number, extra: Partial<DeliveredChunk> = {}) => ({
  batchId,
  tenant: 'default',
  ingestSource: 'events',
  chunks: 2,
  receivedAt: 1_000,
  envelope: { nodes: new Array(nodes).fill({}), edges: new Array(edges).fill({}) },
  ...extra,
});

describe('BatchTracker', () => {
  it('keeps the receipt counts of a tracked batch and completes it on its last chunk', () => {
    const tracker = new BatchTracker();
    tracker.track({
      id: 'b-1',
      tenant: 'default',
      source: 'events',
      chunks: 2,
      nodes: 7,
      edges: 6,
      receivedAt: 1_000,
    });
    tracker.delivered(chunk('b-1', 4, 0), 2_000);
    expect(tracker.get('b-1')).toMatchObject({ nodes: 7, edges: 6, chunksApplied: 1, completedAt: null });
    tracker.delivered(chunk('b-1', 3, 6), 3_000);
    expect(tracker.get('b-1')).toMatchObject({ nodes: 7, edges: 6, chunksApplied: 2, completedAt: 3_000 });
  });

  it('sums the counts of a batch first seen on replay over its chunks', () => {
    const tracker = new BatchTracker();
    tracker.delivered(chunk('b-2', 4, 0), 2_000);
    tracker.delivered(chunk('b-2', 3, 6), 3_000);
    expect(tracker.get('b-2')).toEqual({
      id: 'b-2',
      tenant: 'default',
      source: 'events',
      chunks: 2,
      chunksApplied: 2,
      nodes: 7,
      edges: 6,
      receivedAt: 1_000,
      completedAt: 3_000,
    });
  });

  it('continues a half-applied batch restored from a snapshot without counting it twice', () => {
    const before = new BatchTracker();
    before.track({ id: 'b-3', tenant: 't', source: 'k8s', chunks: 2, nodes: 7, edges: 6, receivedAt: 1_000 });
    before.delivered(chunk('b-3', 7, 0), 2_000);
    const after = new BatchTracker();
    for (const b of before.serialize(2_000)) after.restore(b);
    after.delivered(chunk('b-3', 0, 6), 3_000);
    expect(after.get('b-3')).toMatchObject({ nodes: 7, edges: 6, chunksApplied: 2, completedAt: 3_000 });
  });

  it('forgets batches past the retention period, and the oldest past the capacity', () => {
    const tracker = new BatchTracker({ retainMs: 1_000, capacity: 3 });
    const track = (id: string, receivedAt: number) =>
      tracker.track({ id, tenant: 't', source: 'events', chunks: 1, nodes: 1, edges: 0, receivedAt });
    track('old', 0);
    track('a', 500);
    expect([...tracker.serialize(1_200)].map((b) => b.id)).toEqual(['a']);
    track('b', 1_200);
    expect(tracker.get('old')).toBeUndefined();
    track('c', 1_300);
    track('d', 1_400);
    expect(tracker.size).toBe(3);
    expect(tracker.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].every((id) => tracker.get(id))).toBe(true);
  });
});
