// The engine's side of the ingest workers (INGEST_THREADS, src/ingest/report-pool.ts): which large bodies the
// listener leaves for a worker, graph writes held while such a body is read (body-reads.ts), and the
// worker's life around the analyzer's passes.
import { createReportPool, WORKER_BODY_BYTES, type ReportPool } from '../ingest/report-pool.js';
import { BodyReads } from './body-reads.js';

export interface IngestWorkers {
  /** the pool the ingest pipeline hands unparsed bodies to; none with INGEST_THREADS=0 or a caller's sources */
  pool?: ReportPool;
  /** What the next graph write waits for while a large body is read: undefined when nothing holds it. */
  holdWrites(): Promise<void> | undefined;
  /**
   * Whether the ingest listener leaves a JSON body of `bytes` for `source` unparsed (RawJsonBody), for a
   * worker to prepare: a large body while graph writes are pending, so that it is prepared beside them.
   * With the event loop free, the body is prepared there: as fast, without the copy to and from a worker
   * (docs/perf.md, "Issue 38: reports prepared on a worker thread"). Asked with the declared length when
   * the request arrives (`declared`), a worker starts then if none runs.
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

export function createIngestWorkers(options: {
  /** INGEST_THREADS; 0 for none */
  threads: number;
  seedIamUsers: boolean;
  /** every large body to a worker, writes pending or not (tests of the worker's path) */
  always: boolean;
  /** whether journaled records still wait to be written to the graph */
  writesPending: () => boolean;
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
      return options.always || options.writesPending();
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
