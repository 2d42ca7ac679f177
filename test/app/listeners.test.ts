// The listeners as startService opens them: HTTPS on both with TLS_CERT_FILE/TLS_KEY_FILE (a certificate
// made here with openssl), and METRICS_ADDR serving /metrics alone, per tenant, while the API's open /metrics
// sums the tenants away.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { pino } from 'pino';
import { startService, type RunningService } from '../../app/service.js';
import { loadSettings } from '../../src/config/settings.js';
import { envelope, node } from '../helpers/envelope.js';
import { tempDir } from '../helpers/service.js';

let running: RunningService | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function get(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

it('serves HTTPS on every listener and /metrics alone on METRICS_ADDR', async () => {
  const dir = await tempDir('pathgate-tls-');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const ca = readFileSync(cert, 'utf8');
  const settings = loadSettings({
    DATA_DIR: path.join(dir, 'data'),
    INGEST_ADDR: '127.0.0.1:0',
    API_ADDR: '127.0.0.1:0',
    METRICS_ADDR: '127.0.0.1:0',
    TLS_CERT_FILE: cert,
    TLS_KEY_FILE: key,
    API_TOKENS: 'listener-test-token-123456:viewer',
    ANALYZER_THREADS: '1',
  });
  running = await startService({ settings, demo: false, logger: pino({ level: 'silent' }) });
  expect(running.ingestUrl).toMatch(/^https:\/\//);
  expect(running.apiUrl).toMatch(/^https:\/\//);
  expect(running.metricsUrl).toMatch(/^https:\/\//);
  expect(await get(`${running.ingestUrl}/healthz`, ca)).toEqual({ status: 200, body: 'ok' });
  // The API's /metrics is open (spec) and names no tenant; the METRICS_ADDR listener keeps the label.
  await running.engine.ingest({
    tenant: 'acme',
    source: 'events',
    body: envelope([node('Service', 'web')]),
    query: {},
  });
  await running.engine.drain();
  const open = await get(`${running.apiUrl}/metrics`, ca);
  expect(open.status).toBe(200);
  expect(open.body).toMatch(/^service_graph_nodes 1$/m);
  expect(open.body).not.toContain('acme');
  const scraped = await get(`${running.metricsUrl}/metrics`, ca);
  expect(scraped.status).toBe(200);
  expect(scraped.body).toContain('service_analyzer_passes_total');
  expect(scraped.body).toContain('service_graph_nodes{tenant="acme"} 1');
  expect((await get(`${running.metricsUrl}/graphql`, ca)).status).toBe(404);
});
