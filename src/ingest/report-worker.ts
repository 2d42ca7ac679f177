// An ingest worker thread (started by report-pool.ts): a large JSON report body is parsed, normalized,
// scrubbed and chunked here, so the event loop keeps applying the previous report to the graph and
// answering the API meanwhile. Each job is one body's bytes; the answer is the chunks' JSON and what the
// receipt and metrics need, or the problem that refuses the report (as a plain body), or an unexpected
// error's message. Nothing here stores anything: the event loop publishes the chunks.
import { parentPort, workerData } from 'node:worker_threads';
import { collectingAfter } from '../workers/full-collection.js';
import { handedOver } from '../workers/job-pool.js';
import { ProblemError, type Problem } from '../http/problems.js';
import { BUS_MESSAGE_LIMIT, type Chunk } from './chunk.js';
import { encodeForPosting, type EnvelopeJson } from './envelope-json.js';
import { prepareEventsByItem } from './events-by-item.js';
import { parseJsonBody, utf8Text } from './json-body.js';
import { prepareReport, type PreparedReport } from './prepare.js';
import { createSources } from './sources/index.js';
import type { IngestSource } from './sources/source.js';
import { warmUpIngest, warmUpItemByItem } from './warm-up.js';

/** workerData marking a thread started by report-pool.ts (a module importing this one stays inert). */
export const REPORT_WORKER_ROLE = 'pathgate/report-worker';

/**
 * The sources whose reports a worker prepares: every source whose normalizer is a function of the report
 * alone. `supplychain` verifies signatures against trust material loaded on the main thread, so its
 * reports stay there.
 */
export const WORKER_SOURCES: ReadonlySet<string> = new Set([
  'events',
  'trivy',
  'grype',
  'semgrep',
  'sarif',
  'build',
  'custodian',
  'cloudnet',
  'iam',
  'k8s',
  'falco',
  'sso',
  'dataclass',
  'terraform',
]);

export interface ReportWorkerData {
  role: typeof REPORT_WORKER_ROLE;
  /** SEED_IAM_USERS, as the main thread's iam source has it */
  seedIamUsers: boolean;
  /** set by the pool on a worker started ahead of any report: it warms up (job-pool.ts) */
  warm?: boolean;
}

export interface ReportJob {
  id: number;
  source: string;
  /** the body's bytes, UTF-8 JSON (transferred) */
  bytes: Uint8Array;
  query: Record<string, string | undefined>;
  receivedAt: number;
  scrub: boolean;
}

/**
 * A buffer the event loop is done with (EncodedEnvelopeJson.release), handed back for the next chunks: a
 * worker encoding into fresh memory touched it page by page, and the event loop freeing it counted it as
 * memory outside the heap, which started a full collection every few reports at the 1M estate.
 */
export interface RecycledBuffer {
  recycle: SharedArrayBuffer;
}

/** A worker keeps at most this many buffers handed back (each about a chunk, 1 MiB). */
const RECYCLED_KEPT = 64;

/**
 * A warmed-up worker makes this many chunk buffers ready, their pages touched, before any report: a worker's
 * first report (the 100k estate's 18.7 MiB request, say) otherwise encodes its chunks into fresh memory, a
 * page fault each 4 KiB (about 70 ms of that report on this project's machines, docs/perf.md), and buffers
 * come back to it only once the event loop has applied those chunks. A 30 MiB body's worth.
 */
export const PREFILLED_BUFFERS = 32;

/**
 * Buffers to encode chunks into: handed back ones first, else fresh ones large enough for any chunk. Shared
 * memory, posted rather than transferred: V8 counts an ArrayBuffer a thread receives as its own memory
 * outside the heap, and once the young generation's reach 32 MiB every new buffer the event loop makes
 * (a socket's, a Buffer pool's) starts a scavenge first. A 30 MiB body's chunks arriving while the graph
 * writes hold many young objects started two or three such scavenges of 20-70 ms each during the 100k
 * estate's ingest; V8 does not count shared memory so (docs/perf.md, "Shared memory for chunks").
 */
export function chunkBuffers(): {
  take(bytes: number): SharedArrayBuffer;
  keep(buffer: SharedArrayBuffer): void;
  /** Keeps `count` fresh chunk buffers, every page written once (at most RECYCLED_KEPT in all). */
  prefill(count: number): void;
  readonly kept: number;
} {
  const kept: SharedArrayBuffer[] = [];
  const fresh = (bytes: number) => new SharedArrayBuffer(Math.max(bytes, BUS_MESSAGE_LIMIT));
  return {
    take(bytes) {
      const last = kept.at(-1);
      if (last && last.byteLength >= bytes) return kept.pop()!;
      return fresh(bytes);
    },
    keep(buffer) {
      if (kept.length < RECYCLED_KEPT) kept.push(buffer);
    },
    prefill(count) {
      // Zeros already, but written: a page is mapped only once something writes to it.
      while (count-- > 0 && kept.length < RECYCLED_KEPT) {
        const buffer = fresh(0);
        new Uint8Array(buffer).fill(0);
        kept.push(buffer);
      }
    },
    get kept() {
      return kept.length;
    },
  };
}

export type ReportReply =
  /**
   * one chunk's JSON, posted as soon as it is cut (they come in order, before the job's answer); a slice's
   * items as UTF-8 in groups, each a JSON array of its own (encodeForPosting, envelope-json.ts), their buffer
   * transferred: nothing joins them, and the event loop's heap holds none of them
   */
  | { id: number; chunk: EnvelopeJson }
  /** the answer: `chunks` is empty, they were posted one by one */
  | ({ id: number; ok: true } & PreparedReport<{ json: EnvelopeJson }>)
  | { id: number; ok: false; problem: Problem }
  | { id: number; ok: false; message: string };

/** Prepares one job's report with `sources`, as the event loop would (ingest-pipeline.ts). */
export function runReportJob(
  sources: ReadonlyMap<string, IngestSource>,
  job: ReportJob,
  /** `transfer`: buffers the message hands over rather than copies */
  post: (reply: ReportReply, transfer?: ArrayBuffer[]) => void,
  /** a buffer of at least `bytes` to encode a chunk into (chunkBuffers) */
  buffer?: (bytes: number) => ArrayBufferLike,
): void {
  try {
    const source = sources.get(job.source);
    if (!source || !WORKER_SOURCES.has(job.source))
      throw new Error(`ingest/report-worker: no source ${JSON.stringify(job.source)} on this thread`);
    const text = utf8Text(job.bytes);
    // Only the JSON crosses back, each chunk as soon as it is cut: the event loop parses it meanwhile,
    // which costs less than cloning the envelope objects and leaves the journal's bytes exactly what the
    // graph is written from.
    const input = {
      query: job.query,
      receivedAt: job.receivedAt,
      scrub: job.scrub,
      onChunk: ({ json, split }: Omit<Chunk, 'envelope'>) => {
        if (!split) return post({ id: job.id, chunk: json });
        const chunk = encodeForPosting(split, buffer);
        // Shared memory is posted as it is (chunkBuffers); a buffer of its own is handed over.
        post({ id: job.id, chunk }, handedOver(chunk.bytes.buffer));
      },
    };
    // An events body item by item, so that no parsed tree of it outlives its check (events-by-item.ts);
    // one that path leaves, and every other source, parsed whole.
    const prepared =
      prepareEventsByItem(source, text, input) ??
      prepareReport(source, { ...input, body: parseJsonBody(text, { keepText: true }) });
    post({
      id: job.id,
      ok: true,
      chunks: [],
      nodes: prepared.nodes,
      edges: prepared.edges,
      warnings: prepared.warnings,
      ...(prepared.scope !== undefined && { scope: prepared.scope }),
      redactions: prepared.redactions,
    });
  } catch (error) {
    if (error instanceof ProblemError) post({ id: job.id, ok: false, problem: error.problem });
    else post({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
}

if (parentPort && (workerData as { role?: string } | null)?.role === REPORT_WORKER_ROLE) {
  const port = parentPort;
  const data = workerData as ReportWorkerData;
  const sources = createSources({ seedIamUsers: data.seedIamUsers });
  const post = (reply: ReportReply, transfer?: ArrayBuffer[]) => port.postMessage(reply, transfer);
  const buffers = chunkBuffers();
  // What a report made is collected once it is answered (full-collection.ts), not when the next reports'
  // allocations get round to it.
  const run = collectingAfter((job: ReportJob) => runReportJob(sources, job, post, buffers.take));
  port.on('message', (message: ReportJob | RecycledBuffer) =>
    'recycle' in message ? buffers.keep(message.recycle) : run(message),
  );
  // A worker started ahead of any report is warmed up as the event loop is (warm-up.ts), so the next large
  // report runs optimized normalizers; jobs posted meanwhile wait in this thread's queue. Then ready (the
  // service is reported started once it is). One that a waiting report started begins at once, cold.
  try {
    if (data.warm) {
      warmUpIngest(sources);
      warmUpItemByItem(sources);
    }
  } finally {
    port.postMessage({ id: 0 });
  }
  // After the ready message: the service's start does not wait for these pages.
  if (data.warm) buffers.prefill(PREFILLED_BUFFERS);
}
