// The leader lock on real PostgreSQL: one holder at a time; a leader whose session is terminated (a lost
// connection) stops leading at once and another replica takes the lock within a poll or two; a replica that
// closes hands over. Start-up refuses what cannot work, naming the setting and never a password.
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { AdvisoryLockLeadership, LEADER_QUERY, lockKey } from '../../src/engine/leadership.js';
import { startupRefusal } from '../helpers/settings.js';
import { loadSettings } from '../../src/config/settings.js';
import { createJetStreamBus } from '../../src/bus/jetstream.js';
import { freePort } from '../helpers/nats-server.js';
import { describeWithServices, missingServices, PG_DSN, uniqueName, waitFor } from '../helpers/services.js';

const reason = await missingServices({ postgres: true });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describeWithServices('the leader lock (real PostgreSQL)', reason, () => {
  const locks: AdvisoryLockLeadership[] = [];
  const admin = new pg.Client({ connectionString: PG_DSN });
  afterAll(async () => {
    await Promise.allSettled(locks.map((l) => l.close()));
    await admin.end().catch(() => undefined);
  });

  it('has one holder; a lost connection ends leadership and another replica takes over', async () => {
    await admin.connect();
    const name = uniqueName('lead');
    const make = (holder: string) => {
      const lock = new AdvisoryLockLeadership({ dsn: PG_DSN, name, pollMs: 200, log: silent, holder });
      locks.push(lock);
      return lock;
    };
    const a = make('a');
    await a.start();
    expect(a.isLeader()).toBe(true);
    const b = make('b');
    await b.start();
    expect(b.isLeader()).toBe(false);
    const holder = async () => (await admin.query<{ holder: string }>(LEADER_QUERY, [lockKey(name)])).rows;
    expect(await holder()).toEqual([{ holder: 'a' }]);

    // The leader's session dies (an operator, a network cut, a PostgreSQL restart).
    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pathgate-leadership a'",
    );
    await waitFor('a to stop leading', () => !a.isLeader(), 5_000, 10);
    await waitFor('b to lead', () => b.isLeader(), 5_000, 10);
    expect(await holder()).toEqual([{ holder: 'b' }]);
    // a reconnects as a follower: never two leaders.
    await waitFor('a to reconnect as a follower', async () => (await holder()).length === 1 && !a.isLeader());
    expect(a.isLeader()).toBe(false);

    // Closing hands the lock over at the next poll.
    await b.close();
    await waitFor('a to lead again', () => a.isLeader(), 5_000, 10);
    expect(await holder()).toEqual([{ holder: 'a' }]);
  });

  it('refuses to start without PostgreSQL, naming DB_DSN', async () => {
    const port = await freePort();
    const lock = new AdvisoryLockLeadership({
      dsn: `postgres://postgres:s3cret-password@127.0.0.1:${port}/test`,
      name: uniqueName('lead'),
      pollMs: 200,
      log: silent,
    });
    locks.push(lock);
    const error = await lock.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^DB_DSN: cannot reach PostgreSQL for leadership/);
    expect(error?.message).not.toContain('s3cret-password');
  });
});

it('refuses a bus it cannot reach at start, naming BUS_URL without its password', async () => {
  const port = await freePort();
  const error = await createJetStreamBus({
    url: `nats://u:s3cret@127.0.0.1:${port}`,
    prefix: 'service',
    maxAgeMs: 60_000,
    maxDeliver: 5,
    consumer: 'c',
    afterSeq: 0,
    connectTimeoutMs: 2_000,
  }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/^BUS_URL="nats:\/\/\*\*\*@127\.0\.0\.1:\d+": cannot connect to NATS/);
  expect(error?.message).not.toContain('s3cret');
});

it('refuses scale-out settings that cannot work, naming them', () => {
  expect(startupRefusal({ BUS_URL: 'nats://127.0.0.1:4222' })).toBe(
    'BUS_URL needs DB_DSN: replicas choose their leader through PostgreSQL',
  );
  expect(startupRefusal({ BUS_URL: 'http://nats:4222', DB_DSN: PG_DSN })).toBe(
    'BUS_URL="http://nats:4222" is not a nats:// or tls:// URL',
  );
  expect(startupRefusal({ DB_DSN: 'mysql://root:hunter2@db/x' })).toBe('DB_DSN is not a postgres:// URL');
  expect(startupRefusal({ BUS_USER: 'pathgate' })).toBe('BUS_USER is set but neither BUS_URL nor DB_DSN is');
  expect(startupRefusal({ BUS_URL: 'nats://n:4222', DB_DSN: PG_DSN, BUS_PASSWORD: 'hunter2' })).toBe(
    'BUS_PASSWORD is set without BUS_USER',
  );
  expect(
    startupRefusal({ BUS_URL: 'nats://n:4222', DB_DSN: PG_DSN, BUS_TLS_CERT: '/nonexistent/cert.pem' }),
  ).toMatch(/BUS_TLS_CERT="\/nonexistent\/cert\.pem" cannot be read \(ENOENT\)/);
  expect(startupRefusal({ BUS_URL: 'nats://n:4222', DB_DSN: PG_DSN, BUS_CONSUMER: 'a b' })).toMatch(
    /^BUS_CONSUMER="a b" is not a consumer name/,
  );
  expect(startupRefusal({ BUS_URL: 'nats://n:4222', DB_DSN: PG_DSN, BUS_MAX_AGE: 'forever' })).toMatch(
    /^BUS_MAX_AGE="forever" is not a duration/,
  );
  const settings = loadSettings({ BUS_URL: 'nats://a:4222, nats://b:4222', DB_DSN: PG_DSN });
  expect(settings.scaleOut?.bus).toMatchObject({
    url: 'nats://a:4222,nats://b:4222',
    subjectPrefix: 'service',
    maxAgeMs: 168 * 3_600_000,
    maxDeliver: 5,
  });
  expect(settings.scaleOut?.leaderPollMs).toBe(2_000);
  expect(loadSettings({}).scaleOut).toBeUndefined();
});
