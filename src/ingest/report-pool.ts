// Large JSON report bodies are prepared (parsed, normalized, scrubbed, chunked) on worker threads
// (INGEST_THREADS, report-worker.ts). On the event loop that work took about a third of a large estate's
// ingest, during which the previous report waited to be written to the graph and every API call waited
// too; on a worker it runs beside them. The worker starts with the analyzer (engine start), warms up, and
// the service is reported started once it is ready.
import { ProblemError } from '../http/problems.js';
import { createJobPool, handedOver } from '../workers/job-pool.js';
import type { EnvelopeJson } from './envelope-json.js';
import type { PreparedReport } from './prepare.js';
import {
  REPORT_WORKER_ROLE,
  WORKER_SOURCES,
  type ReportJob,
  type RecycledBuffer,
  type ReportReply,
  type ReportWorkerData,
} from './report-worker.js';

/** A report body not parsed by the listener: it goes to a worker as bytes (RawJsonBody). */
export const WORKER_BODY_BYTES = 1024 * 1024;

/** How long a report worker idles before it is stopped. */
export const WORKER_IDLE_MS = 1000;

/**
 * A JSON report body the ingest listener left unparsed (at least WORKER_BODY_BYTES, for a source a worker
 * prepares): the ingest pipeline hands its bytes to a worker.
 */
export class RawJsonBody {
  /**
   * `release`: the bytes are the listener's to reuse once read (a worker's job settled, or decoded here);
   * called once they are.
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly release: () => void = () => {},
  ) {}
}

export interface ReportPool {
  /** Whether a worker prepares this source's large reports. */
  takes(source: string): boolean;
  /** Prepares a body's report on a worker; rejects with the ProblemError that refuses it. */
  prepare(job: Omit<ReportJob, 'id'>): Promise<PreparedReport<{ json: EnvelopeJson }>>;
  /**
   * A worker starts now if none runs; resolves once one is ready. `warm`: it warms up first (ahead of any
   * report: at start, after a pass); without, a report is on its way and should not wait for a warm-up.
   */
  prestart(options?: { warm?: boolean }): Promise<void>;
  /** Stops the idle workers now, giving their memory back (the analyzer's pass is about to need it). */
  release(): Promise<void>;
  close(): Promise<void>;
}

export function createReportPool(options: { threads: number; seedIamUsers: boolean }): ReportPool {
  const workerData: ReportWorkerData = { role: REPORT_WORKER_ROLE, seedIamUsers: options.seedIamUsers };
  /**
   * Each running job's chunks so far, as JSON: the bus parses each when it delivers it (BusRecord), so a
   * backlog of chunks waiting for the graph costs its text, not the several times larger objects.
   */
  const parts = new Map<number, { json: EnvelopeJson }[]>();
  const pool = createJobPool<ReportJob, ReportReply>({
    name: 'ingest/report-pool',
    entry: new URL('./report-worker.js', import.meta.url),
    caller: import.meta.url,
    workerData: { ...workerData },
    threads: options.threads,
    announcesReady: true,
    // Its heap holds what the last large report made: given back once a run of reports is over, before
    // the analyzer's pass over them needs the memory.
    idleMs: WORKER_IDLE_MS,
    // A young generation as V8's default, not the service's (--max-semi-space-size=64): the worker's
    // short-lived objects are few, and the 1M estate's peak counts every megabyte (docs/perf.md).
    resourceLimits: { maxYoungGenerationSizeMb: 32 },
    settle: (reply) => {
      if ('chunk' in reply) {
        const chunks = parts.get(reply.id) ?? [];
        parts.set(reply.id, chunks);
        const { chunk } = reply;
        if (typeof chunk !== 'string' && 'bytes' in chunk) {
          // Handed back once the bus is done with it (doneWith), for a worker to fill again: shared memory
          // (chunkBuffers) is posted, not transferred, so doneWith also lets go of the event loop's view.
          const { buffer } = chunk.bytes;
          if (buffer instanceof SharedArrayBuffer)
            chunk.release = () => void pool.give({ recycle: buffer } satisfies RecycledBuffer, []);
        }
        chunks.push({ json: chunk });
        return { more: true };
      }
      const chunks = parts.get(reply.id) ?? [];
      parts.delete(reply.id);
      if (reply.ok) {
        const { id: _id, ok: _ok, ...prepared } = reply;
        return { value: { ...prepared, chunks } };
      }
      if ('problem' in reply) return { error: ProblemError.fromBody(reply.problem) };
      return { error: new Error(`ingest/report-pool: a report failed in a worker: ${reply.message}`) };
    },
    failed: (error, id) => {
      if (id !== undefined) parts.delete(id);
      return error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new ProblemError(
            'payload-too-large',
            'the report needs more memory to prepare than an ingest worker has; split the report',
          )
        : new Error(`ingest/report-pool: worker crashed: ${error.message}`, { cause: error });
    },
  });
  return {
    takes: (source) => WORKER_SOURCES.has(source),
    prepare: (job) =>
      pool.run<PreparedReport<{ json: EnvelopeJson }>>(
        { ...job },
        // Shared memory (the listener's loan) is read where it is; bytes of their own are handed over.
        handedOver(job.bytes.buffer),
      ),
    prestart: (how) => pool.prestart(how),
    release: () => pool.release(),
    close: () => pool.close(),
  };
}
