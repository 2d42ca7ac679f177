// Source `events`: a raw event envelope, validated against the envelope schema and the vocabulary.
import { createEnvelopeValidator } from '../envelope.js';
import { ProblemError } from '../../http/problems.js';
import { rawItemsOf } from '../raw-items.js';
import type { IngestSource } from './source.js';

export function createEventsSource(): IngestSource {
  const validate = createEnvelopeValidator();
  return {
    name: 'events',
    version: '1',
    description: 'A raw event envelope: source, kind, observed_at, nodes[], edges[].',
    snapshots: 'query',
    normalize({ body }) {
      const check = validate(body);
      if (!check.ok) {
        const vocabulary = check.errors.some(
          (e) => e.detail.startsWith('unknown node label') || e.detail.startsWith('unknown edge type'),
        );
        const first = check.errors[0];
        throw new ProblemError(
          vocabulary ? 'unknown-vocabulary' : 'invalid-payload',
          `${first.pointer}: ${first.detail}${check.errors.length > 1 ? ` (and ${check.errors.length - 1} more)` : ''}`,
          { errors: check.errors },
        );
      }
      // The request's own text of the items rides along, so that the bus's chunks are cut from it.
      const raw = rawItemsOf(body, check.envelope, check.derived);
      return { envelopes: [check.envelope], warnings: [], ...(raw && { raw: [raw] }) };
    },
  };
}
