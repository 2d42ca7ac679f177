import { describe, expect, it } from 'vitest';
import { BUS_MESSAGE_LIMIT, ChunkError, chunkEnvelope } from '../../src/ingest/chunk.js';
import { edge, envelope, node } from '../helpers/envelope.js';

describe('chunkEnvelope', () => {
  it('keeps an envelope that fits whole, with its JSON', () => {
    const env = envelope([node('Service', 'a')]);
    const chunks = chunkEnvelope(env);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].envelope).toBe(env);
    expect(JSON.parse(chunks[0].json)).toEqual(env);
  });

  it('keeps an empty envelope as one chunk', () => {
    expect(chunkEnvelope(envelope([]))).toHaveLength(1);
  });

  it('splits nodes first, then edges, in order, each chunk within the limit', () => {
    const nodes = Array.from({ length: 300 }, (_, i) =>
      node('Service', `svc-${i}`, { pad: 'p'.repeat(50 + (i % 7)) }),
    );
    const edges = nodes.slice(1).map((n, i) => edge('CONNECTS_TO', nodes[i], n));
    const env = envelope(nodes, edges);
    const limit = 4096;
    const chunks = chunkEnvelope(env, limit);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(limit);
      expect(JSON.parse(c.json)).toEqual(c.envelope);
      expect(c.envelope.nodes.length === 0 || c.envelope.edges.length === 0).toBe(true);
    }
    const lastNodeChunk = chunks.findLastIndex((c) => c.envelope.nodes.length > 0);
    const firstEdgeChunk = chunks.findIndex((c) => c.envelope.edges.length > 0);
    expect(lastNodeChunk).toBeLessThan(firstEdgeChunk);
    expect(chunks.flatMap((c) => c.envelope.nodes)).toEqual(nodes);
    expect(chunks.flatMap((c) => c.envelope.edges)).toEqual(edges);
  });

  it('counts bytes, not characters', () => {
    const nodes = Array.from({ length: 40 }, (_, i) =>
      node('Service', `svc-${i}`, { note: 'é'.repeat(100) }),
    );
    for (const c of chunkEnvelope(envelope(nodes), 2048))
      expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(2048);
  });

  it('names a single item over the limit by JSON pointer', () => {
    const big = node('Service', 'big', { blob: 'x'.repeat(BUS_MESSAGE_LIMIT) });
    expect(() => chunkEnvelope(envelope([node('Service', 'small'), big]))).toThrow(ChunkError);
    expect(() => chunkEnvelope(envelope([node('Service', 'small'), big]))).toThrow(
      /^\/nodes\/1 alone is \d+ bytes/,
    );
  });
});
