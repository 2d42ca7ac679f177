// What an ingest worker does with a report body (src/ingest/report-worker.ts) is what the event loop does
// with it (src/ingest/prepare.ts): for real reports of the sources a worker takes, the same chunks in the
// same order, the same counts, warnings, scope and redactions; refusals as the same problem. And the pool
// (src/ingest/report-pool.ts) on a real worker thread hands back the same chunks, as JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/http/problems.js';
import { joinEnvelopeJson, parseEnvelopeJson } from '../../src/ingest/envelope-json.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { prepareReport } from '../../src/ingest/prepare.js';
import { createReportPool } from '../../src/ingest/report-pool.js';
import {
  runReportJob,
  WORKER_SOURCES,
  type ReportJob,
  type ReportReply,
} from '../../src/ingest/report-worker.js';
import { createSources } from '../../src/ingest/sources/index.js';
import { envelope, node } from '../helpers/envelope.js';

const REAL = path.resolve(import.meta.dirname, '../../../shared/fixtures/real');
const sources = createSources();

const CASES: { source: string; file: string; query?: Record<string, string> }[] = [
  { source: 'trivy', file: 'trivy/alpine-310-registry.json' },
  { source: 'semgrep', file: 'semgrep/defectdojo-many_vulns.json', query: { repo: 'acme/shop' } },
  { source: 'iam', file: 'iam/cloudsplaining-test-example-authz-details.json' },
  { source: 'k8s', file: 'k8s/popeye-combined-list.json', query: { snapshot: 'cluster:prod' } },
];

function job(source: string, text: string, query: Record<string, string> = {}): ReportJob {
  return {
    id: 7,
    source,
    bytes: new Uint8Array(Buffer.from(text)),
    query,
    receivedAt: 1_700_000_000_000,
    scrub: true,
  };
}

/** What a message hands over rather than copies, by the reply it came with. */
const transferred = new WeakMap<object, ArrayBuffer[]>();

function run(j: ReportJob): ReportReply[] {
  const replies: ReportReply[] = [];
  runReportJob(sources, j, (reply, transfer) => {
    if (transfer) transferred.set(reply, transfer);
    replies.push(reply);
  });
  return replies;
}

describe('runReportJob', () => {
  it.each(CASES)('$source: $file prepares as on the event loop', ({ source, file, query }) => {
    const text = readFileSync(path.join(REAL, file), 'utf8');
    const replies = run(job(source, text, query));
    const expected = prepareReport(sources.get(source)!, {
      body: parseJsonBody(text),
      query: query ?? {},
      receivedAt: 1_700_000_000_000,
      scrub: true,
    });
    const chunks = replies.filter((r): r is { id: number; chunk: string } => 'chunk' in r);
    const answer = replies.at(-1)!;
    expect(replies.every((r) => r.id === 7)).toBe(true);
    expect(chunks.map((c) => c.chunk)).toEqual(expected.chunks.map((c) => c.json));
    expect(answer).toEqual({
      id: 7,
      ok: true,
      chunks: [],
      nodes: expected.nodes,
      edges: expected.edges,
      warnings: expected.warnings,
      ...(expected.scope !== undefined && { scope: expected.scope }),
      redactions: expected.redactions,
    });
    expect(expected.nodes + expected.edges).toBeGreaterThan(0);
  });

  it('posts a chunk cut from the request text as bytes, arrays of its items in groups, handed over', () => {
    // Compact, with ids: a chunk's items are runs of the text between brackets (several pieces on the event
    // loop).
    const nodes = Array.from({ length: 4000 }, (_, i) =>
      node('Service', `svc-${i}-naïve ☃ 🚀`, { note: 'p'.repeat(300) }),
    );
    const text = JSON.stringify(envelope(nodes));
    const replies = run(job('events', text));
    const expected = prepareReport(sources.get('events')!, {
      body: parseJsonBody(text, { keepText: true }),
      query: {},
      receivedAt: 1_700_000_000_000,
      scrub: true,
    });
    expect(expected.chunks.length).toBeGreaterThan(1);
    expect(expected.chunks.every((c) => c.split)).toBe(true);
    const posted = replies.filter((r) => 'chunk' in r);
    expect(posted).toHaveLength(expected.chunks.length);
    posted.forEach((reply, i) => {
      const { chunk } = reply;
      if (typeof chunk === 'string' || !('bytes' in chunk)) throw new Error('a slice not posted as bytes');
      // Its bytes are its own buffer, handed over with the message: nothing of it is copied.
      expect(transferred.get(reply)).toEqual([chunk.bytes.buffer]);
      expect(chunk.bytes.byteOffset).toBe(0);
      expect(chunk.bytes.byteLength).toBe(chunk.bytes.buffer.byteLength);
      // Each group an array of its own, small enough for the young generation once decoded.
      expect(chunk.ends.length).toBeGreaterThan(1);
      let from = 0;
      for (const end of chunk.ends) {
        const group = Buffer.from(chunk.bytes.subarray(from, end)).toString('utf8');
        expect(Array.isArray(JSON.parse(group))).toBe(true);
        expect(group.length).toBeLessThan(96 * 1024);
        from = end;
      }
      expect(from).toBe(chunk.bytes.length);
      expect(joinEnvelopeJson(chunk)).toBe(expected.chunks[i].json);
      expect(parseEnvelopeJson(chunk)).toEqual(expected.chunks[i].envelope);
    });
  });

  it('posts a chunk kept whole as its one string, nothing handed over', () => {
    const text = JSON.stringify(envelope([node('Service', 'small')]));
    const replies = run(job('events', text));
    const posted = replies.filter((r) => 'chunk' in r);
    expect(posted).toHaveLength(1);
    expect(typeof posted[0].chunk).toBe('string');
    expect(transferred.has(posted[0])).toBe(false);
  });

  it('answers a refusal with the problem the event loop would throw', () => {
    const text = '{"apiVersion":"v1","kind":"List","items":[]}';
    const [answer] = run(job('k8s', text, { snapshot: 'cluster:prod' }));
    let thrown: unknown;
    try {
      prepareReport(sources.get('k8s')!, {
        body: parseJsonBody(text),
        query: { snapshot: 'cluster:prod' },
        receivedAt: 0,
        scrub: true,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect(answer).toEqual({ id: 7, ok: false, problem: (thrown as ProblemError).problem });
  });

  it('does not take supplychain, whose signatures are checked against trust loaded on the main thread', () => {
    expect(WORKER_SOURCES.has('supplychain')).toBe(false);
    const [answer] = run(job('supplychain', '{"image":"ghcr.io/acme/web:1","signed":true}'));
    expect(answer).toMatchObject({ ok: false, message: expect.stringContaining('supplychain') });
  });

  it('takes every other source the service has', () => {
    expect([...sources.keys()].filter((name) => !WORKER_SOURCES.has(name))).toEqual(['supplychain']);
  });
});

describe('the report pool, on a worker thread', () => {
  const pool = createReportPool({ threads: 1, seedIamUsers: false });
  afterAll(() => pool.close());

  it('hands back the chunks as JSON, and a refusal as the ProblemError', async () => {
    await pool.prestart();
    const text = readFileSync(path.join(REAL, 'k8s/popeye-combined-list.json'), 'utf8');
    const prepared = await pool.prepare(job('k8s', text));
    const expected = prepareReport(sources.get('k8s')!, {
      body: parseJsonBody(text),
      query: {},
      receivedAt: 1_700_000_000_000,
      scrub: true,
    });
    expect(prepared.chunks.map((c) => c.json)).toEqual(expected.chunks.map((c) => c.json));
    expect(prepared.nodes).toBe(expected.nodes);
    const bad = job(
      'events',
      '{"source":"x","kind":"asset","nodes":[{"label":"Spaceship","name":"a"}],"edges":[]}',
    );
    await expect(pool.prepare(bad)).rejects.toBeInstanceOf(ProblemError);
    await expect(pool.prepare(job('events', '{"nodes": ['))).rejects.toMatchObject({
      problem: { type: expect.stringMatching(/malformed-json$/) },
    });
  });
});
