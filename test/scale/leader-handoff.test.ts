// What a follower may not do itself, it hands to the leader through PostgreSQL (real NATS and PostgreSQL,
// GitHub a stand-in on loopback): a gate verdict a follower gives for a pull request reaches the pull
// request (comment and status) through the leader; a GitHub webhook delivered to a follower is verified
// there, answered 202, and acted on by the leader; while no replica leads (the leader gone, the lock held
// outside), the handed work waits in PostgreSQL and the next leader does it. A forged webhook is refused by
// the follower, never handed over.
import { sign } from '@octokit/webhooks-methods';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { streamNames } from '../../src/bus/jetstream.js';
import { lockKey } from '../../src/engine/leadership.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
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
const SECRET = 'handoff-webhook-secret-0123456789';
const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const SHA2 = 'ffeeddccbbaa99887766554433221100ffeeddcc';

describeWithServices('a follower hands GitHub work to the leader (real NATS and PostgreSQL)', reason, () => {
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  const github = new GithubStandIn();
  const services: TestService[] = [];
  const prefix = uniqueName('hand');
  let a: TestService;
  let b: TestService;

  const start = async (name: string) => {
    const service = await makeService({
      BUS_URL: NATS_URL,
      BUS_SUBJECT_PREFIX: prefix,
      BUS_CONSUMER: name,
      DB_DSN: schema.dsn,
      LEADER_POLL_INTERVAL: '200ms',
      FORGE_TOKEN: 'ghp_handoff_standin',
      FORGE_API_URL: github.url,
      REPO_ALLOWLIST: 'Codertocat/*',
      WEBHOOK_SECRET: SECRET,
    });
    services.push(service);
    return service;
  };
  const gate = async (s: TestService, pr: number, sha: string) => {
    const r = await s.apiApp.inject({
      method: 'POST',
      url: `/gate/impact?source=trivy&slug=Codertocat/Hello-World&pr=${pr}&sha=${sha}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(trivyReport([LOW_CVE, KEV_CVE])),
    });
    expect(r.statusCode).toBe(200);
    return r.json().verdict as string;
  };
  const webhook = async (s: TestService, pr: number, sha: string, signature?: string) => {
    const body = JSON.stringify({
      action: 'synchronize',
      number: pr,
      pull_request: { number: pr, head: { sha } },
      repository: {
        name: 'Hello-World',
        full_name: 'Codertocat/Hello-World',
        owner: { login: 'Codertocat' },
      },
    });
    return s.apiApp.inject({
      method: 'POST',
      url: '/api/github/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': `delivery-${pr}-${sha.slice(0, 6)}`,
        'x-hub-signature-256': signature ?? (await sign(SECRET, body)),
      },
      payload: body,
    });
  };
  const inboxRows = async () => {
    const client = new pg.Client({ connectionString: schema.dsn });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>('select count(*) as n from leader_inbox')).rows[0].n);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    schema = await schemaDsn('hand');
    await github.start();
    a = await start('replica-a');
    await waitFor('a to lead', () => a.engine.isLeader(), 5_000);
    b = await start('replica-b');
    expect((await a.ingest(trivyReport([LOW_CVE]), { source: 'trivy' })).status).toBe(202);
    expect((await a.ingest(gateEstate())).status).toBe(202);
    for (const s of [a, b]) await s.settle();
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await github.app.close();
    await schema?.drop();
  });

  it('a follower’s gate verdict and webhook reach the pull request through the leader', async () => {
    expect(b.engine.isLeader()).toBe(false);
    expect(await gate(b, 2, SHA)).toBe('blocked');
    await waitFor('the leader to comment and set the status', () =>
      github.statuses.some((s) => s.sha === SHA && s.state === 'failure'),
    );
    await a.github!.idle();
    expect(
      github.comments.filter((c) => c.issue === 2 && c.body.startsWith('<!-- pathgate:path=')),
    ).toHaveLength(1);
    // The leader holds the follower's verdict as its own.
    expect(a.engine.prVerdict('default', SHA)?.verdict).toBe('blocked');
    expect(await inboxRows()).toBe(0);

    // A webhook on the follower: verified, answered, handed over; the leader brings the PR up to date.
    const statuses = github.statuses.length;
    const delivered = await webhook(b, 2, SHA);
    expect(delivered.statusCode).toBe(202);
    expect(delivered.json()).toMatchObject({ handedToLeader: true });
    await waitFor('the leader to act on the webhook', () => github.statuses.length > statuses);
    await a.github!.idle();
    expect(
      github.comments.filter((c) => c.issue === 2 && c.body.startsWith('<!-- pathgate:path=')),
    ).toHaveLength(1);
    // A forged one is refused by the follower and never handed over.
    const forged = await webhook(b, 2, SHA, `sha256=${'0'.repeat(64)}`);
    expect(forged.statusCode).toBe(401);
    expect(await inboxRows()).toBe(0);
  });

  it('work handed over while no replica leads waits in PostgreSQL for the next leader', async () => {
    const c = await start('replica-c');
    await c.settle();
    // The leader goes, and the lock is held outside pathgate meanwhile: no replica leads.
    const lock = new pg.Client({ connectionString: schema.dsn });
    await lock.connect();
    const admin = new pg.Client({ connectionString: schema.dsn });
    await admin.connect();
    try {
      // Queued for the lock before the leader lets it go, so the waiting session gets it, not a replica
      // (their non-blocking tries fail while a session waits).
      const key = lockKey(streamNames(prefix).events);
      const held = lock.query('select pg_advisory_lock($1::bigint)', [key]);
      await waitFor('the test to queue for the lock', async () => {
        const { rows } = await admin.query<{ n: string }>(
          `select count(*) as n from pg_locks where locktype = 'advisory' and not granted
           and ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
          [key],
        );
        return Number(rows[0].n) > 0;
      });
      await a.dispose();
      services.splice(services.indexOf(a), 1);
      await held;
      await waitFor('b and c to see no leader', () => !b.engine.isLeader() && !c.engine.isLeader(), 5_000);
      expect(b.engine.isLeader() || c.engine.isLeader()).toBe(false);
      expect(await gate(b, 3, SHA2)).toBe('blocked');
      expect(await inboxRows()).toBe(1);
      expect(github.comments.some((x) => x.issue === 3)).toBe(false);
      await lock.query('select pg_advisory_unlock($1::bigint)', [key]);
    } finally {
      await lock.end();
      await admin.end();
    }
    await waitFor('a new leader', () => b.engine.isLeader() || c.engine.isLeader(), 15_000);
    const leader = b.engine.isLeader() ? b : c;
    await waitFor(
      'the new leader to comment on PR 3',
      () => github.comments.some((x) => x.issue === 3),
      15_000,
    );
    await leader.github!.idle();
    expect(
      github.comments.filter((x) => x.issue === 3 && x.body.startsWith('<!-- pathgate:path=')),
    ).toHaveLength(1);
    expect(github.statuses.some((x) => x.sha === SHA2 && x.state === 'failure')).toBe(true);
    expect(await inboxRows()).toBe(0);
  });
});
