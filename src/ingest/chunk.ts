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
  const overhead = Buffer.byteLength(`${prefix}"nodes":[],"edges":[]}`);
  if (overhead > limit)
    throw new ChunkError(`the envelope without items is ${overhead} bytes, over the ${limit}-byte limit`);
  const chunks: Chunk[] = [];
  /** Bytes of the items (and the commas between them) in each chunk. */
  const itemBytes: number[] = [];
  const emit = (field: 'nodes' | 'edges', from: number, to: number) => {
    const items = (envelope[field] as unknown[]).slice(from, to);
    const json = JSON.stringify(items);
    // Counted on the piece, so the chunk's JSON is not flattened here just to be measured.
    const bytes = overhead + Buffer.byteLength(json) - 2;
    if (bytes <= limit) {
      const nodes = field === 'nodes' ? (items as EnvelopeNode[]) : [];
      const edges = field === 'edges' ? (items as EnvelopeEdge[]) : [];
      chunks.push({
        envelope: {
          source: envelope.source,
          kind: envelope.kind,
          observed_at: envelope.observed_at,
          nodes,
          edges,
        },
        json:
          field === 'nodes' ? `${prefix}"nodes":${json},"edges":[]}` : `${prefix}"nodes":[],"edges":${json}}`,
      });
      itemBytes.push(bytes - overhead);
    } else if (to - from === 1) {
      throw new ChunkError(
        `/${field}/${from} alone is ${Buffer.byteLength(json) - 2} bytes (${bytes} as a chunk), over the ${limit}-byte bus message limit`,
      );
    } else {
      const middle = from + Math.ceil((to - from) / 2);
      emit(field, from, middle);
      emit(field, middle, to);
    }
  };
  const step = Math.max(1, Math.floor((limit * 0.9) / average));
  for (const field of ['nodes', 'edges'] as const) {
    const length = envelope[field].length;
    for (let from = 0; from < length; from += step) emit(field, from, Math.min(length, from + step));
  }

  // The sample may have overestimated: an envelope that fits is kept whole after all.
  const nodeChunks = chunks.filter((c) => c.envelope.nodes.length > 0).length;
  const edgeChunks = chunks.length - nodeChunks;
  const wholeBytes =
    overhead +
    itemBytes.reduce((sum, b) => sum + b, 0) +
    Math.max(0, nodeChunks - 1) +
    Math.max(0, edgeChunks - 1);
  if (chunks.length > 1 && wholeBytes <= limit) {
    const whole = JSON.stringify(envelope);
    if (Buffer.byteLength(whole) <= limit) return [{ envelope, json: whole }];
  }
  return chunks;
}
