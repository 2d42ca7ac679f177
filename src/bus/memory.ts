// The embedded bus: publish journals a batch durably, then delivers it in-process, in order, to the one
// consumer. On consume, everything journaled after `afterSeq` (the last snapshot) is replayed first.
import type { Log } from '../log/logger.js';
import type { Bus, BusHandler, BusRecord, Delivery } from './bus.js';
import { Journal } from './journal.js';

export interface EmbeddedBus extends Bus {
  lastSeq(): number;
  journalBytes(): number;
  compact(uptoSeq: number): Promise<void>;
}

/** A record as one JSON line, splicing in the envelope's JSON when the producer supplied it. */
export function serializeRecord(record: BusRecord): string {
  const { envelope, envelopeJson, ...meta } = record;
  return `${JSON.stringify(meta).slice(0, -1)},"envelope":${envelopeJson ?? JSON.stringify(envelope)}}`;
}

export async function createEmbeddedBus(options: {
  dir: string;
  afterSeq?: number;
  logger?: Log;
  rotateAt?: number;
}): Promise<EmbeddedBus> {
  const journal = await Journal.open(options.dir, { rotateAt: options.rotateAt });
  const log = options.logger;
  let handler: BusHandler | null = null;
  let replaying: Promise<void> | null = null;
  const queue: Delivery[] = [];
  let pumping: Promise<void> | null = null;
  let idle: (() => void)[] = [];

  async function deliver(delivery: Delivery): Promise<void> {
    try {
      await handler!(delivery);
    } catch (error) {
      log?.error(
        { err: error, seq: delivery.seq, batchId: delivery.batchId },
        'bus consumer failed on a record; continuing',
      );
    }
  }

  async function deliverQueued(): Promise<void> {
    while (queue.length) await deliver(queue.shift()!);
  }

  function pump(): void {
    if (pumping || !handler || replaying) return;
    // Cleared in a callback, which always runs after this assignment, even when the queue is empty.
    pumping = deliverQueued().finally(() => {
      pumping = null;
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
      if (queue.length) pump();
    });
  }

  const bus: EmbeddedBus = {
    async publish(records: BusRecord[]): Promise<void> {
      const seqs = await journal.appendSerialized(records.map(serializeRecord));
      records.forEach(({ envelopeJson: _json, ...record }, i) => queue.push({ ...record, seq: seqs[i] }));
      pump();
    },
    consume(h: BusHandler): void {
      if (handler) throw new Error('bus: a consumer is already registered');
      handler = h;
      replaying = journal
        .replay(options.afterSeq ?? 0, (seq, record) => deliver({ ...(record as BusRecord), seq }))
        .then(
          (count) => {
            if (count) log?.info({ records: count }, 'replayed journal records');
          },
          (error: unknown) => {
            log?.error({ err: error }, 'journal replay failed');
            throw error;
          },
        )
        .finally(() => {
          replaying = null;
          pump();
        });
    },
    async drain(): Promise<void> {
      if (replaying) await replaying;
      while (pumping || queue.length) {
        if (!pumping) pump();
        await new Promise<void>((resolve) => idle.push(resolve));
      }
    },
    async close(): Promise<void> {
      await bus.drain();
      await journal.close();
    },
    lastSeq: () => journal.lastSeq,
    journalBytes: () => journal.bytes,
    compact: async (uptoSeq: number) => {
      await journal.compact(uptoSeq);
    },
  };
  return bus;
}
