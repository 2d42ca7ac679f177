// GOVERNANCE_BACKEND=postgres on the real PostgreSQL: two service instances (replicas) over one schema.
// A suppression made on one replica takes its path out of the critical count on the other without a request
// there, and the other's board lists it; a removal travels back. Writes made on both at the same moment are
// all kept (no lost update), and one open ticket per path holds across replicas (one 201, one 409).
// Records are sealed with STORE_ENCRYPTION_KEY in the database. With PostgreSQL cut off (a proxy the test
// closes), a write answers 503 problem+json with Retry-After and is not made, not even later; once the
// database is back the replica catches up with what the other one wrote meanwhile.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { freePort } from '../helpers/nats-server.js';
import { makeService, type TestService } from '../helpers/service.js';
import { describeWithServices, missingServices, schemaDsn, waitFor } from '../helpers/services.js';

const reason = await missingServices({ postgres: true });
const ADMIN = 'governance-pg-admin-token-012345';
const KEY_HEX = '5a'.repeat(32);

/** A TCP relay to PostgreSQL that the test can cut (every connection dropped, none accepted) and restore. */
class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    if (this.server) return;
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

describeWithServices('GOVERNANCE_BACKEND=postgres (real PostgreSQL, two replicas)', reason, () => {
  let a: TestService;
  let b: TestService;
  let proxy: CuttableProxy;
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  let pathId: string;
  let otherPath: string;

  beforeAll(async () => {
    schema = await schemaDsn('gov');
    const direct = new URL(schema.dsn);
    proxy = new CuttableProxy(await freePort(), {
      host: direct.hostname,
      port: Number(direct.port || 5432),
    });
    await proxy.open();
    const viaProxy = new URL(schema.dsn);
    viaProxy.port = String(proxy.port);
    const env = (dsn: string) => ({
      DB_DSN: dsn,
      GOVERNANCE_BACKEND: 'postgres',
      API_TOKENS: `${ADMIN}:admin`,
      STORE_ENCRYPTION_KEY: KEY_HEX,
      LEADER_POLL_INTERVAL: '1s',
    });
    // Replica a reaches PostgreSQL through the proxy (its outage is the test's to make); b directly.
    a = await makeService(env(viaProxy.toString()));
    b = await makeService(env(schema.dsn));
    // The same estate on both (each holds every graph): two critical routes.
    const lb = node('LoadBalancer', 'gov-alb', { internet_exposed: true });
    const web = node('Service', 'gov-web');
    const db = node('Database', 'gov-orders', { crown_jewel: true });
    const ledger = node('Database', 'gov-ledger', { crown_jewel: true });
    const estate = envelope(
      [lb, web, db, ledger],
      [
        edge('ROUTES_TO', lb, web),
        edge('HAS_PERMISSION', web, db, 0.9),
        edge('CONNECTS_TO', web, ledger, 0.9),
      ],
    );
    for (const replica of [a, b]) {
      expect((await replica.ingest(estate)).status).toBe(202);
      await replica.settle();
    }
    const open = a.engine.tenant('default')!.paths.open();
    expect(open.length).toBe(2);
    [pathId, otherPath] = open.map((p) => p.id);
    expect(b.engine.tenant('default')!.paths.get(pathId)).toBeDefined();
  });

  afterAll(async () => {
    await proxy?.open().catch(() => undefined);
    await Promise.allSettled([a?.dispose(), b?.dispose()]);
    await proxy?.cut();
    await schema?.drop();
  });

  const call = async (
    replica: TestService,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
  ) => {
    const r = await replica.apiApp.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${ADMIN}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    return { status: r.statusCode, json: r.json(), headers: r.headers };
  };
  const critical = (replica: TestService, id: string) =>
    replica.engine.isCritical('default', replica.engine.tenant('default')!.paths.get(id)!);

  it('a suppression made on one replica holds on the other; a removal travels back', async () => {
    expect(critical(a, pathId)).toBe(true);
    expect(critical(b, pathId)).toBe(true);
    const made = await call(a, 'POST', '/suppressions', {
      pathId,
      reason: 'accept-risk',
      owner: 'team-gov',
      ttlDays: 7,
    });
    expect(made.status).toBe(201);
    // b hears of it (NOTIFY) without any request: its analyzer's one definition of critical follows.
    await waitFor('b to see the suppression', () => !critical(b, pathId), 5_000);
    const board = await call(b, 'GET', '/suppressions');
    expect(
      board.json.suppressions.map((s: { pathId: string; owner: string }) => [s.pathId, s.owner]),
    ).toEqual([[pathId, 'team-gov']]);
    // Sealed in the database: the owner is not readable there.
    const client = new pg.Client({ connectionString: schema.dsn });
    await client.connect();
    try {
      const { rows } = await client.query<{ doc: string }>(
        "select doc from governance_records where kind = 'suppressions'",
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].doc.startsWith('enc1:')).toBe(true);
      expect(rows[0].doc).not.toContain('team-gov');
    } finally {
      await client.end();
    }

    // A replaced suppression (b) is one entry on both; its removal (b) frees the path on a too.
    const replaced = await call(b, 'POST', '/suppressions', {
      pathId,
      reason: 'mitigating-control',
      owner: 'team-b',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json.replaced).toBe(true);
    const onA = await call(a, 'GET', '/suppressions');
    expect(onA.json.suppressions.map((s: { owner: string }) => s.owner)).toEqual(['team-b']);
    expect((await call(b, 'DELETE', `/suppressions/${pathId}`)).status).toBe(200);
    await waitFor('a to see the removal', () => critical(a, pathId), 5_000);
    // Removed once: the second removal, on the other replica, finds nothing.
    expect((await call(a, 'DELETE', `/suppressions/${pathId}`)).status).toBe(404);
  });

  it('writes at the same moment on both replicas are all kept; one open ticket per path across them', async () => {
    const verdict = (i: number) => ({ pathId: otherPath, outcome: 'confirmed', source: `red-team-${i}` });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 ? a : b, 'POST', '/validations', verdict(i))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    for (const replica of [a, b]) {
      const { json } = await call(replica, 'GET', '/validations');
      expect(json.verdicts.map((v: { source: string }) => v.source).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `red-team-${i}`).sort(),
      );
    }

    const opened = await Promise.all([
      call(a, 'POST', '/tickets', { pathId: otherPath, owner: 'team-a' }),
      call(b, 'POST', '/tickets', { pathId: otherPath, owner: 'team-b' }),
    ]);
    expect(opened.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = opened.find((r) => r.status === 201)!.json;
    expect(opened.find((r) => r.status === 409)!.json.ticket).toBe(winner.id);
    for (const replica of [a, b]) {
      const { json } = await call(replica, 'GET', '/tickets?state=open');
      expect(json.tickets.map((t: { id: string }) => t.id)).toEqual([winner.id]);
    }
    // Closed on both at once: closed once, the other told it already is.
    const closed = await Promise.all([
      call(a, 'POST', `/tickets/${winner.id}/close`),
      call(b, 'POST', `/tickets/${winner.id}/close`),
    ]);
    expect(closed.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('with PostgreSQL unreachable a write answers 503 and is not made; the replica catches up after', async () => {
    await proxy.cut();
    const refused = await call(a, 'POST', '/suppressions', {
      pathId: otherPath,
      reason: 'false-positive',
      owner: 'team-outage',
    });
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json.detail).toMatch(/governance store \(PostgreSQL, DB_DSN\) could not/);
    expect(refused.json.detail).not.toContain(ADMIN);
    // A board read cannot be told current either: 503, not a stale answer.
    expect((await call(a, 'GET', '/tickets')).status).toBe(503);
    // Meanwhile b writes; a's analyzer keeps answering from the copy it holds.
    expect(
      (await call(b, 'POST', '/suppressions', { pathId, reason: 'duplicate', owner: 'team-during' })).status,
    ).toBe(201);
    expect(critical(a, otherPath)).toBe(true);

    await proxy.open();
    // Nothing of the refused write was kept or replayed.
    const board = await call(b, 'GET', '/suppressions');
    expect(board.json.suppressions.map((s: { owner: string }) => s.owner)).toEqual(['team-during']);
    // a catches up with b's write by itself (the poll, or its listener reconnecting), then writes again.
    await waitFor('a to see the suppression made during its outage', () => !critical(a, pathId), 15_000, 100);
    expect(
      (
        await call(a, 'POST', '/suppressions', {
          pathId: otherPath,
          reason: 'false-positive',
          owner: 'team-after',
        })
      ).status,
    ).toBe(201);
    await waitFor('b to see it', () => !critical(b, otherPath), 5_000);
  });
});
