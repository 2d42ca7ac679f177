// A chunk's JSON in pieces (src/ingest/envelope-json.ts): the bus journals, sends and parses the pieces of a
// slice of nodes or edges without joining them, and must get exactly what the joined text gives.
import { describe, expect, it } from 'vitest';
import { chunkEnvelope, type Chunk } from '../../src/ingest/chunk.js';
import { chunkRawEnvelope } from '../../src/ingest/chunk-raw.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { createEventsSource } from '../../src/ingest/sources/events.js';
import {
  encodeEnvelopeJson,
  envelopeJsonPieces,
  joinEnvelopeJson,
  encodeForPosting,
  GROUP_BYTES,
  parseEnvelopeJson,
  type EncodedEnvelopeJson,
  type SplitEnvelopeJson,
} from '../../src/ingest/envelope-json.js';
import { edge, envelope, node } from '../helpers/envelope.js';

const nodes = Array.from({ length: 120 }, (_, i) =>
  node('Service', `svc-${i} naïve ☃ 🚀`, { note: `a "quoted" \\ } ] , ${'p'.repeat(40 + (i % 9))}` }),
);
const edges = nodes.slice(1).map((n, i) => edge('CONNECTS_TO', nodes[i], n, 0.5));

/** Each group of a split, as JSON (brackets added: it has none). */
const groupsParsed = (split: SplitEnvelopeJson): unknown[][] =>
  split.groups.map((g) => JSON.parse(`[${g}]`) as unknown[]);

/** Each group of an encoded chunk, decoded on its own. */
function encodedGroups(encoded: EncodedEnvelopeJson): string[] {
  let from = 0;
  return encoded.ends.map((end) => {
    const group = Buffer.from(encoded.bytes.subarray(from, end)).toString('utf8');
    from = end;
    return group;
  });
}

/** What a report's chunks go through: posted by a worker or not, journaled, parsed. */
function expectSameJson(c: Chunk): void {
  const encoded = encodeForPosting(c.split!);
  expect(encodedGroups(encoded).map((g) => JSON.parse(g) as unknown[])).toEqual(groupsParsed(c.split!));
  for (const json of [c.split!, encoded]) {
    expect(joinEnvelopeJson(json)).toBe(c.json);
    expect(encodeEnvelopeJson(json).equals(Buffer.from(c.json))).toBe(true);
    const parsed = parseEnvelopeJson(json);
    expect(parsed).toEqual(c.envelope);
    // The same fields in the same order as the joined text parses to.
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(c.json)));
    expect(groupsParsed(c.split!).flat()).toEqual(c.envelope[json.field]);
  }
}

describe('a chunk JSON in pieces', () => {
  const chunks = chunkEnvelope(envelope(nodes, edges), 2048);

  it('is kept for every slice of nodes and of edges: joined, encoded, posted and parsed as the chunk JSON', () => {
    expect(chunks.length).toBeGreaterThan(4);
    const fields = new Set<string>();
    for (const c of chunks) {
      expect(c.split).toBeDefined();
      fields.add(c.split!.field);
      expectSameJson(c);
      expect(JSON.stringify(parseEnvelopeJson(c.split!))).toBe(c.json);
    }
    expect([...fields]).toEqual(['nodes', 'edges']);
  });

  it('makes a large slice its JSON in groups each far under the 128 KiB of a string V8 keeps apart', () => {
    const many = Array.from({ length: 6000 }, (_, i) =>
      node('Service', `svc-${i} ☃`, { note: 'p'.repeat(100 + (i % 50)) }),
    );
    const cut = chunkEnvelope(envelope(many));
    expect(cut.length).toBeGreaterThan(1);
    for (const c of cut) {
      expect(c.split!.groups.length).toBeGreaterThan(5);
      for (const group of [...c.split!.groups, ...encodedGroups(encodeForPosting(c.split!))])
        expect(group.length).toBeLessThan(96 * 1024);
      // The same text as one JSON.stringify of the slice: groups are a way of holding it, not a new format.
      expect(c.json).toBe(JSON.stringify(c.envelope));
      expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(1024 * 1024);
      expectSameJson(c);
    }
    expect(cut.flatMap((c) => c.envelope.nodes)).toEqual(many);
  });

  it('keeps a chunk cut from a compact request text as runs of that text, in groups', () => {
    const many = Array.from({ length: 6000 }, (_, i) =>
      node('Service', `svc-${i} ☃`, { note: 'p'.repeat(200) }),
    );
    const text = JSON.stringify(envelope(many));
    const body = parseJsonBody(text, { keepText: true });
    const output = createEventsSource().normalize({ body, query: {}, receivedAt: new Date(0).toISOString() });
    const cut = chunkRawEnvelope(output.envelopes[0], output.raw![0]!);
    expect(cut.length).toBeGreaterThan(1);
    for (const c of cut) {
      expect(c.split!.groups.length).toBeGreaterThan(5);
      for (const group of c.split!.groups) {
        // A run of the request's text (the items are adjacent), of about GROUP_BYTES.
        expect(text).toContain(group);
        expect(group.length).toBeLessThan(GROUP_BYTES + 1024);
      }
      expectSameJson(c);
    }
  });

  it('groups the runs of a pretty-printed text, one per item, joined by commas', () => {
    const text = JSON.stringify(envelope(nodes, edges), null, 2);
    const body = parseJsonBody(text, { keepText: true });
    const output = createEventsSource().normalize({ body, query: {}, receivedAt: new Date(0).toISOString() });
    const cut = chunkRawEnvelope(output.envelopes[0], output.raw![0]!, 16 * 1024);
    expect(cut.length).toBeGreaterThan(2);
    for (const c of cut) {
      expect(c.split!.groups).toHaveLength(1);
      expectSameJson(c);
    }
  });

  it('is not made for an envelope kept whole: its JSON is one string, parsed as it is', () => {
    const [whole] = chunkEnvelope(envelope(nodes.slice(0, 3), edges.slice(0, 2)));
    expect(whole.split).toBeUndefined();
    expect(envelopeJsonPieces(whole.json)).toEqual([whole.json]);
    expect(parseEnvelopeJson(whole.json)).toEqual(whole.envelope);
  });
});
