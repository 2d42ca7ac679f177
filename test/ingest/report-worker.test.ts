// What an ingest worker does with a report body (src/ingest/report-worker.ts) is what the event loop does
// with it (src/ingest/prepare.ts): for real reports of the sources a worker takes, the same chunks in the
// same order, the same counts, warnings, scope and redactions; refusals as the same problem. And the pool
// (src/ingest/report-pool.ts) on a real worker thread hands back the same chunks, as JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/http/problems.js';
import {
  doneWith,
  joinEnvelopeJson,
  parseEnvelopeJson,
  type EnvelopeJson,
} from '../../src/ingest/envelope-json.js';
import { parseJsonBody } from '../../src/ingest/json-body.js';
import { prepareReport } from '../../src/ingest/prepare.js';
import { createReportPool } from '../../src/ingest/report-pool.js';
import {
  chunkBuffers,
  PREFILLED_BUFFERS,
  runReportJob,
  WORKER_SOURCES,
  type ReportJob,
  type ReportReply,
} from '../../src/ingest/report-worker.js';
import { BUS_MESSAGE_LIMIT } from '../../src/ingest/chunk.js';
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
      // Its bytes are its own buffer (a fresh one without chunkBuffers), handed over with the message:
      // nothing of it is copied.
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

  it('posts a chunk in shared memory from chunkBuffers as it is, nothing transferred', () => {
    const nodes = Array.from({ length: 4000 }, (_, i) =>
      node('Service', `svc-${i}`, { note: 'p'.repeat(300) }),
    );
    const text = JSON.stringify(envelope(nodes));
    const buffers = chunkBuffers();
    const replies: ReportReply[] = [];
    const transfers: (ArrayBuffer[] | undefined)[] = [];
    runReportJob(
      sources,
      job('events', text),
      (reply, transfer) => {
        if ('chunk' in reply) transfers.push(transfer);
        replies.push(reply);
      },
      buffers.take,
    );
    const chunks = replies.flatMap((r) => ('chunk' in r && typeof r.chunk !== 'string' ? [r.chunk] : []));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      if (!('bytes' in chunk)) throw new Error('not bytes');
      expect(chunk.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    // A transfer list naming shared memory would fail the post.
    expect(transfers.every((t) => t?.length === 0)).toBe(true);
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

  it('answers a refused events body with the problem the event loop would throw, nothing posted before it', () => {
    // Read item by item on a worker (events-by-item.ts), a body that fails a check goes the whole body's way.
    const nodes = Array.from({ length: 600 }, (_, i) => node('Service', `svc-${i}`));
    const text = JSON.stringify(envelope(nodes)).replace(
      '"label":"Service","name":"svc-599"',
      '"label":"Toaster","name":"svc-599"',
    );
    const replies = run(job('events', text));
    let thrown: unknown;
    try {
      prepareReport(sources.get('events')!, {
        body: parseJsonBody(text, { keepText: true }),
        query: {},
        receivedAt: 0,
        scrub: true,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect(replies).toEqual([{ id: 7, ok: false, problem: (thrown as ProblemError).problem }]);
  });

  it('does not take supplychain, whose signatures are checked against trust loaded on the main thread', () => {
    expect(WORKER_SOURCES.has('supplychain')).toBe(false);
    const [answer] = run(job('supplychain', '{"image":"ghcr.io/acme/web:1","signed":true}'));
    expect(answer).toMatchObject({ ok: false, message: expect.stringContaining('supplychain') });
  });

  it('encodes chunks into the buffers it is given, handed back ones first', () => {
    const nodes = Array.from({ length: 4000 }, (_, i) =>
      node('Service', `svc-${i}`, { note: 'p'.repeat(300) }),
    );
    const text = JSON.stringify(envelope(nodes));
    const buffers = chunkBuffers();
    // A buffer full of stale text, as one handed back after an earlier report.
    const stale = new SharedArrayBuffer(BUS_MESSAGE_LIMIT);
    new Uint8Array(stale).fill('}'.charCodeAt(0));
    buffers.keep(stale);
    const given: SharedArrayBuffer[] = [];
    const replies: ReportReply[] = [];
    runReportJob(
      sources,
      job('events', text),
      (reply) => replies.push(reply),
      (bytes) => {
        const buffer = buffers.take(bytes);
        given.push(buffer);
        return buffer;
      },
    );
    const chunks = replies.flatMap((r) => ('chunk' in r && typeof r.chunk !== 'string' ? [r.chunk] : []));
    expect(chunks.length).toBeGreaterThan(1);
    expect(given[0]).toBe(stale);
    chunks.forEach((chunk, i) => {
      if (!('bytes' in chunk)) throw new Error('not bytes');
      expect(chunk.bytes.buffer).toBe(given[i]);
      expect(chunk.bytes.buffer.byteLength).toBeGreaterThanOrEqual(BUS_MESSAGE_LIMIT);
    });
    // The stale bytes past a chunk's own are never read.
    expect(chunks.flatMap((c) => parseEnvelopeJson(c).nodes)).toEqual(
      prepareReport(sources.get('events')!, {
        body: parseJsonBody(text, { keepText: true }),
        query: {},
        receivedAt: 1_700_000_000_000,
        scrub: true,
      }).chunks.flatMap((c) => c.envelope.nodes),
    );
  });

  it('keeps a bounded number of buffers handed back, and takes a fresh one when the last kept is too small', () => {
    const buffers = chunkBuffers();
    const small = new SharedArrayBuffer(16);
    buffers.keep(small);
    const fresh = buffers.take(1024);
    expect(fresh).not.toBe(small);
    expect(fresh.byteLength).toBe(BUS_MESSAGE_LIMIT);
    expect(buffers.take(2 * BUS_MESSAGE_LIMIT).byteLength).toBe(2 * BUS_MESSAGE_LIMIT);
    const kept = Array.from({ length: 100 }, () => new SharedArrayBuffer(BUS_MESSAGE_LIMIT));
    for (const buffer of kept) buffers.keep(buffer);
    const taken = new Set(Array.from({ length: 100 }, () => buffers.take(10)));
    // The first keep (too small) and 64 of the hundred are kept; the rest are fresh.
    expect(kept.filter((b) => taken.has(b))).toHaveLength(63);
  });

  it('makes buffers ready ahead of a report, taken before any fresh one, within the bound', () => {
    const buffers = chunkBuffers();
    buffers.prefill(PREFILLED_BUFFERS);
    expect(buffers.kept).toBe(PREFILLED_BUFFERS);
    const taken = Array.from({ length: PREFILLED_BUFFERS }, () => buffers.take(BUS_MESSAGE_LIMIT));
    expect(new Set(taken).size).toBe(PREFILLED_BUFFERS);
    for (const buffer of taken) {
      expect(buffer.byteLength).toBe(BUS_MESSAGE_LIMIT);
      // Written once (zeros): a report's chunk encoded into it is in memory already mapped.
      expect(new Uint8Array(buffer).every((b) => b === 0)).toBe(true);
    }
    expect(buffers.kept).toBe(0);
    buffers.prefill(1000);
    expect(buffers.kept).toBe(64);
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

  it('hands a chunk buffer back to the worker once the bus is done with it, and the next report is whole', async () => {
    await pool.prestart();
    const report = (n: number) =>
      JSON.stringify(
        envelope(
          Array.from({ length: 3000 }, (_, i) =>
            node('Service', `r${n}-svc-${i}-☃`, { note: 'q'.repeat(300 + n) }),
          ),
        ),
      );
    const expected = (text: string) =>
      prepareReport(sources.get('events')!, {
        body: parseJsonBody(text, { keepText: true }),
        query: {},
        receivedAt: 1_700_000_000_000,
        scrub: true,
      }).chunks.map((c) => c.json);
    const encoded = (json: EnvelopeJson) => {
      if (typeof json === 'string' || !('bytes' in json)) throw new Error('a slice not posted as bytes');
      return json;
    };
    // What each report's chunks held when they were handed back, seen through views the bus does not keep.
    let handedBack: { view: Uint8Array; held: Buffer }[] = [];
    for (const n of [1, 2, 3]) {
      const text = report(n);
      const prepared = await pool.prepare(job('events', text));
      expect(prepared.chunks.length).toBeGreaterThan(1);
      // The worker wrote this report into buffers the last one handed back: one memory, not copies.
      if (n > 1) expect(handedBack.some(({ view, held }) => !held.equals(view))).toBe(true);
      expect(prepared.chunks.map((c) => joinEnvelopeJson(c.json))).toEqual(expected(text));
      handedBack = [];
      for (const { json } of prepared.chunks) {
        const chunk = encoded(json);
        expect(chunk.release).toBeTypeOf('function');
        expect(chunk.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
        const view = new Uint8Array(chunk.bytes.buffer);
        handedBack.push({ view, held: Buffer.from(view) });
        doneWith(chunk);
        // Handed back to the worker, which fills it again: the chunk holds no view of it now; a second
        // call does nothing.
        expect(chunk.bytes.length).toBe(0);
        expect(chunk.release).toBeUndefined();
        doneWith(chunk);
      }
    }
    // With no worker running, nothing takes the buffer back; the chunk lets go of it all the same.
    const text = report(4);
    const prepared = await pool.prepare(job('events', text));
    await pool.release();
    const chunk = encoded(prepared.chunks[0].json);
    expect(joinEnvelopeJson(chunk)).toBe(expected(text)[0]);
    doneWith(chunk);
    expect(chunk.bytes.length).toBe(0);
  });
});
