// Large JSON report bodies are prepared (parsed, normalized, scrubbed, chunked) on worker threads
// (INGEST_THREADS, report-worker.ts). On the event loop that work took about a third of a large estate's
// ingest, during which the previous report waited to be written to the graph and every API call waited
// too; on a worker it runs beside them. A worker starts when the first large report's request arrives
// (its declared length), so it boots while the body is read.
import { ProblemError } from '../http/problems.js';
import { createJobPool } from '../workers/job-pool.js';
import type { PreparedReport } from './prepare.js';
import {
  REPORT_WORKER_ROLE,
  WORKER_SOURCES,
  type ReportJob,
  type ReportReply,
  type ReportWorkerData,
} from './report-worker.js';

/** A report body not parsed by the listener: it goes to a worker as bytes (RawJsonBody). */
export const WORKER_BODY_BYTES = 1024 * 1024;

/**
 * A JSON report body the ingest listener left unparsed (at least WORKER_BODY_BYTES, for a source a worker
 * prepares): the ingest pipeline hands its bytes to a worker.
 */
export class RawJsonBody {
  constructor(readonly bytes: Uint8Array) {}
}

export interface ReportPool {
  /** Whether a worker prepares this source's large reports. */
  takes(source: string): boolean;
  /** Prepares a body's report on a worker; rejects with the ProblemError that refuses it. */
  prepare(job: Omit<ReportJob, 'id'>): Promise<PreparedReport<{ json: string }>>;
  /** A large report is on its way: a worker starts now if none runs. */
  prestart(): void;
  close(): Promise<void>;
}

export function createReportPool(options: { threads: number; seedIamUsers: boolean }): ReportPool {
  const workerData: ReportWorkerData = { role: REPORT_WORKER_ROLE, seedIamUsers: options.seedIamUsers };
  const pool = createJobPool<ReportJob, ReportReply>({
    name: 'ingest/report-pool',
    entry: new URL('./report-worker.js', import.meta.url),
    caller: import.meta.url,
    workerData: { ...workerData },
    threads: options.threads,
    settle: (reply) => {
      if (reply.ok) {
        const { id: _id, ok: _ok, ...prepared } = reply;
        return { value: prepared };
      }
      if ('problem' in reply) return { error: ProblemError.fromBody(reply.problem) };
      return { error: new Error(`ingest/report-pool: a report failed in a worker: ${reply.message}`) };
    },
    failed: (error) =>
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new ProblemError(
            'payload-too-large',
            'the report needs more memory to prepare than an ingest worker has; split the report',
          )
        : new Error(`ingest/report-pool: worker crashed: ${error.message}`, { cause: error }),
  });
  return {
    takes: (source) => WORKER_SOURCES.has(source),
    prepare: (job) =>
      pool.run<PreparedReport<{ json: string }>>({ ...job }, [job.bytes.buffer as ArrayBuffer]),
    prestart: () => pool.prestart(),
    close: () => pool.close(),
  };
}
