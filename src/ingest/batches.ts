// Ingest batch progress: a batch is acknowledged once journaled, and complete once every chunk has
// reached the graph. It survives restarts: the engine's snapshot carries the records, and journal replay
// rebuilds those acknowledged after it (each chunk names its batch and the batch's chunk count, and holds
// its nodes and edges). Kept for at least `retainMs` (PARKED_EDGE_TTL) after ingest, and at most
// `capacity` batches: past that, the oldest are forgotten first.
import type { EventEnvelope } from './envelope.js';

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

/** What the tracker reads of a delivered bus record. */
export interface DeliveredChunk {
  batchId: string;
  tenant: string;
  ingestSource: string;
  chunks: number;
  receivedAt: number;
  envelope: Pick<EventEnvelope, 'nodes' | 'edges'>;
}

export const DEFAULT_BATCH_CAPACITY = 100_000;

export class BatchTracker {
  private readonly batches = new Map<string, BatchProgress>();
  /** Batches first seen on delivery (journal replay after a crash): their counts are summed chunk by chunk. */
  private readonly countedOnDelivery = new Set<string>();
  private readonly retainMs: number;
  private readonly capacity: number;

  constructor(options: { retainMs?: number; capacity?: number } = {}) {
    this.retainMs = options.retainMs ?? Infinity;
    this.capacity = options.capacity ?? DEFAULT_BATCH_CAPACITY;
  }

  /** Records a batch when it is acknowledged, with the node and edge counts its receipt names. */
  track(batch: Omit<BatchProgress, 'chunksApplied' | 'completedAt'>): void {
    if (this.batches.has(batch.id)) return;
    this.add({ ...batch, chunksApplied: 0, completedAt: null });
  }

  /**
   * Counts one chunk as applied to the graph. A batch not tracked yet (replayed from the journal after a
   * crash) is tracked here, its nodes and edges summed over its chunks: the receipt's counts.
   */
  delivered(chunk: DeliveredChunk, now: number): void {
    let batch = this.batches.get(chunk.batchId);
    if (!batch) {
      batch = {
        id: chunk.batchId,
        tenant: chunk.tenant,
        source: chunk.ingestSource,
        chunks: chunk.chunks,
        chunksApplied: 0,
        nodes: 0,
        edges: 0,
        receivedAt: chunk.receivedAt,
        completedAt: null,
      };
      this.add(batch);
      this.countedOnDelivery.add(batch.id);
    }
    if (this.countedOnDelivery.has(batch.id)) {
      batch.nodes += chunk.envelope.nodes.length;
      batch.edges += chunk.envelope.edges.length;
    }
    batch.chunksApplied++;
    if (batch.chunksApplied >= batch.chunks) {
      this.countedOnDelivery.delete(batch.id);
      if (batch.completedAt === null) batch.completedAt = now;
    }
  }

  /** Forgets a batch that was never made durable. */
  forget(id: string): void {
    this.batches.delete(id);
    this.countedOnDelivery.delete(id);
  }

  get(id: string): BatchProgress | undefined {
    return this.batches.get(id);
  }

  get size(): number {
    return this.batches.size;
  }

  /** The batches still retained at `now`, for the engine's snapshot. */
  *serialize(now: number): Iterable<BatchProgress> {
    for (const batch of this.batches.values()) {
      if (batch.receivedAt >= now - this.retainMs) yield { ...batch };
    }
  }

  /** Takes back a batch from a snapshot (before the journal after it is replayed). */
  restore(batch: BatchProgress): void {
    this.batches.delete(batch.id);
    this.add({ ...batch });
  }

  private add(batch: BatchProgress): void {
    this.batches.set(batch.id, batch);
    // Batches arrive roughly in ingest order: the first entries are the oldest.
    const horizon = batch.receivedAt - this.retainMs;
    for (const [id, oldest] of this.batches) {
      if (this.batches.size <= this.capacity && oldest.receivedAt >= horizon) break;
      this.batches.delete(id);
      this.countedOnDelivery.delete(id);
    }
  }
}
