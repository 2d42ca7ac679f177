// Splits an event envelope into bus messages of at most 1 MiB serialized, nodes first, order kept.
import type { EnvelopeEdge, EnvelopeNode, EventEnvelope } from './envelope.js';

/** The message limit of a default bus (NATS' default max_payload). */
export const BUS_MESSAGE_LIMIT = 1024 * 1024;

export class ChunkError extends Error {}

/** Splits `envelope` so that each chunk's JSON is at most `limit` UTF-8 bytes. One that fits is returned as is. */
export function chunkEnvelope(envelope: EventEnvelope, limit = BUS_MESSAGE_LIMIT): EventEnvelope[] {
  const shell = (nodes: EnvelopeNode[], edges: EnvelopeEdge[]): EventEnvelope => ({
    source: envelope.source,
    kind: envelope.kind,
    observed_at: envelope.observed_at,
    nodes,
    edges,
  });
  // Bytes of the envelope with empty arrays; each item adds its own bytes plus a comma.
  const overhead = Buffer.byteLength(JSON.stringify(shell([], [])));
  const sizes = (items: readonly unknown[]) => items.map((item) => Buffer.byteLength(JSON.stringify(item)) + 1);
  const nodeSizes = sizes(envelope.nodes);
  const edgeSizes = sizes(envelope.edges);
  const total = overhead + nodeSizes.reduce((a, b) => a + b, 0) + edgeSizes.reduce((a, b) => a + b, 0);
  if (total <= limit) return [envelope];

  const chunks: EventEnvelope[] = [];
  const split = <T>(items: T[], itemSizes: number[], field: 'nodes' | 'edges') => {
    let start = 0;
    let bytes = overhead;
    for (let i = 0; i < items.length; i++) {
      if (overhead + itemSizes[i] > limit) {
        throw new ChunkError(`/${field}/${i} alone is ${itemSizes[i] - 1} bytes, over the ${limit}-byte bus message limit`);
      }
      if (bytes + itemSizes[i] > limit) {
        chunks.push(field === 'nodes' ? shell(items.slice(start, i) as EnvelopeNode[], []) : shell([], items.slice(start, i) as EnvelopeEdge[]));
        start = i;
        bytes = overhead;
      }
      bytes += itemSizes[i];
    }
    if (start < items.length) {
      chunks.push(field === 'nodes' ? shell(items.slice(start) as EnvelopeNode[], []) : shell([], items.slice(start) as EnvelopeEdge[]));
    }
  };
  split(envelope.nodes, nodeSizes, 'nodes');
  split(envelope.edges, edgeSizes, 'edges');
  return chunks;
}
