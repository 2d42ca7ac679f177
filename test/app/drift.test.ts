// The drift webhook and the posture history through the service: a loopback stand-in receiver hears a
// `posture.drift` POST when a pass opens a critical path, when a suppression clears one (checked on the
// timer, without a pass), when it lapses, and when a route falls below P1; nothing is sent when nothing
// changed; the history points land in HISTORY_PATH.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const ADMIN = 'drift-admin-token-0123456789ab';
const DAY = 86_400_000;
let clock = Date.parse('2026-11-20T10:00:00Z');
let service: TestService;
let receiver: http.Server;
let historyFile: string;
const received: any[] = [];

const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
const web = node('Service', 'web');
const orders = node('Database', 'orders', { crown_jewel: true });
const ledger = node('Database', 'ledger', { crown_jewel: true });

async function waitFor(count: number): Promise<void> {
  for (let i = 0; i < 100 && received.length < count; i++) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], body: JSON.parse(body) });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  historyFile = path.join(await tempDir('pathgate-history-'), 'posture-history.json');
  service = await makeService(
    {
      API_TOKENS: `${ADMIN}:admin`,
      DRIFT_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/drift`,
      HISTORY_PATH: historyFile,
    },
    { now: () => clock },
  );
  await service.ingest(
    envelope([lb, web, orders], [edge('ROUTES_TO', lb, web, 0.9), edge('CONNECTS_TO', web, orders, 0.9)]),
  );
  await service.settle();
});
afterAll(async () => {
  await service.dispose();
  await new Promise<void>((r) => receiver.close(() => r()));
});

describe('drift webhook', () => {
  it('the first pass sets the baseline: nothing is sent', async () => {
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toEqual([]);
    expect(await service.drift.check('default')).toBeUndefined();
  });

  it('a pass that opens a critical path sends posture.drift naming it', async () => {
    clock += 60_000;
    await service.ingest(envelope([web, ledger], [edge('CONNECTS_TO', web, ledger, 0.95)]));
    await service.settle();
    await waitFor(1);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ path: '/drift', type: 'application/json' });
    expect(received[0].body).toMatchObject({
      event: 'posture.drift',
      tenant: 'default',
      at: new Date(clock).toISOString(),
      criticalPaths: { before: 1, after: 2 },
      openPaths: 2,
      opened: [{ start: 'edge', target: 'ledger', priority: 'P1' }],
      cleared: [],
      truncated: { opened: 0, cleared: 0 },
    });
  });

  it('a suppression clears it without a pass (the timer check); its lapse brings it back', async () => {
    const ledgerPath = received[0].body.opened[0].id;
    const made = await service.apiApp.inject({
      method: 'POST',
      url: '/suppressions',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        pathId: ledgerPath,
        reason: 'mitigating-control',
        owner: 'secops',
        ttlDays: 2,
      }),
    });
    expect(made.statusCode).toBe(201);
    const cleared = await service.drift.check('default');
    expect(cleared).toMatchObject({
      criticalPaths: { before: 2, after: 1 },
      cleared: [{ id: ledgerPath, why: 'suppressed' }],
    });
    await waitFor(2);
    expect(received[1].body.cleared[0]).toMatchObject({
      id: ledgerPath,
      why: 'suppressed',
      target: 'ledger',
    });
    // Nothing changed: nothing sent.
    expect(await service.drift.check('default')).toBeUndefined();
    clock += 2 * DAY;
    const lapsed = await service.drift.check('default');
    expect(lapsed).toMatchObject({ criticalPaths: { before: 1, after: 2 }, opened: [{ id: ledgerPath }] });
    await waitFor(3);
    expect(received).toHaveLength(3);
  });

  it('a critical path repriced below P1 is cleared as deprioritized', async () => {
    await service.ingest(envelope([web, ledger], [edge('CONNECTS_TO', web, ledger, 0.05)]));
    clock += 60_000;
    await service.settle();
    await waitFor(4);
    expect(received[3].body.cleared).toEqual([
      expect.objectContaining({ target: 'ledger', why: 'deprioritized' }),
    ]);
  });

  it('the history holds one point per change, at HISTORY_PATH', async () => {
    const points = JSON.parse(readFileSync(historyFile, 'utf8'));
    expect(points.map((p: any) => p.criticalPaths)).toEqual([1, 2, 1, 2, 1]);
    expect(points[2]).toMatchObject({ suppressedPaths: 1, openPaths: 2 });
    expect(service.governance.history.list('default')).toHaveLength(5);
  });
});
