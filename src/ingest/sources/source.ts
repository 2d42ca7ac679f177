// What every ingest source provides: a pure normalizer from the raw report (and the query string) to
// event envelopes, with a version that changes whenever its output for the same input changes.
import type { EventEnvelope } from '../envelope.js';
import type { RawItems } from '../raw-items.js';

export interface NormalizeInput {
  body: unknown;
  query: Record<string, string | undefined>;
  /** Ingest time, ISO 8601: the default observed_at for reports that carry none. */
  receivedAt: string;
}

export interface NormalizeOutput {
  envelopes: EventEnvelope[];
  warnings: string[];
  /**
   * The completeness scope a report declares by itself (spec "Snapshot rules"): `image:<canonical ref>`
   * for an image scanned by reference, `repo:<repo>` for a code scan. What a newer complete report of
   * the same scope omits is retracted. The pipeline ignores it for pull-request scans and `snapshot=none`.
   */
  scope?: string;
  /** Ids of nodes the report only mentions (e.g. a synthetic `cluster-admin`): never stamped with PR context. */
  mentioned?: string[];
  /**
   * The request's own text of each envelope's items (`events`), to cut the bus's chunks from; the pipeline
   * serializes the items again when absent (src/ingest/raw-items.ts).
   */
  raw?: (RawItems | undefined)[];
}

export interface IngestSource {
  name: string;
  version: string;
  description: string;
  /**
   * How the source declares completeness: `self` (the report itself is complete, `scope` above;
   * `snapshot=none` marks it partial), or `query` (only through the `snapshot` query parameter).
   */
  snapshots: 'self' | 'query';
  /**
   * What a report must hold to yield anything, in words (e.g. "a Kubernetes List holding Pods, ..."). Named
   * when a complete snapshot yields no node and no edge and is refused, and in the warning on a partial
   * report that yields nothing. Filled from the table in index.ts unless the source sets it.
   */
  expects?: string;
  /** Throws a ProblemError (400, naming the offending JSON pointer) when the report is malformed. */
  normalize(input: NormalizeInput): NormalizeOutput;
}
