// The bus interface: the narrow arrow between ingest and the graph writer. The embedded default
// (memory.ts, with an on-disk journal) and NATS JetStream implement the same contract.
import type { EventEnvelope } from '../ingest/envelope.js';
import type { EnvelopeJson } from '../ingest/envelope-json.js';

/** One bus message: one chunk (at most 1 MiB serialized) of one ingest batch. */
export interface BusRecord {
  tenant: string;
  /** The ingest source (route) that accepted the batch, e.g. `events`. */
  ingestSource: string;
  batchId: string;
  /** 0-based position of this chunk within its batch, and the batch's chunk count. */
  chunk: number;
  chunks: number;
  /** Epoch ms at which ingest accepted the batch; the writer stamps `last_seen` with it. */
  receivedAt: number;
  /**
   * Absent when `envelopeJson` carries it (a chunk an ingest worker prepared): the bus parses it when it
   * delivers the record, after the batch was acknowledged, instead of before.
   */
  envelope?: EventEnvelope;
  /**
   * Set on every chunk of a batch that is a complete snapshot of this scope (`<source>|<scope>`): once its
   * last chunk is applied, what the scope's previous snapshot held and this one omits is retracted.
   */
  scope?: string;
  /**
   * `envelope` as JSON when the producer already has it: a journaling bus writes it instead of re-serializing.
   * JSON.stringify output (or such outputs joined without a newline): the embedded journal does not look
   * for a newline in it. A chunk's comes in its pieces (envelope-json.ts), which nothing joins.
   */
  envelopeJson?: EnvelopeJson;
}

/** A delivered record with its position in the bus's total order. */
export interface Delivery extends Omit<BusRecord, 'envelopeJson' | 'envelope'> {
  envelope: EventEnvelope;
  seq: number;
}

export type BusHandler = (delivery: Delivery) => void | Promise<void>;

export interface Bus {
  /**
   * Publishes every record of one batch. Resolves only once all of them are durable (journaled and
   * synced to disk, or acknowledged by the broker); rejects if any is not, and then none is delivered.
   */
  publish(records: BusRecord[]): Promise<void>;
  /** Registers the single consumer. Records published before are delivered to it in order. */
  consume(handler: BusHandler): void;
  /** Resolves once every published record has been handled by the consumer. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Raised when the broker cannot take a batch now; ingest answers 503 with Retry-After. */
export class BrokerUnavailableError extends Error {}
