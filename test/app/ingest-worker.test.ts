// Large JSON report bodies are prepared on an ingest worker thread (INGEST_THREADS, src/ingest/report-pool.ts):
// the listener leaves a body of a megabyte and more as bytes, and a worker parses, normalizes, scrubs and
// chunks it. Real reports, sent with enough whitespace to cross the megabyte, go through a service with a
// worker and one without (INGEST_THREADS=0): the receipts, the answers to bad reports, the graphs and the
// journal's replay must be the same, and the worker must really have taken them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawJsonBody, WORKER_BODY_BYTES } from '../../src/ingest/report-pool.js';
import { makeService, type TestService } from '../helpers/service.js';

const REAL = path.resolve(import.meta.dirname, '../../../shared/fixtures/real');

/** A real report's text, indented until it is over the megabyte the listener defers at: same JSON value. */
function padded(file: string): string {
  const value = JSON.parse(readFileSync(path.join(REAL, file), 'utf8')) as unknown;
  const text = JSON.stringify(value, null, 2);
  return text + ' '.repeat(Math.max(0, WORKER_BODY_BYTES + 1 - Buffer.byteLength(text)));
}

const REPORTS: { source: string; file: string; query?: string }[] = [
  { source: 'trivy', file: 'trivy/spring4shell-jre8-archive.json' },
  { source: 'semgrep', file: 'semgrep/defectdojo-many_vulns.json', query: 'repo=acme/shop' },
  { source: 'iam', file: 'iam/cloudsplaining-examples-authz-details-2020.json' },
  { source: 'k8s', file: 'k8s/popeye-combined-list.json' },
];

let worker: TestService;
let inline: TestService;
/** Whether each request's handler got the body unparsed (for a worker), by request id. */
const deferred = new Map<string, boolean>();
/**
 * Whether an unparsed body's bytes were copied after the read (a plain Uint8Array) instead of being the
 * very Buffer the listener read it into, by request id.
 */
const copied = new Map<string, boolean>();
/** The memory each unparsed body's bytes were read into, by request id. */
const memory = new Map<string, ArrayBufferLike>();

beforeAll(async () => {
  worker = await makeService({ INGEST_THREADS: '1' }, { engine: { ingestWorkersAlways: true } });
  inline = await makeService({ INGEST_THREADS: '0' });
  for (const service of [worker, inline]) observe(service);
});

/** Notes, by request id, whether each request's body reached the handler unparsed (for a worker). */
function observe(service: TestService): void {
  service.ingestApp.addHook('preHandler', async (request) => {
    deferred.set(request.id, request.body instanceof RawJsonBody);
    if (request.body instanceof RawJsonBody) {
      copied.set(request.id, !Buffer.isBuffer(request.body.bytes));
      memory.set(request.id, request.body.bytes.buffer);
    }
  });
}
afterAll(async () => {
  await worker?.dispose();
  await inline?.dispose();
});

async function send(
  service: TestService,
  source: string,
  body: string,
  query?: string,
): Promise<{ status: number; json: any; deferred: boolean | undefined }> {
  const response = await service.ingestApp.inject({
    method: 'POST',
    url: `/ingest/${source}${query ? `?${query}` : ''}`,
    headers: { 'content-type': 'application/json' },
    payload: body,
  });
  return {
    status: response.statusCode,
    json: response.json(),
    deferred: deferred.get(String(response.headers['x-request-id'])),
  };
}

/** Every node and edge of a tenant, with its attributes, minus when each was seen. */
function graphOf(service: TestService, tenant = 'default'): { nodes: unknown[]; edges: unknown[] } {
  const graph = service.engine.tenant(tenant)?.graph;
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  graph?.forEachNode((id, attrs) => {
    const { lastSeen: _seen, compileIndex: _index, ...rest } = attrs as unknown as Record<string, unknown>;
    nodes.push({ id, ...rest });
  });
  graph?.forEachEdge((_key, attrs, from, to) => {
    const { lastSeen: _seen, compileIndex: _index, ...rest } = attrs as unknown as Record<string, unknown>;
    edges.push({ from, to, ...rest });
  });
  return { nodes, edges };
}

/** Sends a report to the service with a worker and the one without, for `tenant`: their answers, in that order. */
function sendToBoth(
  report: (typeof REPORTS)[number],
  body: string,
  tenant: string,
): Promise<{ status: number; json: any; id: string }[]> {
  return Promise.all(
    [worker, inline].map(async (service) => {
      const response = await service.ingestApp.inject({
        method: 'POST',
        url: `/ingest/${report.source}${report.query ? `?${report.query}` : ''}`,
        headers: { 'content-type': 'application/json', 'x-tenant': tenant },
        payload: body,
      });
      return {
        status: response.statusCode,
        json: response.json(),
        id: String(response.headers['x-request-id']),
      };
    }),
  );
}

describe('large real reports on the ingest worker', () => {
  it.each(REPORTS)('$source: $file gives the same receipt and graph as on the event loop', async (report) => {
    const body = padded(report.file);
    expect(Buffer.byteLength(body)).toBeGreaterThanOrEqual(WORKER_BODY_BYTES);
    const tenant = `t-${report.source}`;
    const sent = await sendToBoth(report, body, tenant);
    expect(sent[0].status).toBe(202);
    expect(deferred.get(sent[0].id)).toBe(true);
    // Read where the worker reads it (its length was declared as large): not copied after the read.
    expect(copied.get(sent[0].id)).toBe(false);
    expect(deferred.get(sent[1].id)).toBe(false);
    const { batchId: _a, ...onWorker } = sent[0].json;
    const { batchId: _b, ...onLoop } = sent[1].json;
    expect(onWorker).toEqual(onLoop);
    expect(onWorker.nodes + onWorker.edges).toBeGreaterThan(0);
    await worker.settle();
    await inline.settle();
    const onWorkerGraph = graphOf(worker, tenant);
    expect(onWorkerGraph.nodes.length).toBeGreaterThan(0);
    expect(onWorkerGraph).toEqual(graphOf(inline, tenant));
  });

  it('reads the next large body into the memory the last one was read into, once the worker has read it', async () => {
    // The larger first: the listener's shared buffer is sized by the first body and reused for the next.
    const bodies = [REPORTS[0], REPORTS[3]]
      .map((report) => ({ report, body: padded(report.file) }))
      .sort((a, b) => Buffer.byteLength(b.body) - Buffer.byteLength(a.body));
    const read: ArrayBufferLike[] = [];
    for (const [i, { report, body }] of bodies.entries()) {
      const tenant = `t-reuse-${i}`;
      const answers = await sendToBoth(report, body, tenant);
      expect(answers.map((a) => a.status)).toEqual([202, 202]);
      read.push(memory.get(answers[0].id)!);
    }
    expect(read[0]).toBeInstanceOf(SharedArrayBuffer);
    expect(read[1]).toBe(read[0]);
    // The second body overwrote the first's bytes only after the worker had read them: both graphs are right.
    await worker.settle();
    await inline.settle();
    for (const tenant of ['t-reuse-0', 't-reuse-1']) {
      const graph = graphOf(worker, tenant);
      expect(graph.nodes.length).toBeGreaterThan(0);
      expect(graph).toEqual(graphOf(inline, tenant));
    }
  });

  it('prepares a large body on the event loop while no graph write is pending (the worker is for busy times)', async () => {
    const idle = await makeService({ INGEST_THREADS: '1' });
    observe(idle);
    try {
      const answer = await send(idle, 'trivy', padded('trivy/spring4shell-jre8-archive.json'));
      expect(answer.status).toBe(202);
      expect(answer.deferred).toBe(false);
    } finally {
      await idle.dispose();
    }
  });

  it('leaves a body under the megabyte to the event loop', async () => {
    const small = readFileSync(path.join(REAL, 'trivy/spring4shell-jre8-archive.json'), 'utf8');
    const answer = await send(worker, 'trivy', small);
    expect(answer.status).toBe(202);
    expect(answer.deferred).toBe(false);
  });
});

describe('bad large reports answer as on the event loop', () => {
  const nodes = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      label: 'Service',
      name: `svc-${i}-${'x'.repeat(40)}`,
      properties: { owner: 'payments' },
    }));

  it('a syntax error names its line and column', async () => {
    const text = JSON.stringify({ source: 'x', kind: 'asset', nodes: nodes(12_000), edges: [] }, null, 1);
    const broken = `${text.slice(0, -2)},}`;
    expect(Buffer.byteLength(broken)).toBeGreaterThan(WORKER_BODY_BYTES);
    const [onWorker, onLoop] = await Promise.all([
      send(worker, 'events', broken),
      send(inline, 'events', broken),
    ]);
    expect(onWorker.deferred).toBe(true);
    expect(onWorker.status).toBe(400);
    expect(onWorker.json.type).toMatch(/malformed-json$/);
    expect(onWorker.json.detail).toMatch(/line \d+/);
    expect(onWorker.json).toEqual(onLoop.json);
  });

  it('a node outside the vocabulary is named by its pointer', async () => {
    const all = nodes(12_000);
    all[11_000] = { ...all[11_000], label: 'Spaceship' };
    const body = JSON.stringify({ source: 'x', kind: 'asset', nodes: all, edges: [] });
    const [onWorker, onLoop] = await Promise.all([
      send(worker, 'events', body),
      send(inline, 'events', body),
    ]);
    expect(onWorker.deferred).toBe(true);
    expect(onWorker.status).toBe(400);
    expect(JSON.stringify(onWorker.json)).toContain('/nodes/11000');
    expect(onWorker.json).toEqual(onLoop.json);
  });

  it('a complete snapshot that yields nothing is refused, and retracts nothing', async () => {
    const empty =
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }) + ' '.repeat(WORKER_BODY_BYTES);
    const [onWorker, onLoop] = await Promise.all([
      send(worker, 'k8s', empty, 'snapshot=cluster:prod'),
      send(inline, 'k8s', empty, 'snapshot=cluster:prod'),
    ]);
    expect(onWorker.deferred).toBe(true);
    expect(onWorker.status).toBe(400);
    expect(onWorker.json.type).toMatch(/empty-snapshot$/);
    expect(onWorker.json).toEqual(onLoop.json);
  });

  it('a body of nulls is refused by the envelope check, nothing stored', async () => {
    const before = worker.engine.tenant('default')?.graph.order ?? 0;
    const body = `[${Array.from({ length: 300_000 }, () => 'null').join(',')}]`;
    const answer = await send(worker, 'events', body);
    expect(answer.deferred).toBe(true);
    expect(answer.status).toBe(400);
    expect(answer.json.type).toMatch(/invalid-payload$/);
    expect(worker.engine.tenant('default')?.graph.order ?? 0).toBe(before);
  });
});

describe('what the worker prepares is kept as the event loop would keep it', () => {
  it('scrubs a secret before the journal, and a restart replays the same graph', async () => {
    const key = ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join('');
    const service = await makeService({ INGEST_THREADS: '1' }, { engine: { ingestWorkersAlways: true } });
    observe(service);
    let kept = false;
    try {
      const nodes = Array.from({ length: 12_000 }, (_, i) => ({
        label: 'Service',
        name: `billing-${i}`,
        properties: i === 7 ? { env: `AWS_ACCESS_KEY_ID=${key}` } : { owner: `team-${'x'.repeat(60)}` },
      }));
      const body = JSON.stringify({
        source: 'deploy',
        kind: 'asset',
        observed_at: '2026-11-28T00:00:00Z',
        nodes,
        edges: [],
      });
      const answer = await send(service, 'events', body);
      expect(answer.status).toBe(202);
      expect(answer.deferred).toBe(true);
      await service.settle();
      const before = graphOf(service);
      expect(before.nodes).toHaveLength(12_000);
      expect(JSON.stringify(before)).not.toContain(key);
      expect(JSON.stringify(before)).toContain('***redacted:');
      const metrics = await service.tenantMetrics();
      expect(metrics.body).toMatch(/service_ingest_secrets_redacted_total\{[^}]*\} 1/);
      const journal = path.join(service.dataDir, 'journal');
      for (const file of readdirSync(journal))
        expect(readFileSync(path.join(journal, file), 'latin1')).not.toContain(key);
      await service.dispose({ keepData: true });
      kept = true;
      const again = await makeService(
        { INGEST_THREADS: '1' },
        { dataDir: service.dataDir, engine: { ingestWorkersAlways: true } },
      );
      try {
        await again.settle();
        expect(graphOf(again)).toEqual(before);
      } finally {
        await again.dispose();
      }
    } finally {
      if (!kept) await service.dispose();
    }
  });
});
