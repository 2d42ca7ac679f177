// A chunk's JSON in pieces (src/ingest/envelope-json.ts): the bus journals, sends and parses the pieces of a
// slice of nodes or edges without joining them, and must get exactly what the joined text gives.
import { describe, expect, it } from 'vitest';
import { chunkEnvelope } from '../../src/ingest/chunk.js';
import {
  encodeEnvelopeJson,
  envelopeJsonPieces,
  joinEnvelopeJson,
  parseEnvelopeJson,
} from '../../src/ingest/envelope-json.js';
import { edge, envelope, node } from '../helpers/envelope.js';

const nodes = Array.from({ length: 120 }, (_, i) =>
  node('Service', `svc-${i} naïve ☃ 🚀`, { note: `a "quoted" \\ } ] , ${'p'.repeat(40 + (i % 9))}` }),
);
const edges = nodes.slice(1).map((n, i) => edge('CONNECTS_TO', nodes[i], n, 0.5));

describe('a chunk JSON in pieces', () => {
  const chunks = chunkEnvelope(envelope(nodes, edges), 2048);

  it('is kept for every slice of nodes and of edges, and joins to the chunk JSON', () => {
    expect(chunks.length).toBeGreaterThan(4);
    const fields = new Set<string>();
    for (const c of chunks) {
      expect(c.split).toBeDefined();
      fields.add(c.split!.field);
      expect(joinEnvelopeJson(c.split!)).toBe(c.json);
      expect(encodeEnvelopeJson(c.split!).equals(Buffer.from(c.json))).toBe(true);
      expect(envelopeJsonPieces(c.split!)).toHaveLength(3);
      // The middle piece is the items' JSON array as it was serialized: parsed alone, it is the slice.
      expect(JSON.parse(c.split!.pieces[1])).toEqual(c.envelope[c.split!.field]);
    }
    expect([...fields]).toEqual(['nodes', 'edges']);
  });

  it('parses to what the joined text parses to, field for field and in the same order', () => {
    for (const c of chunks) {
      const parsed = parseEnvelopeJson(c.split!);
      expect(parsed).toEqual(JSON.parse(c.json));
      expect(JSON.stringify(parsed)).toBe(c.json);
      expect(parsed).toEqual(c.envelope);
    }
  });

  it('is not made for an envelope kept whole: its JSON is one string, parsed as it is', () => {
    const [whole] = chunkEnvelope(envelope(nodes.slice(0, 3), edges.slice(0, 2)));
    expect(whole.split).toBeUndefined();
    expect(envelopeJsonPieces(whole.json)).toEqual([whole.json]);
    expect(parseEnvelopeJson(whole.json)).toEqual(whole.envelope);
  });
});
