// Chunks cut from the request's own text (src/ingest/chunk-raw.ts) against the chunks serialized from the
// parsed items (chunkEnvelope, the path before): every chunk's JSON parses to its envelope, the chunks hold
// the same items in the same order as the old path's, within the limit; on the demo estate and on what every
// normalizer makes of the real reports, written compact, pretty-printed, with CRLF and with escapes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkError, chunkEnvelope, type Chunk } from '../../src/ingest/chunk.js';
import { chunkRawEnvelope } from '../../src/ingest/chunk-raw.js';
import type { EventEnvelope } from '../../src/ingest/envelope.js';
import { joinEnvelopeJson, parseEnvelopeJson } from '../../src/ingest/envelope-json.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { afterRedactions, scanEnvelopeItems, type RawItems } from '../../src/ingest/raw-items.js';
import { decodeReportFile, readReport, recognizeReport } from '../../src/ingest/recognize.js';
import { scrubEnvelope } from '../../src/ingest/scrub.js';
import { createEventsSource } from '../../src/ingest/sources/events.js';
import { createSources } from '../../src/ingest/sources/index.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { REAL } from '../helpers/normalize.js';

const events = createEventsSource();

/** The chunker's answer, or the ChunkError's message. */
function attempt(cut: () => Chunk[]): Chunk[] | string {
  try {
    return cut();
  } catch (error) {
    if (error instanceof ChunkError) return error.message;
    throw error;
  }
}

/** What the pipeline does with a JSON body for `events`: parse (text kept), validate, scrub, chunk. */
function ingestText(
  text: string,
  limit?: number,
): { raw: RawItems | undefined; chunks: Chunk[] | string; old: Chunk[] | string } {
  const body = parseJsonBody(text, { keepText: true });
  const output = events.normalize({ body, query: {}, receivedAt: new Date(0).toISOString() });
  const env = output.envelopes[0];
  const raw = afterRedactions(output.raw?.[0], scrubEnvelope(env).redactions);
  const chunks = raw ? attempt(() => chunkRawEnvelope(env, raw, limit)) : [];
  return { raw, chunks, old: attempt(() => chunkEnvelope(env, limit)) };
}

/** The chunks' items as the journal's replay reads them back. */
function replayed(chunks: Chunk[]): { nodes: unknown[]; edges: unknown[] } {
  const parsed = chunks.map((c) => JSON.parse(c.json) as EventEnvelope);
  return { nodes: parsed.flatMap((e) => e.nodes), edges: parsed.flatMap((e) => e.edges) };
}

function expectSameAsBefore(text: string, limit?: number): RawItems {
  const { raw, chunks, old } = ingestText(text, limit);
  expect(raw).toBeDefined();
  // An item over the limit: refused alike, with the same words.
  if (typeof chunks === 'string' || typeof old === 'string') {
    expect(chunks).toBe(old);
    return raw!;
  }
  for (const c of chunks) {
    expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(limit ?? 1024 * 1024);
    expect(c.json).not.toMatch(/[\n\r]/);
    expect(JSON.parse(c.json)).toEqual(c.envelope);
    // A slice's pieces, as the bus journals and parses them, are its JSON.
    if (c.split) {
      expect(joinEnvelopeJson(c.split)).toBe(c.json);
      expect(JSON.stringify(parseEnvelopeJson(c.split))).toBe(JSON.stringify(JSON.parse(c.json)));
    }
  }
  expect(replayed(chunks)).toEqual(replayed(old));
  expect(chunks.flatMap((c) => c.envelope.nodes)).toEqual(old.flatMap((c) => c.envelope.nodes));
  expect(chunks.flatMap((c) => c.envelope.edges)).toEqual(old.flatMap((c) => c.envelope.edges));
  return raw!;
}

/** Every non-ASCII character written as a \u escape, as some JSON writers do. */
const escapeNonAscii = (json: string) =>
  json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const svc = node('Service', 'checkout — naïve ☃ 🚀', {
  note: 'a "quoted" \\ back\\slash, a } and a ] and a ,',
});
const db = node('Database', 'orders-db', { crown_jewel: true, nested: { list: [1, [2, { x: '}' }]] } });
const sample = envelope(
  [lb, svc, db],
  [edge('ROUTES_TO', lb, svc, 0.9), edge('HAS_PERMISSION', svc, db, 0.25)],
);

describe('scanEnvelopeItems', () => {
  it('finds each item of nodes and edges, strings with brackets, quotes and escapes skipped', () => {
    const text = JSON.stringify(sample);
    const spans = scanEnvelopeItems(text)!;
    expect(Array.from(spans.nodes.start, (s, i) => JSON.parse(text.slice(s, spans.nodes.end[i])))).toEqual(
      sample.nodes,
    );
    expect(Array.from(spans.edges.start, (s, i) => JSON.parse(text.slice(s, spans.edges.end[i])))).toEqual(
      sample.edges,
    );
  });

  it('spans more items than its first guess holds (short items: the spans grow)', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => i);
    const edges = Array.from({ length: 3000 }, (_, i) => [i]);
    const text = JSON.stringify({ nodes, edges });
    const spans = scanEnvelopeItems(text)!;
    expect(spans.nodes.start).toHaveLength(5000);
    expect(Array.from(spans.nodes.start, (s, i) => JSON.parse(text.slice(s, spans.nodes.end[i])))).toEqual(
      nodes,
    );
    expect(Array.from(spans.edges.start, (s, i) => JSON.parse(text.slice(s, spans.edges.end[i])))).toEqual(
      edges,
    );
  });

  it('takes the last of a key given twice, as JSON.parse does, and compares keys decoded', () => {
    const text = `{"nodes":[1,"x",{"a":[]}],"source":"s","kind":"asset","observed_at":"2025-01-01T00:00:00Z","n\\u006fdes":${JSON.stringify(sample.nodes)},"edges":[],"edges":${JSON.stringify(sample.edges)}}`;
    const spans = scanEnvelopeItems(text)!;
    expect(spans.nodes.start).toHaveLength(3);
    expect(JSON.parse(text.slice(spans.nodes.start[2], spans.nodes.end[2]))).toEqual(db);
    expect(spans.edges.start).toHaveLength(2);
    expectSameAsBefore(text);
  });

  it('marks items written over several lines, and no others', () => {
    const text = `{"source":"s","kind":"asset","observed_at":"2025-01-01T00:00:00Z","nodes":[\n  ${JSON.stringify(lb)},\n${JSON.stringify(svc, null, 1)}\n ,${JSON.stringify(db)}],"edges":[]}`;
    const spans = scanEnvelopeItems(text)!;
    expect([...spans.nodes.multiline]).toEqual([1]);
  });

  it('gives up on a root without both arrays', () => {
    expect(scanEnvelopeItems('{"nodes":[]}')).toBeUndefined();
    expect(scanEnvelopeItems('[{"nodes":[],"edges":[]}]')).toBeUndefined();
  });
});

describe('chunkRawEnvelope', () => {
  it('cuts chunks from the text: same items as serializing them, within the limit', () => {
    const raw = expectSameAsBefore(JSON.stringify(sample));
    const { chunks } = ingestText(JSON.stringify(sample));
    expect(chunks).toHaveLength(1);
    expect(raw.nodes.start).toHaveLength(3);
  });

  it('serializes an item the validation changed (an id derived) and keeps the rest as written', () => {
    const { id: _id, ...noId } = svc;
    const text = JSON.stringify({ ...sample, nodes: [lb, noId, db] });
    const raw = expectSameAsBefore(text);
    expect([...raw.changed.nodes]).toEqual([1]);
    const { chunks } = ingestText(text) as { chunks: Chunk[] };
    expect((JSON.parse(chunks[0].json) as EventEnvelope).nodes[1].id).toBe(svc.id);
  });

  it('serializes an item scrubbing changed: the secret is not in the chunk', () => {
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const leaky = node('Service', 'leaky', { env: [`AWS_ACCESS_KEY_ID=${secret}`] });
    const leakyEdge = {
      ...edge('ROUTES_TO', lb, leaky, 0.5),
      properties: { token: `ghp_${'a'.repeat(36)}` },
    };
    const text = JSON.stringify({
      ...sample,
      nodes: [lb, leaky, svc, db],
      edges: [...sample.edges, leakyEdge],
    });
    const raw = expectSameAsBefore(text, 300);
    expect([...raw.changed.nodes]).toEqual([1]);
    expect([...raw.changed.edges]).toEqual([2]);
    const { chunks } = ingestText(text, 300) as { chunks: Chunk[] };
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.json).not.toContain(secret);
    for (const c of chunks) expect(c.json).not.toContain('ghp_');
  });

  it('keeps the replayed values of unusual text: white space, CRLF, escapes, numbers written long', () => {
    const odd = `{ "source" : "s",\r\n\t"kind":"asset" , "observed_at":"2025-01-01T00:00:00.000Z",\r\n "nodes" : [ ${escapeNonAscii(JSON.stringify(svc))} ,\t${JSON.stringify(lb).replace('true', ' true ')}\r\n, ${JSON.stringify(db, null, 2)} ] ,"edges":[${JSON.stringify(sample.edges[0]).replace('0.9', '0.900e0')} , ${JSON.stringify(sample.edges[1]).replace('"type"', '"\\u0074ype"')}]}`;
    const raw = expectSameAsBefore(odd);
    expect(raw.ascii).toBe(true);
    expect([...raw.nodes.multiline]).toEqual([2]);
    // a byte-order mark before the document
    expectSameAsBefore(`\ufeff${JSON.stringify(sample)}`);
  });

  it('counts UTF-8 bytes of non-ASCII text when filling chunks to the limit', () => {
    const nodes = Array.from({ length: 60 }, (_, i) =>
      node('Service', `svc-${i}-ü€🚀`, { pad: 'é'.repeat(20 + i) }),
    );
    const text = JSON.stringify(envelope(nodes));
    const raw = expectSameAsBefore(text, 1024);
    expect(raw.ascii).toBe(false);
    expect((ingestText(text, 1024).chunks as Chunk[]).length).toBeGreaterThan(3);
  });

  it('refuses an item over the limit as the serializing chunker does, judged on its serialized size', () => {
    const big = node('Service', 'big', { pad: 'x'.repeat(2000) });
    const { chunks, old } = ingestText(JSON.stringify(envelope([lb, big])), 1024);
    expect(chunks).toMatch(/^\/nodes\/1 alone is \d+ bytes/);
    expect(chunks).toBe(old);
    // Written with white space that serializing drops, an item that fits serialized is taken.
    const spaced = `{"source":"s","kind":"asset","observed_at":"2025-01-01T00:00:00Z","nodes":[${JSON.stringify(lb)},{"label":"Service",${' '.repeat(3000)}"name":"spaced"}],"edges":[]}`;
    expect(ingestText(spaced, 1024).chunks).toHaveLength(1);
    expectSameAsBefore(spaced, 1024);
  });
});

/** Every file under the real fixtures, as far as a normalizer yields envelopes from it. */
function realEnvelopes(): { file: string; envelope: EventEnvelope }[] {
  const sources = createSources();
  const found: { file: string; envelope: EventEnvelope }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else {
        try {
          const { body } = readReport(decodeReportFile(readFileSync(file)));
          const source = sources.get(recognizeReport(body) ?? '');
          if (!source) continue;
          const output = source.normalize({
            body,
            query: { repo: 'example/repo', cluster: 'test-cluster' },
            receivedAt: new Date(0).toISOString(),
          });
          for (const e of output.envelopes) found.push({ file: path.relative(REAL, file), envelope: e });
        } catch {
          // not a report a normalizer takes as it is (it needs a query of its own): others cover it
        }
      }
    }
  };
  walk(REAL);
  return found;
}

describe('chunks from the text, on the demo estate and what the normalizers make of the real reports', () => {
  const demo = readFileSync(new URL('../../fixtures/demo/estate.json', import.meta.url), 'utf8');

  it('the demo estate, whole and split small', () => {
    expectSameAsBefore(demo);
    expectSameAsBefore(demo, 2048);
  });

  const real = realEnvelopes();
  it('finds enough real reports to mean something', () => {
    expect(real.length).toBeGreaterThan(40);
    expect(real.reduce((n, r) => n + r.envelope.nodes.length + r.envelope.edges.length, 0)).toBeGreaterThan(
      1000,
    );
  });

  it.each(['compact', 'pretty', 'crlf', 'escaped'] as const)('every real report, written %s', (style) => {
    for (const { file, envelope: e } of real) {
      const json =
        style === 'compact'
          ? JSON.stringify(e)
          : style === 'pretty'
            ? JSON.stringify(e, null, 2)
            : style === 'crlf'
              ? JSON.stringify(e, null, 1).replace(/\n/g, '\r\n')
              : escapeNonAscii(JSON.stringify(e));
      for (const limit of [undefined, 16 * 1024]) {
        try {
          expectSameAsBefore(json, limit);
        } catch (error) {
          throw new Error(`${file} (${style}, limit ${limit}): ${(error as Error).message}`, {
            cause: error,
          });
        }
      }
    }
  });
});
