// Splits an event envelope into bus messages of at most 1 MiB serialized, nodes first, order kept.
// Slices are serialized whole (one JSON.stringify per chunk, not per item) and the chunks carry their
// JSON, so the journal need not serialize again.
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from './envelope.js';

/** The message limit of a default bus (NATS' default max_payload). */
export const BUS_MESSAGE_LIMIT = 1024 * 1024;

export class ChunkError extends Error {}

export interface Chunk {
  envelope: EventEnvelope;
  /** `envelope` as JSON, at most the limit in UTF-8 bytes. */
  json: string;
}

/** Splits `envelope` so that each chunk's JSON is at most `limit` UTF-8 bytes. One that fits stays whole. */
export function chunkEnvelope(envelope: EventEnvelope, limit = BUS_MESSAGE_LIMIT): Chunk[] {
  // The average item size, from an even sample, sets the slice length: aim for 90% of the limit.
  const count = envelope.nodes.length + envelope.edges.length;
  const sample: unknown[] = [];
  const every = Math.max(1, Math.floor(count / 256));
  for (let i = 0; i < count; i += every)
    sample.push(i < envelope.nodes.length ? envelope.nodes[i] : envelope.edges[i - envelope.nodes.length]);
  const average = Math.max(1, Buffer.byteLength(JSON.stringify(sample)) / Math.max(1, sample.length));
  if (average * count < limit * 0.9) {
    const whole = JSON.stringify(envelope);
    if (Buffer.byteLength(whole) <= limit) return [{ envelope, json: whole }];
  }

  const prefix = `${JSON.stringify({ source: envelope.source, kind: envelope.kind, observed_at: envelope.observed_at }).slice(0, -1)},`;
  const make = (nodes: EnvelopeNode[], edges: EnvelopeEdge[]): Chunk => ({
    envelope: {
      source: envelope.source,
      kind: envelope.kind,
      observed_at: envelope.observed_at,
      nodes,
      edges,
    },
    json: `${prefix}"nodes":${JSON.stringify(nodes)},"edges":${JSON.stringify(edges)}}`,
  });
  const step = Math.max(1, Math.floor((limit * 0.9) / average));
  const chunks: Chunk[] = [];
  const emit = (field: 'nodes' | 'edges', from: number, to: number) => {
    const items = (envelope[field] as unknown[]).slice(from, to);
    const chunk = field === 'nodes' ? make(items as EnvelopeNode[], []) : make([], items as EnvelopeEdge[]);
    if (Buffer.byteLength(chunk.json) <= limit) {
      chunks.push(chunk);
    } else if (to - from === 1) {
      throw new ChunkError(
        `/${field}/${from} alone is ${Buffer.byteLength(JSON.stringify(items[0]))} bytes, over the ${limit}-byte bus message limit`,
      );
    } else {
      const middle = from + Math.ceil((to - from) / 2);
      emit(field, from, middle);
      emit(field, middle, to);
    }
  };
  for (const field of ['nodes', 'edges'] as const) {
    const length = envelope[field].length;
    for (let from = 0; from < length; from += step) emit(field, from, Math.min(length, from + step));
  }
  if (!chunks.length) chunks.push(make([], []));
  return chunks;
}
