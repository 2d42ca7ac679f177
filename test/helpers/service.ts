// Builds a whole service (engine + both listeners, not listening) on a fresh DATA_DIR for inject() tests.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { loadSettings } from '../../src/config/settings.js';
import { buildService, type Service } from '../../app/service.js';
import { buildMetricsServer } from '../../app/api-server.js';
import type { ConnectorSource } from '../../src/connectors/connector.js';

export async function tempDir(prefix = 'pathgate-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export interface TestService extends Service {
  dataDir: string;
  /** POSTs a JSON body to the ingest listener. */
  ingest(
    body: unknown,
    options?: { source?: string; tenant?: string; query?: string },
  ): Promise<{ status: number; json: any; headers: Record<string, unknown> }>;
  /** Runs a GraphQL query on the API listener and returns `data` (throws on errors). */
  graphql(query: string, options?: { tenant?: string; variables?: Record<string, unknown> }): Promise<any>;
  /**
   * GET /metrics as the METRICS_ADDR listener serves it, with per-tenant series (the API listener's
   * `/metrics` sums them over tenants and names none).
   */
  tenantMetrics(): Promise<{ statusCode: number; body: string }>;
  /** Waits for every acknowledged record to reach the graph, then runs an analyzer pass. */
  settle(): Promise<void>;
  /** Closes the service and removes its DATA_DIR (unless keepData). */
  dispose(options?: { keepData?: boolean }): Promise<void>;
}

export async function makeService(
  env: Record<string, string> = {},
  options: {
    dataDir?: string;
    now?: () => number;
    logger?: Logger;
    onFatal?: (error: Error) => void;
    connectorSources?: ConnectorSource[];
    /** engine options no setting names (`ingestWorkersAlways`: every large body to the ingest worker) */
    engine?: { ingestWorkersAlways?: boolean };
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? (await tempDir());
  // Tests are one client firing requests back to back: per-IP rates well above them, unless a test sets its own.
  const settings = loadSettings(
    { ANALYZER_THREADS: '1', INGEST_RATE_RPS: '1000', API_RATE_RPS: '1000', ...env, DATA_DIR: dataDir },
    { demoData: false },
  );
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const service = await buildService({
    settings,
    logger,
    now: options.now,
    onFatal: options.onFatal,
    connectorSources: options.connectorSources,
    engine: options.engine,
  });
  return {
    ...service,
    dataDir,
    async ingest(body, o = {}) {
      const response = await service.ingestApp.inject({
        method: 'POST',
        url: `/ingest/${o.source ?? 'events'}${o.query ? `?${o.query}` : ''}`,
        headers: { 'content-type': 'application/json', ...(o.tenant ? { 'x-tenant': o.tenant } : {}) },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.statusCode, json: response.json(), headers: response.headers };
    },
    async graphql(query, o = {}) {
      const response = await service.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', ...(o.tenant ? { 'x-tenant': o.tenant } : {}) },
        payload: JSON.stringify({ query, variables: o.variables }),
      });
      const body = response.json();
      if (body.errors) throw new Error(`graphql: ${JSON.stringify(body.errors)}`);
      return body.data;
    },
    async tenantMetrics() {
      const listener =
        service.metricsApp ??
        buildMetricsServer({ engine: service.engine, metrics: service.metrics, logger });
      const response = await listener.inject({ method: 'GET', url: '/metrics' });
      if (!service.metricsApp) await listener.close();
      return { statusCode: response.statusCode, body: response.body };
    },
    async settle() {
      await service.engine.drain();
      await service.engine.analyzeAll();
    },
    async dispose(o = {}) {
      await service.close();
      if (!o.keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
