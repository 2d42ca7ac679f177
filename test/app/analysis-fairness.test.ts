// Issue 31 item 4: heavy analyses were neither cancelled nor fair. A viewer sent 15 risk simulations and
// hung up after a second; the work ran on, and another tenant's simulation waited 57 s behind them. Now a
// disconnect or ANALYSIS_DEADLINE stops the analysis and its worker thread, and tenants take turns for the
// slots with a share of the queue each (src/analysis/analysis-service.ts, docs/analyses.md).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { buildApiServer } from '../../app/api-server.js';
import { AnalysisService } from '../../src/analysis/analysis-service.js';
import { TrustedProxies } from '../../src/auth/client-ip.js';
import { Lockout } from '../../src/auth/rate-limit.js';
import { loadSettings } from '../../src/config/settings.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

/** One route through `length` services: each Monte Carlo world walks all of it (a slow simulation). */
function chain(length: number) {
  const nodes = [
    node('LoadBalancer', 'edge-lb', { internet_exposed: true }),
    ...Array.from({ length }, (_, i) => node('Service', `svc-${i}`)),
    node('Database', 'vault', { crown_jewel: true }),
  ];
  return envelope(
    nodes,
    nodes.slice(1).map((n, i) => edge('CONNECTS_TO', nodes[i], n, 0.999)),
  );
}

const small = envelope(
  [node('LoadBalancer', 'lb', { internet_exposed: true }), node('Database', 'db', { crown_jewel: true })],
  [edge('CONNECTS_TO', node('LoadBalancer', 'lb'), node('Database', 'db'), 0.5)],
);

function apiWith(svc: TestService, analyses: AnalysisService) {
  const settings = loadSettings({ DATA_DIR: svc.dataDir });
  return buildApiServer({
    engine: svc.engine,
    metrics: svc.metrics,
    logger: pino({ level: 'silent' }),
    auth: settings.auth,
    lockout: new Lockout({ threshold: 10, windowMs: 60_000, lockMs: 60_000 }),
    trusted: new TrustedProxies([]),
    dataDir: svc.dataDir,
    governance: svc.governance,
    analyses,
  });
}

const gql = (query: string) => JSON.stringify({ query });

describe('heavy analyses stop when nobody waits for them', () => {
  it('a client that hangs up stops its simulations: the worker thread is terminated, the queue emptied', async () => {
    const svc = await makeService();
    const analyses = new AnalysisService({ seedIamUsers: false, slots: 1 }, svc.metrics);
    const api = apiWith(svc, analyses);
    try {
      expect((await svc.ingest(chain(2000))).status).toBe(202);
      await svc.settle();
      await api.listen({ host: '127.0.0.1', port: 0 });
      const { port } = api.server.address() as AddressInfo;
      // One million worlds over a 2,000-hop route runs for many seconds; a second one waits behind it.
      const body = gql(
        '{ a: riskSimulation(iterations: 900000) { iterations } b: riskSimulation(iterations: 100000) { iterations } }',
      );
      const request = http.request({
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      request.on('error', () => {});
      request.end(body);
      await vi.waitFor(() => expect(analyses.load).toEqual({ running: 1, waiting: 1 }), {
        timeout: 10_000,
      });
      // Let the worker get going, then hang up.
      await new Promise((resolve) => setTimeout(resolve, 500));
      request.destroy();
      await vi.waitFor(() => expect(analyses.load).toEqual({ running: 0, waiting: 0 }), {
        timeout: 5_000,
      });
      // Both analyses stopped (the running one and the waiting one), one worker thread terminated.
      expect(analyses.stopped).toEqual({ disconnect: 2, deadline: 0, workers: 1 });
      const metrics = await svc.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/service_api_heavy_cancelled_total\{reason="disconnect"\} 2/);
      // The slot is free for the next caller, on a fresh worker.
      const next = await api.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: gql('{ riskSimulation(iterations: 10) { iterations } }'),
      });
      expect(next.json()).toEqual({ data: { riskSimulation: { iterations: 10 } } });
    } finally {
      await api.close();
      await svc.dispose();
    }
  });

  it('ANALYSIS_DEADLINE stops a simulation that runs past it: 503 analysis-deadline naming the setting', async () => {
    // Deadline long enough for a worker thread to start under a busy test run; the simulation (30,000 hops,
    // a million worlds) far longer than it even on a quiet machine (3,000 hops finished within 4 s there).
    const svc = await makeService({ ANALYSIS_DEADLINE: '4s' });
    try {
      expect((await svc.ingest(chain(30000))).status).toBe(202);
      await svc.settle();
      const response = await svc.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: gql('{ riskSimulation(iterations: 1000000) { iterations } }'),
      });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toMatchObject({
        type: 'urn:pathgate:problem:analysis-deadline',
        status: 503,
        limit: 'ANALYSIS_DEADLINE',
        max: 4000,
      });
      expect(response.json().detail).toContain('ANALYSIS_DEADLINE');
      const metrics = await svc.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/service_api_heavy_cancelled_total\{reason="deadline"\} 1/);
      // A short one still answers within it.
      const short = await svc.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: gql('{ riskSimulation(iterations: 10) { iterations } }'),
      });
      expect(short.json()).toEqual({ data: { riskSimulation: { iterations: 10 } } });
    } finally {
      await svc.dispose();
    }
  });

  it('refuses more Monte Carlo iterations per request than GRAPHQL_MAX_ITERATIONS, aliases summed', async () => {
    const svc = await makeService();
    try {
      expect((await svc.ingest(small)).status).toBe(202);
      await svc.settle();
      const response = await svc.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: gql(
          '{ a: riskSimulation(iterations: 600000) { iterations } b: whatIf(cuts: [{from: "lb", to: "db"}], iterations: 600000) { removedEdges } }',
        ),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        limit: 'GRAPHQL_MAX_ITERATIONS',
        max: 1_000_000,
        actual: 1_200_000,
      });
    } finally {
      await svc.dispose();
    }
  });
});

describe('tenants take turns', () => {
  it("a second tenant is served while the first tenant's queue is full", async () => {
    const svc = await makeService();
    const analyses = new AnalysisService({ seedIamUsers: false, slots: 1, tenantQueue: 2 }, svc.metrics);
    const api = apiWith(svc, analyses);
    try {
      expect((await svc.ingest(chain(1500))).status).toBe(202);
      expect((await svc.ingest(small, { tenant: 'beta' })).status).toBe(202);
      await svc.settle();
      const post = (query: string, tenant?: string) =>
        api.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json', ...(tenant && { 'x-tenant': tenant }) },
          payload: gql(query),
        });
      const done: string[] = [];
      // The default tenant: one running, two waiting (its whole share of the queue).
      const first = post(
        '{ a: riskSimulation(iterations: 300000) { iterations } b: riskSimulation(iterations: 300000) { iterations } c: riskSimulation(iterations: 300000) { iterations } }',
      ).then((r) => (done.push('default'), r));
      await vi.waitFor(() => expect(analyses.load).toEqual({ running: 1, waiting: 2 }), { timeout: 10_000 });
      // Its next request finds its share taken: 429 naming the tenant.
      const more = await post('{ riskSimulation(iterations: 10) { iterations } }');
      expect(more.statusCode).toBe(429);
      expect(more.json()).toMatchObject({ status: 429, limit: 'heavy-analyses' });
      expect(more.json().detail).toContain('"default"');
      // Another tenant is not refused, and takes the next free slot, ahead of the first tenant's queue.
      const beta = post(
        '{ riskSimulation(iterations: 100) { iterations anyCompromiseProbability } }',
        'beta',
      ).then((r) => (done.push('beta'), r));
      const [firstAnswer, betaAnswer] = await Promise.all([first, beta]);
      expect(done).toEqual(['beta', 'default']);
      expect(betaAnswer.statusCode).toBe(200);
      expect(betaAnswer.json().data.riskSimulation.iterations).toBe(100);
      expect(firstAnswer.statusCode).toBe(200);
      expect(firstAnswer.json().data.c).toEqual({ iterations: 300000 });
      const metrics = await svc.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/service_api_heavy_refused_total\{reason="tenant"\} 1/);
    } finally {
      await api.close();
      await svc.dispose();
    }
  });
});
