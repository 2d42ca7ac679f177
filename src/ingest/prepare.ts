// report -> source normalizer -> scrubbing -> chunks: everything ingest does to a report before the bus,
// as one function of the report alone, so that it runs the same on the event loop (small reports, the
// gate, connectors) and on the ingest worker thread (large report bodies: report-worker.ts).
import { ProblemError } from '../http/problems.js';
import { ChunkError, chunksOf, type Chunk } from './chunk.js';
import { chunkRawEnvelope } from './chunk-raw.js';
import {
  checkSnapshotRequest,
  completenessScope,
  isPullRequestScan,
  readIngestContext,
  stampPullRequest,
} from './context.js';
import { afterRedactions, type RawItems } from './raw-items.js';
import type { EventEnvelope } from './envelope.js';
import type { EnvelopeJson } from './envelope-json.js';
import { scrubEnvelope } from './scrub.js';
import type { IngestSource } from './sources/source.js';

export interface PrepareInput {
  body: unknown;
  query: Record<string, string | undefined>;
  /** epoch ms at which ingest accepted the report */
  receivedAt: number;
  /** SCRUB_INGEST: secrets in the envelopes are redacted before anything keeps them */
  scrub: boolean;
  /** Told of each chunk as soon as it is cut (a worker posts it on while it cuts the next). */
  onChunk?: (chunk: Chunk) => void;
}

/** A report ready for the bus: its chunks (with their JSON), and what the receipt and metrics say of it. */
export interface PreparedReport<C extends { json: EnvelopeJson } = Chunk> {
  chunks: C[];
  nodes: number;
  edges: number;
  warnings: string[];
  /** `<source>|<scope>` when the report is a complete snapshot of that scope */
  scope?: string;
  /** redactions made, by kind of secret */
  redactions: Record<string, number>;
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

/** Normalizes, scrubs and chunks one report; throws the ProblemError that refuses it. Stores nothing. */
export function prepareReport(source: IngestSource, input: PrepareInput): PreparedReport {
  const context = readIngestContext(input.query);
  checkSnapshotRequest(source, context);
  const output = source.normalize({
    body: input.body,
    query: input.query,
    receivedAt: new Date(input.receivedAt).toISOString(),
  });
  const { envelopes } = output;
  let { warnings } = output;
  // The request's own text of the items (`events`), to cut the chunks from; a pull request's stamp changes
  // every node, so none is sent as the request wrote it.
  const raw: (RawItems | undefined)[] = output.raw && !isPullRequestScan(context) ? output.raw : [];
  stampPullRequest(envelopes, context, output.mentioned);
  const scope = completenessScope(source, context, output);
  if (yieldsNothing(envelopes, output.mentioned)) {
    if (scope !== undefined) throw emptySnapshot(source, scope);
    warnings = [...warnings, `the report yielded no node and no edge; expected ${expectation(source)}`];
  }
  const prepared: PreparedReport = { chunks: [], nodes: 0, edges: 0, warnings, scope, redactions: {} };
  for (const [index, envelope] of envelopes.entries()) {
    let text = raw[index];
    if (input.scrub) {
      const { redactions } = scrubEnvelope(envelope);
      for (const r of redactions) prepared.redactions[r.kind] = (prepared.redactions[r.kind] ?? 0) + 1;
      // A scrubbed item is serialized again: its text still holds the secret.
      text = afterRedactions(text, redactions);
    }
    prepared.nodes += envelope.nodes.length;
    prepared.edges += envelope.edges.length;
    try {
      for (const chunk of text ? chunkRawEnvelope(envelope, text) : chunksOf(envelope)) {
        prepared.chunks.push(chunk);
        input.onChunk?.(chunk);
      }
    } catch (error) {
      throw chunkRefusal(error);
    }
  }
  return prepared;
}

/** What a report whose chunks cannot be cut is refused with (an item too large for the bus); else `error`. */
export function chunkRefusal(error: unknown): unknown {
  return error instanceof ChunkError ? new ProblemError('invalid-payload', error.message) : error;
}
