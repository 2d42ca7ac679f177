// The embedded bus: publish journals a batch durably, then delivers it in-process, in order, to the one
// consumer. On consume, everything journaled after `afterSeq` (the last snapshot) is replayed first.
import type { EventEnvelope } from '../ingest/envelope.js';
import {
  doneWith,
  envelopeJsonPieces,
  joinPieces,
  parseEnvelopeJson,
  type EnvelopeJson,
  type JsonPiece,
} from '../ingest/envelope-json.js';
import type { Log } from '../log/logger.js';
import type { Bus, BusHandler, BusRecord, Delivery } from './bus.js';
import {
  describeLoss,
  describeProblem,
  formatRanges,
  Journal,
  lineLength,
  type JournalRecovery,
} from './journal.js';

export interface EmbeddedBus extends Bus {
  lastSeq(): number;
  journalBytes(): number;
  /**
   * What is journaled and not yet through the consumer, in characters of its journal lines (bytes, for the
   * items an ingest worker posted as bytes): the graph writes still to come.
   */
  backlogBytes(): number;
  compact(uptoSeq: number): Promise<void>;
}

/** The logging the bus does; pino satisfies it. */
export type BusLog = Pick<Log, 'info' | 'warn' | 'error'>;

/**
 * A record's JSON line as its pieces: its fields, then the envelope's JSON as the producer supplied it (an
 * ingest chunk's, itself in pieces), then the closing brace. Every piece is JSON.stringify output or cut from
 * a JSON text that holds none, so the line holds no newline (the journal's `stringified`), and the journal
 * encodes the pieces without joining them.
 */
export function recordPieces(record: BusRecord): JsonPiece[] {
  const { envelope, envelopeJson, ...meta } = record;
  return [
    `${JSON.stringify(meta).slice(0, -1)},"envelope":`,
    ...envelopeJsonPieces(envelopeJson ?? JSON.stringify(envelope)),
    '}',
  ];
}

/** A record as one JSON line (recordPieces joined). */
export function serializeRecord(record: BusRecord): string {
  return joinPieces(recordPieces(record));
}

const ignore = () => undefined;

/** A record on its way to the consumer: its envelope may still be JSON (BusRecord.envelope). */
type Pending = Omit<Delivery, 'envelope'> & { envelope?: EventEnvelope; envelopeJson?: EnvelopeJson };

/** The delivery itself, its envelope parsed if it came as JSON only. */
function materialize(pending: Pending): Delivery {
  if (pending.envelope) return pending as Delivery;
  const { envelopeJson, ...rest } = pending;
  const envelope = parseEnvelopeJson(envelopeJson!);
  // Journaled before it was queued, parsed now: nothing reads its bytes again.
  doneWith(envelopeJson);
  return { ...rest, envelope };
}

/** How long deliveries may run back to back before the event loop gets a turn (see deliver). */
const DELIVERY_SLICE_MS = 10;

/**
 * How far journaled reports may run ahead of the graph, in characters of their records' JSON (bytes, for the
 * items an ingest worker posted as bytes): past it, a publish resolves (the report's 202) only once the
 * consumer is back under it. The journal keeps every record either way; the bound is on what waits in
 * memory, parsed, for the graph writer. Without it a client sending large reports back to back piled them up
 * faster than they were applied (several hundred MiB more at the 1M-node estate, docs/perf.md "Fifth
 * session: external memory").
 */
export const DEFAULT_BACKLOG_CHARS = 32 * 1024 * 1024;

/** Says what opening the journal cut off or moved aside, and where the copy is. */
export function logRecovery(log: BusLog | undefined, recovery: JournalRecovery): void {
  const details = {
    file: recovery.file,
    offset: recovery.offset,
    droppedBytes: recovery.droppedBytes,
    lost: formatRanges(recovery.lost),
    batches: recovery.batches,
    quarantined: recovery.quarantined,
  };
  if (recovery.kind === 'torn')
    log?.warn(
      details,
      `journal: cut off the unfinished last write of a crash (${describeLoss(recovery)}); it was never acknowledged, since a write is acknowledged only once its commit line is synced; a copy is in ${recovery.quarantined}`,
    );
  else
    log?.[recovery.held ? 'warn' : 'error'](
      details,
      `${describeProblem(recovery)}; a copy is in ${recovery.quarantined}`,
    );
}

export async function createEmbeddedBus(options: {
  dir: string;
  /** Records up to this seq are already reflected (by a snapshot) and are not delivered. */
  afterSeq?: number;
  logger?: BusLog;
  rotateAt?: number;
  /** A journal already opened on `dir` (the store opens it to check it before the bus is built). */
  journal?: Journal;
  /** DEFAULT_BACKLOG_CHARS unless set (tests set it small). */
  backlogChars?: number;
}): Promise<EmbeddedBus> {
  const backlogLimit = options.backlogChars ?? DEFAULT_BACKLOG_CHARS;
  const journal =
    options.journal ??
    (await Journal.open(options.dir, { rotateAt: options.rotateAt, minSeq: options.afterSeq }));
  const log = options.logger;
  if (!options.journal) for (const recovery of journal.recoveries) logRecovery(log, recovery);
  let handler: BusHandler | null = null;
  // The highest seq handed to the consumer. Replay and live delivery may both hold a record published
  // before consume(); this keeps delivery exactly-once.
  let delivered = options.afterSeq ?? 0;
  // Deliveries run one after another on this chain; a failed replay rejects it and stops delivery.
  let chain: Promise<void> = Promise.resolve();
  let early: Pending[] = [];
  const publishing = new Set<Promise<unknown>>();
  let closed = false;

  // Deliveries chain on promises, which never give the event loop a turn: a large batch's chunks would be
  // applied back to back while the next report's bytes, and every API call, wait. A turn between deliveries,
  // once they have run DELIVERY_SLICE_MS, lets the listeners read and answer while a large report is
  // written. A delivery itself runs whole: a chunk of edges near the bus's 1 MiB takes 10–66 ms.
  let turnAt = performance.now();
  /** Deliveries enqueued and not yet through, and the characters of their journal lines. */
  let queued = 0;
  let queuedChars = 0;
  /** Publishes waiting for the backlog to shrink under the bound (DEFAULT_BACKLOG_CHARS). */
  let waiting: (() => void)[] = [];
  function caughtUp(): void {
    if (!waiting.length || queuedChars > backlogLimit) return;
    const ready = waiting;
    waiting = [];
    for (const resolve of ready) resolve();
  }
  async function deliver(delivery: Pending): Promise<void> {
    if (delivery.seq <= delivered) return;
    if (performance.now() - turnAt > DELIVERY_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turnAt = performance.now();
      // Replay and live delivery may both hold this record: the other may have delivered it meanwhile.
      if (delivery.seq <= delivered) return;
    }
    delivered = delivery.seq;
    try {
      await handler!(materialize(delivery));
    } catch (error) {
      log?.error(
        { err: error, seq: delivery.seq, batchId: delivery.batchId },
        'bus consumer failed on a record; continuing',
      );
    }
  }

  function enqueue(delivery: Pending, chars = 0): void {
    if (!handler) {
      early.push(delivery);
      return;
    }
    // A delivery after a pause starts a new slice: a small batch is applied at once, as before.
    if (queued++ === 0) turnAt = performance.now();
    queuedChars += chars;
    chain = chain
      .then(() => deliver(delivery))
      .finally(() => {
        queued--;
        queuedChars -= chars;
        caughtUp();
      });
    chain.catch(ignore);
  }

  const bus: EmbeddedBus = {
    publish(records: BusRecord[]): Promise<void> {
      let lines: JsonPiece[][];
      try {
        lines = records.map(recordPieces);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      const done = journal.appendSerialized(lines, { stringified: true }).then(
        (seqs) => {
          // The same objects go on to the consumer, minus the JSON the journal needed (kept only where it
          // is all there is of the envelope: it is parsed when delivered).
          records.forEach(({ envelopeJson, ...record }, i) =>
            enqueue(
              Object.assign(record, { seq: seqs[i] }, record.envelope ? {} : { envelopeJson }),
              lineLength(lines[i]),
            ),
          );
          // Durable now; the answer waits while more than the bound is still to be applied (without a
          // consumer nothing is being applied, and nothing is waited for).
          if (!handler || queuedChars <= backlogLimit) return;
          return new Promise<void>((resolve) => waiting.push(resolve));
        },
        (error: unknown) => {
          log?.error({ err: error, records: records.length }, 'bus: a batch could not be journaled');
          throw error;
        },
      );
      publishing.add(done);
      const settle = () => publishing.delete(done);
      done.then(settle, settle);
      return done;
    },
    consume(h: BusHandler): void {
      if (handler) throw new Error('bus: a consumer is already registered');
      handler = h;
      chain = journal
        .replay(delivered, (seq, record) => deliver({ ...(record as BusRecord), seq }))
        .then(
          (count) => {
            if (count) log?.info({ records: count }, 'replayed journal records');
          },
          (error: unknown) => {
            log?.error({ err: error }, 'journal replay failed; nothing more is delivered');
            throw error;
          },
        );
      chain.catch(ignore);
      const waiting = early;
      early = [];
      for (const delivery of waiting) enqueue(delivery);
    },
    async drain(): Promise<void> {
      // Batches still being journaled count as published; a failed one is simply not delivered.
      for (;;) {
        if (publishing.size) {
          await Promise.allSettled([...publishing]);
          continue;
        }
        const current = chain;
        await current;
        if (current === chain && !publishing.size) return;
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      // Without a consumer there is nothing to drain; the records wait in the journal. A failed replay
      // was logged and reported by drain() already.
      if (handler) await bus.drain().catch(ignore);
      else await Promise.allSettled([...publishing]);
      await journal.close();
    },
    lastSeq: () => journal.lastSeq,
    journalBytes: () => journal.bytes,
    backlogBytes: () => queuedChars,
    compact: async (uptoSeq: number) => {
      await journal.compact(uptoSeq);
    },
  };
  return bus;
}
