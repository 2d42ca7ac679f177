// report -> source normalizer -> scrubbing -> chunks -> bus. Answers only once the whole batch is
// durable; a rejected report publishes nothing.
import { randomUUID } from 'node:crypto';
import { BrokerUnavailableError, type Bus, type BusRecord } from '../bus/bus.js';
import { ProblemError } from '../http/problems.js';
import type { Health } from './health.js';
import { ChunkError, chunkEnvelope, type Chunk } from '../ingest/chunk.js';
import { chunkRawEnvelope } from '../ingest/chunk-raw.js';
import { markRedacted, type RawItems } from '../ingest/raw-items.js';
import {
  checkSnapshotRequest,
  completenessScope,
  isPullRequestScan,
  readIngestContext,
  stampPullRequest,
} from '../ingest/context.js';
import type { BatchTracker } from '../ingest/batches.js';
import type { EventEnvelope } from '../ingest/envelope.js';
import { scrubEnvelope } from '../ingest/scrub.js';
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

/**
 * Whether a report holds nothing the source recognised: no node it contains (one it only mentions, such as
 * a synthetic `cluster-admin`, does not count) and no edge.
 */
function yieldsNothing(envelopes: EventEnvelope[], mentioned: readonly string[] = []): boolean {
  const only = new Set(mentioned);
  return envelopes.every((e) => e.edges.length === 0 && e.nodes.every((n) => only.has(n.id)));
}

function expectation(source: IngestSource): string {
  return source.expects ?? source.description;
}

/**
 * A complete snapshot that yields nothing would retract its whole scope (a failing collector's error
 * object, another tool's report, an empty list): refused, so nothing is stored and nothing retracted
 * (DECISIONS.md "Empty snapshots are refused"). Emptying a scope is never inferred from an empty report.
 */
function emptySnapshot(source: IngestSource, scope: string): ProblemError {
  const declared = scope.slice(source.name.length + 1);
  const expected = expectation(source);
  return new ProblemError(
    'empty-snapshot',
    `the ${source.name} report yields no node and no edge, and as a complete snapshot of ${declared} it would ` +
      `retract everything that scope holds; nothing was stored or retracted. Expected ${expected}. ` +
      'An empty scope is never inferred from an empty report: send a partial report with snapshot=none; ' +
      'what the scope no longer holds goes with its next complete snapshot that holds anything, or ages out under GRAPH_TTL',
    {
      expected,
      scope: declared,
      errors: [{ pointer: '/', detail: `yields no node and no edge; expected ${expected}` }],
    },
  );
}

export function createIngestPipeline(deps: IngestPipelineDeps) {
  const { sources, bus, batches, metrics } = deps;
  return async function ingest(request: IngestRequest): Promise<IngestReceipt> {
    const source = sourceNamed(sources, request.source);
    const receivedAt = deps.now();
    let envelopes: EventEnvelope[];
    let warnings: string[];
    let scope: string | undefined;
    let raw: (RawItems | undefined)[] = [];
    try {
      const context = readIngestContext(request.query);
      checkSnapshotRequest(source, context);
      const output = source.normalize({
        body: request.body,
        query: request.query,
        receivedAt: new Date(receivedAt).toISOString(),
      });
      ({ envelopes, warnings } = output);
      // A pull request's stamp changes every node: none is sent as the request wrote it.
      if (output.raw && !isPullRequestScan(context)) raw = output.raw;
      stampPullRequest(envelopes, context, output.mentioned);
      scope = completenessScope(source, context, output);
      if (yieldsNothing(envelopes, output.mentioned)) {
        if (scope !== undefined) throw emptySnapshot(source, scope);
        warnings = [...warnings, `the report yielded no node and no edge; expected ${expectation(source)}`];
      }
    } catch (error) {
      metrics.ingestBatches.inc({ source: source.name, result: 'rejected' });
      throw error;
    }
    let nodes = 0;
    let edges = 0;
    const chunks: Chunk[] = [];
    for (const [index, envelope] of envelopes.entries()) {
      let text = raw[index];
      if (deps.scrub) {
        const { redactions } = scrubEnvelope(envelope);
        for (const r of redactions) metrics.ingestSecretsRedacted.inc({ kind: r.kind });
        // A scrubbed item is serialized again: its text still holds the secret.
        if (
          text &&
          redactions.length &&
          !markRedacted(
            text,
            redactions.map((r) => r.pointer),
          )
        )
          text = undefined;
      }
      nodes += envelope.nodes.length;
      edges += envelope.edges.length;
      try {
        chunks.push(...(text ? chunkRawEnvelope(envelope, text) : chunkEnvelope(envelope)));
      } catch (error) {
        metrics.ingestBatches.inc({ source: source.name, result: 'rejected' });
        if (error instanceof ChunkError) throw new ProblemError('invalid-payload', error.message);
        throw error;
      }
    }
    const batchId = `b-${randomUUID()}`;
    const records: BusRecord[] = chunks.map(({ envelope, json }, chunk) => ({
      tenant: request.tenant,
      ingestSource: source.name,
      batchId,
      chunk,
      chunks: chunks.length,
      receivedAt,
      envelope,
      envelopeJson: json,
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
