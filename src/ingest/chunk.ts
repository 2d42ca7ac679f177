// Splits an event envelope into bus messages of at most 1 MiB serialized, nodes first, order kept.
// Each item is serialized exactly once: the chunks carry their JSON so the journal need not redo it.
import type { EventEnvelope } from './envelope.js';

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
  const prefix = `${JSON.stringify({ source: envelope.source, kind: envelope.kind, observed_at: envelope.observed_at }).slice(0, -1)},`;
  const assemble = (nodes: string[], edges: string[]) =>
    `${prefix}"nodes":[${nodes.join(',')}],"edges":[${edges.join(',')}]}`;
  const overhead = Buffer.byteLength(assemble([], []));
  const nodeJson = envelope.nodes.map((n) => JSON.stringify(n));
  const edgeJson = envelope.edges.map((e) => JSON.stringify(e));
  // Each item adds its bytes plus a separating comma.
  const size = (json: string) => Buffer.byteLength(json) + 1;
  const nodeSizes = nodeJson.map(size);
  const edgeSizes = edgeJson.map(size);
  const total = overhead + nodeSizes.reduce((a, b) => a + b, 0) + edgeSizes.reduce((a, b) => a + b, 0);
  // A whole array of k items has k - 1 commas.
  if (total - (nodeSizes.length ? 1 : 0) - (edgeSizes.length ? 1 : 0) <= limit)
    return [{ envelope, json: assemble(nodeJson, edgeJson) }];

  const chunks: Chunk[] = [];
  const shell = (field: 'nodes' | 'edges', from: number, to: number): Chunk => {
    const nodes = field === 'nodes' ? envelope.nodes.slice(from, to) : [];
    const edges = field === 'edges' ? envelope.edges.slice(from, to) : [];
    return {
      envelope: {
        source: envelope.source,
        kind: envelope.kind,
        observed_at: envelope.observed_at,
        nodes,
        edges,
      },
      json:
        field === 'nodes' ? assemble(nodeJson.slice(from, to), []) : assemble([], edgeJson.slice(from, to)),
    };
  };
  const split = (field: 'nodes' | 'edges', sizes: number[]) => {
    let start = 0;
    let bytes = overhead;
    for (let i = 0; i < sizes.length; i++) {
      if (overhead + sizes[i] - 1 > limit) {
        throw new ChunkError(
          `/${field}/${i} alone is ${sizes[i] - 1} bytes, over the ${limit}-byte bus message limit`,
        );
      }
      // The first item of a chunk needs no comma, hence the - 1 allowance.
      if (i > start && bytes + sizes[i] - 1 > limit) {
        chunks.push(shell(field, start, i));
        start = i;
        bytes = overhead;
      }
      bytes += sizes[i];
    }
    if (start < sizes.length) chunks.push(shell(field, start, sizes.length));
  };
  split('nodes', nodeSizes);
  split('edges', edgeSizes);
  return chunks;
}
