// A chunk's JSON in pieces (src/ingest/envelope-json.ts): the bus journals, sends and parses the pieces of a
// slice of nodes or edges without joining them, and must get exactly what the joined text gives.
import { describe, expect, it } from 'vitest';
import { chunkEnvelope } from '../../src/ingest/chunk.js';
import { chunkRawEnvelope } from '../../src/ingest/chunk-raw.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { createEventsSource } from '../../src/ingest/sources/events.js';
import {
  encodeEnvelopeJson,
  envelopeJsonPieces,
  joinEnvelopeJson,
  parseEnvelopeJson,
  withItemsWhole,
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

  it('makes a large slice its JSON in pieces each far under the 128 KiB of a string V8 keeps apart', () => {
    const many = Array.from({ length: 6000 }, (_, i) =>
      node('Service', `svc-${i} ☃`, { note: 'p'.repeat(100 + (i % 50)) }),
    );
    const env = envelope(many);
    const cut = chunkEnvelope(env);
    expect(cut.length).toBeGreaterThan(1);
    for (const c of cut) {
      expect(c.split!.pieces.length).toBeGreaterThan(5);
      for (const piece of c.split!.pieces) expect(piece.length).toBeLessThan(96 * 1024);
      // The same text as one JSON.stringify of the slice: pieces are a way of holding it, not a new format.
      expect(joinEnvelopeJson(c.split!)).toBe(JSON.stringify(c.envelope));
      expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(1024 * 1024);
      expect(parseEnvelopeJson(c.split!)).toEqual(c.envelope);
    }
    expect(cut.flatMap((c) => c.envelope.nodes)).toEqual(many);
  });

  it('keeps a chunk cut from a request text in its runs, joined and parsed as one, whole items for a worker', () => {
    const text = JSON.stringify(envelope(nodes, edges));
    const body = parseJsonBody(text, { keepText: true });
    const output = createEventsSource().normalize({ body, query: {}, receivedAt: new Date(0).toISOString() });
    const cut = chunkRawEnvelope(output.envelopes[0], output.raw![0]!, 2048);
    expect(cut.length).toBeGreaterThan(4);
    for (const c of cut) {
      // The head, `[`, one run of the text (compact: the items are adjacent), `]`, the rest.
      expect(c.split!.pieces).toHaveLength(5);
      expect(c.split!.pieces[1]).toBe('[');
      expect(text).toContain(c.split!.pieces[2]);
      expect(joinEnvelopeJson(c.split!)).toBe(c.json);
      expect(parseEnvelopeJson(c.split!)).toEqual(c.envelope);
      const whole = withItemsWhole(c.split!);
      expect(whole.pieces).toHaveLength(3);
      expect(joinEnvelopeJson(whole)).toBe(c.json);
      expect(JSON.parse(whole.pieces[1])).toEqual(c.envelope[c.split!.field]);
    }
  });

  it('joins the runs of a pretty-printed text into one piece past a few dozen', () => {
    const text = JSON.stringify(envelope(nodes), null, 2);
    const body = parseJsonBody(text, { keepText: true });
    const output = createEventsSource().normalize({ body, query: {}, receivedAt: new Date(0).toISOString() });
    const [first] = chunkRawEnvelope(output.envelopes[0], output.raw![0]!, 16 * 1024);
    // Each item is its own run here (white space between items): more than 64 in this chunk.
    expect(first.envelope.nodes.length).toBeGreaterThan(64);
    expect(first.split!.pieces).toHaveLength(3);
    expect(parseEnvelopeJson(first.split!)).toEqual(first.envelope);
  });

  it('is not made for an envelope kept whole: its JSON is one string, parsed as it is', () => {
    const [whole] = chunkEnvelope(envelope(nodes.slice(0, 3), edges.slice(0, 2)));
    expect(whole.split).toBeUndefined();
    expect(envelopeJsonPieces(whole.json)).toEqual([whole.json]);
    expect(parseEnvelopeJson(whole.json)).toEqual(whole.envelope);
  });
});
