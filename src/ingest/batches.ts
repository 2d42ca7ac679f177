// Ingest batch progress: a batch is acknowledged once journaled, and complete once every chunk has
// reached the graph. Bounded: the oldest entries are forgotten first.
export interface BatchProgress {
  id: string;
  tenant: string;
  source: string;
  chunks: number;
  chunksApplied: number;
  nodes: number;
  edges: number;
  receivedAt: number;
  completedAt: number | null;
}

export class BatchTracker {
  private readonly batches = new Map<string, BatchProgress>();

  constructor(private readonly capacity = 10_000) {}

  /** Records a batch when it is acknowledged (or first seen on journal replay). */
  track(batch: Omit<BatchProgress, 'chunksApplied' | 'completedAt'>): void {
    if (this.batches.has(batch.id)) return;
    this.batches.set(batch.id, { ...batch, chunksApplied: 0, completedAt: null });
    if (this.batches.size > this.capacity) {
      const oldest = this.batches.keys().next().value;
      if (oldest !== undefined) this.batches.delete(oldest);
    }
  }

  /** Counts one chunk as applied to the graph. */
  applied(id: string, now: number): void {
    const batch = this.batches.get(id);
    if (!batch) return;
    batch.chunksApplied++;
    if (batch.chunksApplied >= batch.chunks && batch.completedAt === null) batch.completedAt = now;
  }

  /** Forgets a batch that was never made durable. */
  forget(id: string): void {
    this.batches.delete(id);
  }

  get(id: string): BatchProgress | undefined {
    return this.batches.get(id);
  }
}
