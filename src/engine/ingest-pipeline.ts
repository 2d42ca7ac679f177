// report -> source normalizer -> scrubbing -> chunks -> bus. Answers only once the whole batch is
// durable; a rejected report publishes nothing.
import { randomUUID } from 'node:crypto';
import { BrokerUnavailableError, type Bus, type BusRecord } from '../bus/bus.js';
import { ProblemError } from '../http/problems.js';
import type { Health } from './health.js';
import type { BatchTracker } from '../ingest/batches.js';
import type { EventEnvelope } from '../ingest/envelope.js';
import { envelopeJsonOf, type EnvelopeJson, type SplitEnvelopeJson } from '../ingest/envelope-json.js';
import { parseJsonBody, utf8Text } from '../ingest/json-body.js';
import { prepareReport, type PreparedReport } from '../ingest/prepare.js';
import { RawJsonBody, type ReportPool } from '../ingest/report-pool.js';
import type { IngestSource } from '../ingest/sources/source.js';
import type { Metrics } from '../metrics/metrics.js';

export interface IngestReceipt {
  batchId: string;
  nodes: number;
  edges: number;
  warnings?: string[];
}

export interface IngestRequest {
  tenant: string;
  source: string;
  body: unknown;
  query: Record<string, string | undefined>;
}

export interface IngestPipelineDeps {
  sources: ReadonlyMap<string, IngestSource>;
  bus: Bus;
  batches: BatchTracker;
  metrics: Metrics;
  scrub: boolean;
  now: () => number;
  /** Told when the bus refuses a batch (reduced mode `journal`) and when it takes one again. */
  health?: Health;
  /** INGEST_THREADS: the workers that prepare the report bodies the listener left unparsed (RawJsonBody) */
  workers?: ReportPool;
}

/** The source named `name`, or the 404 problem for a source segment no normalizer handles. */
export function sourceNamed(sources: ReadonlyMap<string, IngestSource>, name: string): IngestSource {
  const source = sources.get(name);
  if (source) return source;
  throw new ProblemError(
    'unknown-source',
    // The sources are documented (README, "Sending reports"); the answer does not list them to strangers.
    `no ingest source named ${JSON.stringify(name.slice(0, 100))}; the sources are listed in the README`,
    {
      errors: [{ pointer: '/path/source', value: name.slice(0, 100), detail: 'unknown ingest source' }],
    },
  );
}

export function createIngestPipeline(deps: IngestPipelineDeps) {
  const { sources, bus, batches, metrics, workers } = deps;

  /** The report ready for the bus: prepared on a worker when its body came as bytes for one. */
  function prepare(
    source: IngestSource,
    request: IngestRequest,
    receivedAt: number,
  ): PreparedReport | Promise<PreparedReport<{ json: EnvelopeJson }>> {
    const input = { query: request.query, receivedAt, scrub: deps.scrub };
    const { body } = request;
    if (!(body instanceof RawJsonBody)) return prepareReport(source, { ...input, body });
    if (workers?.takes(source.name)) {
      const prepared = workers.prepare({ ...input, source: source.name, bytes: body.bytes });
      // The worker has read the bytes once its job settled: the listener may reuse them. (The closures
      // hold the body until then: the listener also ends the loan once the body is collected.)
      const release = () => body.release();
      void prepared.then(release, release);
      return prepared;
    }
    // No worker for it after all (the listener asked too early, or with other sources): read it here.
    let text: string;
    try {
      text = utf8Text(body.bytes);
    } finally {
      body.release();
    }
    return prepareReport(source, { ...input, body: parseJsonBody(text, { keepText: true }) });
  }

  return async function ingest(request: IngestRequest): Promise<IngestReceipt> {
    const source = sourceNamed(sources, request.source);
    const receivedAt = deps.now();
    let prepared: PreparedReport<{ json: EnvelopeJson; split?: SplitEnvelopeJson; envelope?: EventEnvelope }>;
    try {
      prepared = await prepare(source, request, receivedAt);
    } catch (error) {
      metrics.ingestBatches.inc({ source: source.name, result: 'rejected' });
      throw error;
    }
    for (const [kind, count] of Object.entries(prepared.redactions))
      metrics.ingestSecretsRedacted.inc({ kind }, count);
    const { chunks, nodes, edges, warnings, scope } = prepared;
    const batchId = `b-${randomUUID()}`;
    const records: BusRecord[] = chunks.map((cut, chunk) => ({
      tenant: request.tenant,
      ingestSource: source.name,
      batchId,
      chunk,
      chunks: chunks.length,
      receivedAt,
      // A worker's chunk comes as JSON only: the bus parses it when it delivers it. The pieces where there
      // are some: the journal encodes them one by one, never the joined copy.
      envelope: cut.envelope,
      envelopeJson: envelopeJsonOf(cut),
      ...(scope !== undefined && { scope }),
    }));
    batches.track({
      id: batchId,
      tenant: request.tenant,
      source: source.name,
      chunks: chunks.length,
      nodes,
      edges,
      receivedAt,
    });
    try {
      await bus.publish(records);
    } catch (error) {
      // The journal error itself is logged by the bus; the client learns only that nothing was kept.
      // A broker away is the bus's own condition (`bus`); anything else is the journal refusing writes.
      if (!(error instanceof BrokerUnavailableError)) deps.health?.reduce('journal', journalReason(error));
      batches.forget(batchId);
      metrics.ingestBatches.inc({ source: source.name, result: 'failed' });
      throw new ProblemError(
        'unavailable',
        'the report could not be made durable; nothing was stored, retry later',
        {},
      );
    }
    deps.health?.restore('journal');
    metrics.ingestBatches.inc({ source: source.name, result: 'accepted' });
    return warnings.length ? { batchId, nodes, edges, warnings } : { batchId, nodes, edges };
  };
}

/** The journal's refusal in words: the system error's code and text (a full disk is `ENOSPC`), no paths. */
function journalReason(error: unknown): string {
  // The system error may come wrapped (the journal adds what it was doing): its code is on a cause.
  let code: string | undefined;
  for (
    let e = error as (NodeJS.ErrnoException & { cause?: unknown }) | undefined;
    e && !code;
    e = e.cause as typeof e
  )
    code = typeof e.code === 'string' ? e.code : undefined;
  const known: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is exhausted',
    EROFS: 'the file system is read-only',
    EIO: 'an I/O error',
    EACCES: 'permission denied',
  };
  const what = code ? (known[code] ?? code) : 'the write failed';
  return `the journal refuses writes (${what}); ingest answers 503 until a write succeeds`;
}
