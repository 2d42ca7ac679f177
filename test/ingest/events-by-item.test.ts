// An `events` body prepared item by item (src/ingest/events-by-item.ts, the ingest worker's path) gives what
// prepareReport gives for the whole parsed body: the same chunks' JSON in the same order, counts, scope and
// redactions. A body it does not settle (not JSON, refused, a pull request's scan, empty) is left to
// prepareReport before any chunk is told: so every refusal stays the problem the whole body gets.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { prepareEventsByItem } from '../../src/ingest/events-by-item.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { prepareReport } from '../../src/ingest/prepare.js';
import { ProblemError } from '../../src/http/problems.js';
import { createSources } from '../../src/ingest/sources/index.js';
import { edge, envelope, node } from '../helpers/envelope.js';

const events = createSources().get('events')!;
const AT = 1_700_000_000_000;

// Secret-shaped values are assembled at run time so the repository holds no literal a scanner flags.
const PASSWORD = `password=${['hunter', '22hunter'].join('')}`;
const AWS_KEY = ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join('');

function byItem(text: string, query: Record<string, string> = {}, scrub = true) {
  const told: string[] = [];
  const out = prepareEventsByItem(events, text, {
    query,
    receivedAt: AT,
    scrub,
    onChunk: (chunk) => told.push(chunk.json),
  });
  return { out, told };
}

function whole(text: string, query: Record<string, string> = {}, scrub = true) {
  return prepareReport(events, {
    body: parseJsonBody(text, { keepText: true }),
    query,
    receivedAt: AT,
    scrub,
  });
}

/** The item-by-item result of `text` is the whole body's. */
function expectSame(text: string, query: Record<string, string> = {}, scrub = true) {
  const expected = whole(text, query, scrub);
  const { out, told } = byItem(text, query, scrub);
  expect(out).toEqual({
    chunks: [],
    nodes: expected.nodes,
    edges: expected.edges,
    warnings: expected.warnings,
    scope: expected.scope,
    redactions: expected.redactions,
  });
  expect(told).toEqual(expected.chunks.map((c) => c.json));
  return { expected, told };
}

/** `text` is left to prepareReport: nothing told, and the whole body is what it always was (here refused). */
function expectLeft(text: string, query: Record<string, string> = {}) {
  const { out, told } = byItem(text, query);
  expect(out).toBeUndefined();
  expect(told).toEqual([]);
}

function refusal(run: () => unknown): ProblemError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  return undefined;
}

/** An estate of `count` services each reaching a database, every fifth without an id, some with secrets. */
function estate(count: number, options: { unicode?: boolean; secretsAt?: number[] } = {}) {
  const secrets = new Set(options.secretsAt ?? []);
  const nodes = [];
  const edges = [];
  for (let i = 0; i < count; i++) {
    const name = options.unicode ? `svc-${i}-naïve ☃ 🚀` : `svc-${i}`;
    const service = node('Service', name, {
      team: `team-${i % 7}`,
      ...(secrets.has(i) && { note: `${PASSWORD} in the runbook` }),
    });
    const database = node('Database', `db-${i}`, { engine: 'postgres' });
    nodes.push(
      i % 5 === 0 ? { label: service.label, name: service.name, properties: service.properties } : service,
    );
    nodes.push(database);
    const e = edge('CONNECTS_TO', service, database, 0.5 + (i % 50) / 100);
    edges.push(secrets.has(i) ? { ...e, properties: { key: AWS_KEY } } : e);
  }
  return envelope(nodes as never, edges);
}

describe('an events body item by item', () => {
  it('cuts the chunks prepareReport cuts from a compact body, ids derived and secrets scrubbed', () => {
    // Over a chunk and over one run of items: secrets in the first run, the second and the last item.
    const text = JSON.stringify(estate(6000, { secretsAt: [3, 300, 5999] }));
    const { expected } = expectSame(text);
    expect(expected.chunks.length).toBeGreaterThan(1);
    expect(Object.values(expected.redactions).reduce((a, b) => a + b, 0)).toBe(6);
    // The derived ids and the scrubbed items are in the chunks as the whole body's are, not as written.
    expect(expected.chunks[0].json).toContain(`"id":"${nodeId('Service', 'svc-0')}"`);
    expect(expected.chunks.map((c) => c.json).join('')).not.toContain(AWS_KEY);
  });

  it('cuts the same chunks from a pretty-printed, a non-ASCII and a byte-order-marked body', () => {
    expectSame(JSON.stringify(estate(300, { secretsAt: [7] }), null, 2));
    expectSame(JSON.stringify(estate(3000, { unicode: true, secretsAt: [2999] })));
    expectSame(`\ufeff${JSON.stringify(estate(40))}`);
  });

  it('prepares the demo estate (pretty-printed, as a person writes one) as the whole body', () => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../../fixtures/demo/estate.json'), 'utf8');
    const { expected } = expectSame(text, { snapshot: 'cluster:demo' });
    expect(expected.nodes).toBeGreaterThan(10);
  });

  it('reads the body as JSON.parse does: white space anywhere, keys in any order, a key given twice', () => {
    const body = estate(30);
    expectSame(
      `{ "edges" :\n[ ${body.edges.map((e) => JSON.stringify(e)).join(' ,\n')} ] , "source":"a", "nodes":\t[${body.nodes
        .map((n) => JSON.stringify(n))
        .join(',')}\r\n], "kind":"asset", "observed_at":"2026-11-01T00:00:00Z", "source":"b" }`,
    );
    // The last `nodes` counts; the first is read by neither.
    expectSame(
      `{"source":"t","kind":"asset","observed_at":"2026-11-01T00:00:00Z","nodes":[{"label":"VirtualMachine","name":"gone"}],"edges":[],"nodes":${JSON.stringify(body.nodes)}}`,
    );
  });

  it('gives the scope of a snapshot and of none, and leaves scrubbing off when told', () => {
    const text = JSON.stringify(estate(50, { secretsAt: [1] }));
    expect(expectSame(text, { snapshot: 'cluster:prod' }).expected.scope).toBe('events|cluster:prod');
    expectSame(text, { snapshot: 'none' });
    expect(expectSame(text, {}, false).expected.redactions).toEqual({});
  });

  it('keeps an item too large to stay as written, and refuses one too large for the bus as prepareReport does', () => {
    const big = node('Service', 'big', { blob: 'é'.repeat(400_000) });
    expectSame(JSON.stringify(envelope([big, node('VirtualMachine', 'h')])));
    const huge = JSON.stringify(envelope([node('Service', 'huge', { blob: 'x'.repeat(1_100_000) })]));
    const expected = refusal(() => whole(huge));
    expect(expected?.problem.type).toMatch(/invalid-payload/);
    expect(refusal(() => byItem(huge))?.problem).toEqual(expected!.problem);
  });

  const good = JSON.stringify(estate(20));
  const LEFT: [string, string][] = [
    ['not JSON at the end', `${good.slice(0, -1)}`],
    ['a stray comma between items', good.replace('},{', '},,{')],
    ['a comma before the first item', good.replace('"nodes":[', '"nodes":[,')],
    ['a comma after the last item', good.replace(']}', ',]}')],
    ['a control character between items', good.replace('},{', '},\u0001{')],
    ['two values where one item should be', good.replace('},{', '} {')],
    ['an item of an unknown label', good.replace('"label":"Database"', '"label":"Toaster"')],
    [
      'an id that is not its derivation',
      good.replace(/"id":"Service:[0-9a-f]{16}"/, '"id":"Service:0000000000000000"'),
    ],
    ['an edge to an unknown label', good.replace(/"to":"Database:/, '"to":"Toaster:')],
    ['an unknown field in an item', good.replace('"label":"Database"', '"label":"Database","colour":"red"')],
    ['a prototype key in an item', good.replace('"engine":"postgres"', '"__proto__":{"x":1}')],
    ['an out-of-range score', good.replace('"engine":"postgres"', '"cvss_score":11')],
    ['an unknown top-level field', good.replace('"source":', '"extra":1,"source":')],
    ['no observed_at', good.replace(/"observed_at":"[^"]*",/, '')],
    ['nodes that are not an array', good.replace(/"nodes":\[.*\],"edges"/, '"nodes":{},"edges"')],
    ['a last nodes key that is not an array', good.replace(/\}$/, ',"nodes":7}')],
    ['nothing in it', JSON.stringify(envelope([]))],
    ['an empty body', '  '],
    ['nesting too deep', good.replace('"engine":"postgres"', `"deep":${'['.repeat(140)}${']'.repeat(140)}`)],
  ];

  it.each(LEFT)('leaves a body with %s to prepareReport', (_, text) => {
    expectLeft(text);
    // …which refuses it, or (nothing in it, not a snapshot) warns: either way a settled answer of its own.
    const refused = refusal(() => whole(text));
    if (!refused) expect(whole(text).warnings.length).toBeGreaterThan(0);
  });

  it("leaves a pull request's scan (every node stamped) and a bad snapshot request to prepareReport", () => {
    expectLeft(good, { repo: 'acme/shop', pr: '7', sha: 'a'.repeat(40) });
    expect(whole(good, { repo: 'acme/shop', pr: '7', sha: 'a'.repeat(40) }).nodes).toBe(40);
    expectLeft(good, { snapshot: '' });
  });

  it('agrees with the whole body on random edits of a valid one: the same result, or left when it is refused', () => {
    // A seeded generator: the same edits every run.
    let seed = 0x2545f491;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const INSERTS = ['{', '}', '[', ']', ',', '"', '\\', ':', ' ', '\n', '\u0001', 'x', '0', '-', 'é'];
    const base = [
      JSON.stringify(estate(12, { secretsAt: [3] })),
      JSON.stringify(estate(6), null, 1),
      JSON.stringify(estate(8, { unicode: true })),
    ];
    let same = 0;
    let left = 0;
    for (let round = 0; round < 600; round++) {
      let text = base[round % base.length];
      for (let edits = 1 + Math.floor(random() * 2); edits > 0; edits--) {
        const at = Math.floor(random() * text.length);
        text =
          random() < 0.5
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + INSERTS[Math.floor(random() * INSERTS.length)] + text.slice(at);
      }
      let expected: ReturnType<typeof whole> | undefined;
      try {
        expected = whole(text);
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
      }
      if (expected && expected.nodes + expected.edges > 0) {
        expectSame(text);
        same++;
      } else {
        expectLeft(text);
        left++;
      }
    }
    // Both kinds of edit occur often enough to mean something.
    expect(same).toBeGreaterThan(30);
    expect(left).toBeGreaterThan(200);
  });
});
