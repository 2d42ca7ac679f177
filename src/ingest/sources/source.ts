// What every ingest source provides: a pure normalizer from the raw report (and the query string) to
// event envelopes, with a version that changes whenever its output for the same input changes.
import type { EventEnvelope } from '../envelope.js';

export interface NormalizeInput {
  body: unknown;
  query: Record<string, string | undefined>;
  /** Ingest time, ISO 8601: the default observed_at for reports that carry none. */
  receivedAt: string;
}

export interface NormalizeOutput {
  envelopes: EventEnvelope[];
  warnings: string[];
}

export interface IngestSource {
  name: string;
  version: string;
  description: string;
  /** Throws a ProblemError (400, naming the offending JSON pointer) when the report is malformed. */
  normalize(input: NormalizeInput): NormalizeOutput;
}
