// The spec's reduced mode: `GET /healthz` answers 503 with the reason while the engine serves reduced (graph
// store unavailable and fell back to in-memory, bus away, journal refusing writes), and the API says so in
// `status.reduced`; GRAPH_STRICT and PG_ENV=production refuse to start instead of falling back.
import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';
import { freePort, OwnNatsServer } from '../helpers/nats-server.js';
import { describeWithServices, missingServices, schemaDsn, uniqueName } from '../helpers/services.js';
import { startupRefusal } from '../helpers/settings.js';

const services: TestService[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(services.splice(0).map((s) => s.dispose()));
});

async function healthz(service: TestService) {
  const api = await service.apiApp.inject({ method: 'GET', url: '/healthz' });
  const ingest = await service.ingestApp.inject({ method: 'GET', url: '/healthz' });
  expect(ingest.statusCode).toBe(api.statusCode);
  expect(ingest.body).toBe(api.body);
  return { status: api.statusCode, body: api.body };
}

describe('reduced mode: the journal refusing writes', () => {
  it('answers /healthz 503 naming the journal while a write fails, and ok again once one succeeds', async () => {
    const service = await makeService();
    services.push(service);
    expect(await healthz(service)).toEqual({ status: 200, body: 'ok' });
    const probe = await open(path.join(service.dataDir, 'probe'), 'w');
    await probe.close();
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    vi.spyOn(Object.getPrototypeOf(probe), 'writev').mockRejectedValueOnce(full);
    const body = envelope([node('VirtualMachine', 'disk-full-vm')]);
    expect((await service.ingest(body)).status).toBe(503);
    const reduced = await healthz(service);
    expect(reduced.status).toBe(503);
    expect(reduced.body).toMatch(/^reduced: journal: the journal refuses writes \(the disk is full\)/);
    const data = await service.graphql('{ status { reduced { part reason since } } }');
    expect(data.status.reduced).toEqual([
      expect.objectContaining({ part: 'journal', reason: expect.stringContaining('disk is full') }),
    ]);
    expect((await service.tenantMetrics()).body).toMatch(/service_reduced_mode\{part="journal"\} 1/);
    // The next write goes through: the mode ends.
    expect((await service.ingest(body)).status).toBe(202);
    expect(await healthz(service)).toEqual({ status: 200, body: 'ok' });
    expect((await service.graphql('{ status { reduced { part } } }')).status.reduced).toEqual([]);
    expect((await service.tenantMetrics()).body).toMatch(/service_reduced_mode\{part="journal"\} 0/);
  });
});

describe('reduced mode: the graph store (DB_DSN) unreachable at start', () => {
  it('falls back to memory with GRAPH_STRICT unset, serving and answering /healthz 503 graph-store', async () => {
    const port = await freePort(); // nothing listens there
    const service = await makeService({ DB_DSN: `postgres://postgres:hunter2@127.0.0.1:${port}/test` });
    services.push(service);
    const reduced = await healthz(service);
    expect(reduced.status).toBe(503);
    expect(reduced.body).toMatch(
      /^reduced: graph-store: the graph store \(DB_DSN\) was unreachable at start/,
    );
    expect(reduced.body).not.toContain('hunter2');
    // It still serves: ingest lands and is read back.
    expect((await service.ingest(envelope([node('VirtualMachine', 'vm-in-memory')]))).status).toBe(202);
    await service.settle();
    expect(service.engine.tenant('default')?.graph.order).toBe(1);
  });

  it('refuses to start with GRAPH_STRICT=true, naming DB_DSN (password redacted) and the cause', async () => {
    const port = await freePort();
    await expect(
      makeService({ DB_DSN: `postgres://postgres:hunter2@127.0.0.1:${port}/test`, GRAPH_STRICT: 'true' }),
    ).rejects.toThrow(
      new RegExp(
        `DB_DSN="postgres://\\*\\*\\*@127\\.0\\.0\\.1:${port}/test": PostgreSQL cannot be reached \\(.*ECONNREFUSED.*\\); the start is refused because GRAPH_STRICT=true`,
      ),
    );
  });

  it('refuses to start under PG_ENV=production without DB_DSN (the spec: production needs the graph store)', () => {
    const auth = { INGEST_HMAC_SECRET: 'x', API_TOKENS: 'a-long-enough-viewer-token-0001:viewer' };
    expect(startupRefusal({ PG_ENV: 'production', ...auth })).toMatch(
      /PG_ENV=production needs the graph store: set DB_DSN/,
    );
  });

  it('refuses to start under PG_ENV=production when DB_DSN is unreachable', async () => {
    const port = await freePort();
    await expect(
      makeService({
        PG_ENV: 'production',
        INGEST_HMAC_SECRET: 'x',
        API_TOKENS: 'a-long-enough-viewer-token-0001:viewer',
        DB_DSN: `postgres://postgres@127.0.0.1:${port}/test`,
      }),
    ).rejects.toThrow(/the start is refused because PG_ENV=production/);
  });
});

const busMissing = await missingServices({ natsServerBinary: true, postgres: true });
describeWithServices('reduced mode: the bus away', busMissing, () => {
  it('answers /healthz 503 naming the bus while NATS is down, ok once it is back', async () => {
    const nats = await OwnNatsServer.create();
    await nats.start();
    const db = await schemaDsn('reduced');
    const service = await makeService({
      BUS_URL: nats.url,
      BUS_SUBJECT_PREFIX: uniqueName('reduced'),
      BUS_CONSUMER: 'r1',
      DB_DSN: db.dsn,
    });
    services.push(service);
    try {
      expect(await healthz(service)).toEqual({ status: 200, body: 'ok' });
      await nats.kill();
      await vi.waitFor(async () => expect((await healthz(service)).status).toBe(503), {
        timeout: 15_000,
        interval: 100,
      });
      expect((await healthz(service)).body).toMatch(/^reduced: bus: the bus \(BUS_URL\) connection is lost/);
      await nats.start();
      await vi.waitFor(async () => expect(await healthz(service)).toEqual({ status: 200, body: 'ok' }), {
        timeout: 20_000,
        interval: 200,
      });
    } finally {
      await services.pop()?.dispose();
      await nats.dispose();
      await db.drop();
    }
  }, 60_000);
});
