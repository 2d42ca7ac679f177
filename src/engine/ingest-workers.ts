// The engine's side of the ingest workers (INGEST_THREADS, src/ingest/report-pool.ts): which large bodies the
// listener leaves for a worker, graph writes held while such a body is read (body-reads.ts), and the
// worker's life around the analyzer's passes.
import { readsItemByItem } from '../ingest/events-by-item.js';
import { createReportPool, WORKER_BODY_BYTES, type ReportPool } from '../ingest/report-pool.js';
import { BodyReads } from './body-reads.js';

export interface IngestWorkers {
  /** the pool the ingest pipeline hands unparsed bodies to; none with INGEST_THREADS=0 or a caller's sources */
  pool?: ReportPool;
  /** What the next graph write waits for while a large body is read: undefined when nothing holds it. */
  holdWrites(): Promise<void> | undefined;
  /**
   * Whether the ingest listener leaves a JSON body of `bytes` for `source` unparsed (RawJsonBody), for a
   * worker to prepare beside the graph writes pending: an `events` body whenever any are
   * (EVENTS_PENDING_SHARE), another source's while they are at least half its size (WORKER_PENDING_SHARE).
   * With the event loop free, or nearly, the body is prepared there: as fast, without the copy to and from a
   * worker (docs/perf.md, "Issue 38: reports prepared on a worker thread", "the writes a worker is worth" and
   * "An events body item by item"). Asked with the declared length when the request arrives (`declared`), a
   * worker starts then if none runs.
   */
  defersBody(source: string, bytes: number, declared?: boolean): boolean;
  /** The ingest listener tells when a large body it defers begins (true) and when it was read (false). */
  readingBody(started: boolean): void;
  /** Before a pass: an idle worker gives its heap back, which the pass is about to need. */
  beforePass(): Promise<void>;
  /** A worker started and warmed up if none runs (at start, after passes); resolves once it is ready. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A large body goes to a worker once the graph writes pending are at least this share of its size. The
 * event loop writes a chunk about as fast as it prepares the same bytes of a report; a worker prepares them
 * slower (a fresh heap for each report, about 100 MB for 30 MiB on this project's 2-core machines) and the
 * event loop parses its chunks again before writing them. So with writes pending P and a body B, the event
 * loop alone takes about P + B, a worker about max(P, 1.3 B) + 0.25 B: the worker is quicker once P passes
 * about half of B. The 100k estate's second request (30 MiB) arrives behind the first's 9.4 MiB of writes:
 * prepared on the event loop, its paths were ready about 0.2 s sooner (medians of four alternated runs, twice);
 * the 1M estate, whose requests mostly arrive behind a full backlog, was unchanged (docs/perf.md, "The writes
 * a worker is worth").
 */
export const WORKER_PENDING_SHARE = 0.5;

/**
 * An `events` body goes to a worker whenever graph writes are pending (any share of its size). A worker reads
 * it item by item (src/ingest/events-by-item.ts): no parsed tree of the body survives its check, so its heap
 * stays small and a 30 MiB body takes 250-450 ms there against 670-710 ms parsed whole; on the event loop
 * the whole parse and its collections took the thread from the writes. The 100k estate's second request, so
 * sent to a worker behind the first's 9.4 MiB of writes, left its paths ready 0.1-0.7 s sooner in four of five
 * alternated runs, the event loop's CPU until then 0.3-1.0 s lower (docs/perf.md, "An events body item by item").
 */
export const EVENTS_PENDING_SHARE = 0;

/**
 * The graph writes pending, in bytes, as createIngestWorkers reads them: 0 once every journaled record is
 * applied; else the bus's backlog, or Infinity where the bus cannot tell (a broker) or does not count them
 * (the records a start replays are delivered outside the backlog): something is pending, amount unknown.
 */
export function pendingWrites(lastSeq: number, appliedSeq: number, backlogBytes?: () => number): number {
  if (lastSeq <= appliedSeq) return 0;
  return backlogBytes?.() || Number.POSITIVE_INFINITY;
}

export function createIngestWorkers(options: {
  /** INGEST_THREADS; 0 for none */
  threads: number;
  seedIamUsers: boolean;
  /** every large body to a worker, writes pending or not (tests of the worker's path) */
  always: boolean;
  /**
   * How much journaled and still to be written to the graph, in bytes of journal lines (Infinity where the
   * bus cannot tell how much, only that something is); 0 when nothing is.
   */
  pendingWriteBytes: () => number;
}): IngestWorkers {
  const pool =
    options.threads > 0
      ? createReportPool({ threads: options.threads, seedIamUsers: options.seedIamUsers })
      : undefined;
  const bodyReads = new BodyReads();
  return {
    pool,
    holdWrites: () => bodyReads.hold(),
    defersBody(source, bytes, declared = false) {
      if (!pool?.takes(source) || !(bytes >= WORKER_BODY_BYTES)) return false;
      if (declared) void pool.prestart();
      if (options.always) return true;
      const pending = options.pendingWriteBytes();
      return (
        pending > 0 &&
        pending >= bytes * (readsItemByItem(source) ? EVENTS_PENDING_SHARE : WORKER_PENDING_SHARE)
      );
    },
    readingBody(started) {
      if (started) bodyReads.started();
      else bodyReads.ended();
    },
    beforePass: async () => pool?.release(),
    warm: async () => pool?.prestart({ warm: true }),
    close: async () => pool?.close(),
  };
}
