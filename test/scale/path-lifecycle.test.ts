// The path lifecycle across replicas (real NATS JetStream and PostgreSQL): the leader writes its path
// records (first_seen, reopens, state) and gate verdicts to PostgreSQL; a follower keeps the leader's
// first_seen and reopen count even though its own passes ran at other moments; when the leader goes, the
// replica that takes over continues the leader's lifecycle: first_seen is not reset, and a reopen the old
// leader already counted is not counted again (the follower had last seen the path resolved); the new
// leader's own transitions then reach PostgreSQL, and a replica started afterwards reads them. Each replica
// runs on its own clock (injected), so a first_seen taken from the wrong replica shows.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';
import {
  describeWithServices,
  missingServices,
  NATS_URL,
  schemaDsn,
  uniqueName,
  waitFor,
} from '../helpers/services.js';

const reason = await missingServices({ nats: true, postgres: true });

const lb = node('LoadBalancer', 'life-lb', { internet_exposed: true });
const app = node('Service', 'life-checkout');
const db = node('Database', 'life-orders', { crown_jewel: true });
const SCOPE = 'snapshot=aws:111122223333/us-east-1';
const withRoute = envelope(
  [lb, app, db],
  [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.9)],
);
const withoutRoute = envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9)]);
const SHA = 'b7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9';
const T0 = Date.parse('2026-11-23T08:00:00Z');
const MIN = 60_000;

describeWithServices('path lifecycle across replicas (real NATS and PostgreSQL)', reason, () => {
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  const services: TestService[] = [];
  const prefix = uniqueName('life');
  const clocks = { a: T0, b: T0, c: T0 };
  let a: TestService;
  let b: TestService;

  const start = async (name: 'a' | 'b' | 'c') => {
    const service = await makeService(
      {
        BUS_URL: NATS_URL,
        BUS_SUBJECT_PREFIX: prefix,
        BUS_CONSUMER: `replica-${name}`,
        DB_DSN: schema.dsn,
        LEADER_POLL_INTERVAL: '200ms',
      },
      { now: () => clocks[name] },
    );
    services.push(service);
    return service;
  };
  const record = (service: TestService) => {
    const paths = [...(service.engine.tenant('default')?.paths.all() ?? [])];
    expect(paths).toHaveLength(1);
    const { state, firstSeen, openedAt, resolvedAt, reopens } = paths[0];
    return { state, firstSeen, openedAt, resolvedAt, reopens };
  };
  const stored = async () => {
    const client = new pg.Client({ connectionString: schema.dsn });
    await client.connect();
    try {
      const { rows } = await client.query<{ state: string; first_seen: string; reopens: number }>(
        'select state, first_seen, reopens from path_records',
      );
      return rows.map((r) => ({ state: r.state, firstSeen: Number(r.first_seen), reopens: r.reopens }));
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    schema = await schemaDsn('life');
    a = await start('a');
    await waitFor('a to lead', () => a.engine.isLeader(), 5_000);
    b = await start('b');
    expect(b.engine.isLeader()).toBe(false);
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await schema?.drop();
  });

  it('a follower keeps the leader’s first_seen and reopen count, and its gate verdicts', async () => {
    expect((await a.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await a.settle();
    expect(record(a)).toMatchObject({ state: 'open', firstSeen: T0, reopens: 0 });
    expect(await stored()).toEqual([{ state: 'open', firstSeen: T0, reopens: 0 }]);
    // b analyses an hour later by its own clock: the path is first seen when the leader saw it.
    clocks.b = T0 + 60 * MIN;
    await b.settle();
    expect(record(b)).toMatchObject({ state: 'open', firstSeen: T0, reopens: 0 });

    // The leader resolves it; b's pass sees it resolved too, at the leader's time.
    clocks.a = T0 + 2 * MIN;
    expect((await a.ingest(withoutRoute, { query: SCOPE })).status).toBe(202);
    await a.settle();
    clocks.b = T0 + 61 * MIN;
    await b.settle();
    expect(record(b)).toEqual({
      state: 'resolved',
      firstSeen: T0,
      openedAt: T0,
      resolvedAt: T0 + 2 * MIN,
      reopens: 0,
    });
    // A verdict the leader gave is known to b.
    const gated = await a.apiApp.inject({
      method: 'POST',
      url: `/gate/impact?sha=${SHA}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(withRoute),
    });
    expect(gated.statusCode).toBe(200);
    const verdict = a.engine.prVerdict('default', SHA);
    expect(verdict?.sha).toBe(SHA);
    expect(b.engine.prVerdict('default', SHA)).toBeUndefined();
    // b's next round reads it (no pass runs: b's graph has not changed).
    await b.engine.analyzeAll();
    expect(b.engine.prVerdict('default', SHA)).toEqual(verdict);
    // The leader sees it come back (reopens 1); b has not analysed since.
    clocks.a = T0 + 3 * MIN;
    expect((await a.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await a.settle();
    expect(record(a)).toMatchObject({ state: 'open', reopens: 1, openedAt: T0 + 3 * MIN });
    // b applies the report but runs no pass: it still holds the path resolved.
    await b.engine.drain();
    expect(record(b).state).toBe('resolved');
  });

  it('the replica taking over continues the leader’s lifecycle: first_seen kept, no reopen counted twice', async () => {
    // b last saw the path resolved; the leader reopened it since. The leader goes.
    await a.dispose();
    services.splice(services.indexOf(a), 1);
    await waitFor('b to take over', () => b.engine.isLeader(), 15_000);
    clocks.b = T0 + 70 * MIN;
    await b.settle();
    // Counted once (by the old leader), not again by b's first pass as leader.
    expect(record(b)).toEqual({
      state: 'open',
      firstSeen: T0,
      openedAt: T0 + 3 * MIN,
      resolvedAt: T0 + 2 * MIN,
      reopens: 1,
    });

    // The new leader's own transitions go on from there and reach PostgreSQL.
    clocks.b = T0 + 80 * MIN;
    expect((await b.ingest(withoutRoute, { query: SCOPE })).status).toBe(202);
    await b.settle();
    clocks.b = T0 + 90 * MIN;
    expect((await b.ingest(withRoute, { query: SCOPE })).status).toBe(202);
    await b.settle();
    expect(record(b)).toMatchObject({ state: 'open', firstSeen: T0, reopens: 2, openedAt: T0 + 90 * MIN });
    expect(await stored()).toEqual([{ state: 'open', firstSeen: T0, reopens: 2 }]);

    // A replica started now, on a clock of its own, reads the lifecycle as the leaders kept it.
    clocks.c = T0 + 120 * MIN;
    const c = await start('c');
    await c.settle();
    expect(record(c)).toMatchObject({ state: 'open', firstSeen: T0, reopens: 2, openedAt: T0 + 90 * MIN });
    expect(c.engine.prVerdict('default', SHA)?.sha).toBe(SHA);
  });
});
