// Three replicas as separate processes on real NATS JetStream and PostgreSQL: the leader (advisory lock)
// is SIGKILLed in the middle of a stream of ingests spread over all three. Another replica takes the lock
// within 15 s; every report answered 202 (by any replica, the dead one included) is applied on both
// survivors; the pull request's comment the old leader posted is neither lost nor posted again when the new
// leader gates the same commit, a follower's verdict reaches the pull request through the new leader, and the new leader comments on a
// pull request that opens a route after the takeover. GitHub is a stand-in on loopback recording calls.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { streamNames } from '../../src/bus/jetstream.js';
import { LEADER_QUERY, lockKey } from '../../src/engine/leadership.js';
import { envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { tempDir } from '../helpers/service.js';
import {
  describeWithServices,
  missingServices,
  NATS_URL,
  PG_DSN,
  schemaDsn,
  uniqueName,
  waitFor,
} from '../helpers/services.js';

const reason = await missingServices({ nats: true, postgres: true });
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const SHA2 = '1111111111111111111111111111111111111111';

interface Replica {
  name: string;
  child: ChildProcess;
  ingestUrl: string;
  apiUrl: string;
  dataDir: string;
}

describeWithServices('three replicas, one leader (real NATS and PostgreSQL)', reason, () => {
  const replicas: Replica[] = [];
  const github = new GithubStandIn();
  const db = new pg.Client({ connectionString: PG_DSN });
  const prefix = uniqueName('fo');
  const key = lockKey(streamNames(prefix).events);
  let dsn = PG_DSN;
  let dropSchema: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const schema = await schemaDsn('fo');
    dsn = schema.dsn;
    dropSchema = schema.drop;
  });

  afterAll(async () => {
    for (const r of replicas)
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.allSettled(
      replicas.map(async (r) => {
        if (r.child.exitCode === null && r.child.signalCode === null) await once(r.child, 'exit');
        await rm(r.dataDir, { recursive: true, force: true });
      }),
    );
    await github.app.close();
    await db.end().catch(() => undefined);
    await dropSchema?.();
  });

  async function startReplica(name: string): Promise<Replica> {
    const dataDir = await tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', new URL('../app/fixtures/serve-child.ts', import.meta.url).pathname],
      {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          INGEST_ADDR: '127.0.0.1:0',
          API_ADDR: '127.0.0.1:0',
          ANALYZER_THREADS: '1',
          ANALYZER_INTERVAL: '300ms',
          INGEST_RATE_RPS: '1000',
          API_RATE_RPS: '1000',
          BUS_URL: NATS_URL,
          BUS_SUBJECT_PREFIX: prefix,
          BUS_CONSUMER: name,
          DB_DSN: dsn,
          LEADER_POLL_INTERVAL: '500ms',
          FORGE_TOKEN: 'ghp_standin',
          FORGE_API_URL: github.url,
          REPO_ALLOWLIST: 'Codertocat/*',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const replica = { name, child, dataDir, ingestUrl: '', apiUrl: '' };
    replicas.push(replica);
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    Object.assign(replica, JSON.parse(line) as { ingestUrl: string; apiUrl: string });
    return replica;
  }

  async function leader(): Promise<string | undefined> {
    const { rows } = await db.query<{ holder: string }>(LEADER_QUERY, [key]);
    return rows[0]?.holder;
  }

  async function post(r: Replica, path: string, body: unknown): Promise<Response> {
    return fetch(`${r.ingestUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function gate(r: Replica, report: unknown, pr: number, sha: string) {
    const response = await fetch(
      `${r.apiUrl}/gate/impact?source=trivy&slug=Codertocat/Hello-World&pr=${pr}&sha=${sha}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as { verdict: string };
  }

  async function batchComplete(r: Replica, id: string): Promise<boolean> {
    const response = await fetch(`${r.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ingestBatch(id: ${JSON.stringify(id)}) { complete } }` }),
    });
    const json = (await response.json()) as { data?: { ingestBatch?: { complete: boolean } | null } };
    return json.data?.ingestBatch?.complete === true;
  }

  it('survives the leader SIGKILLed mid-ingest', { timeout: 120_000 }, async () => {
    await github.start();
    await db.connect();
    const a = await startReplica('replica-a');
    expect(await waitFor('replica-a to lead', async () => (await leader()) === 'replica-a')).toBe(true);
    const b = await startReplica('replica-b');
    const c = await startReplica('replica-c');

    // The estate, then a pull request that makes its route critical, gated on the leader: one comment.
    const accepted: string[] = [];
    for (const [r, path, body] of [
      [a, '/ingest/trivy', trivyReport([LOW_CVE])],
      [b, '/ingest/events', gateEstate()],
    ] as const) {
      const response = await post(r, path, body);
      expect(response.status).toBe(202);
      accepted.push(((await response.json()) as { batchId: string }).batchId);
    }
    for (const r of [a, b, c])
      await waitFor(`${r.name} to apply the estate`, async () => {
        for (const id of accepted) if (!(await batchComplete(r, id))) return false;
        return true;
      });
    expect((await gate(a, trivyReport([LOW_CVE, KEV_CVE]), 2, SHA)).verdict).toBe('blocked');
    await waitFor('the leader to comment', () =>
      github.comments.some((c) => c.body.startsWith('<!-- pathgate:path=')),
    );
    expect(github.comments[0].issue).toBe(2);

    // Reports round-robin over the three; the leader dies after a few.
    let stop = false;
    let sent = 0;
    const senders = [a, b, c].map(async (r) => {
      while (!stop) {
        const n = sent++;
        try {
          const response = await post(r, '/ingest/events', envelope([node('Service', `svc-${n}`)]));
          if (response.status === 202)
            accepted.push(((await response.json()) as { batchId: string }).batchId);
        } catch {
          if (r === a) return; // the killed replica answers nothing more
        }
      }
    });
    await waitFor('reports flowing', () => accepted.length >= 40);
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    await once(a.child, 'exit');
    const next = await waitFor(
      'another replica to lead',
      async () => {
        const holder = await leader();
        return holder && holder !== 'replica-a' ? holder : undefined;
      },
      15_000,
      100,
    );
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    await waitFor('more reports after the takeover', () => accepted.length >= 120, 30_000);
    stop = true;
    await Promise.all(senders);

    // Every acknowledged report is in the graph of both survivors.
    for (const r of [b, c])
      await waitFor(
        `${r.name} to hold every acknowledged report`,
        async () => {
          for (const id of accepted) if (!(await batchComplete(r, id))) return false;
          return true;
        },
        30_000,
        200,
      );

    const [newLeader, follower] = next === 'replica-b' ? [b, c] : [c, b];
    // A follower gates: its answer is the verdict, and it hands the verdict to the leader (through
    // PostgreSQL), which alone writes to GitHub: the status follows; the old leader's comment is found and
    // kept, not posted again.
    const writes = github.writes.length;
    const statusesBefore = github.statuses.length;
    expect((await gate(follower, trivyReport([LOW_CVE, KEV_CVE]), 2, SHA)).verdict).toBe('blocked');
    await waitFor(
      'the new leader to set the status for the follower’s verdict',
      () => github.statuses.length > statusesBefore,
    );
    // The new leader gates the same commit itself: the same status again, still one comment.
    expect((await gate(newLeader, trivyReport([LOW_CVE, KEV_CVE]), 2, SHA)).verdict).toBe('blocked');
    await waitFor(
      'the new leader to set the status',
      () => github.statuses.slice(-1)[0]?.sha === SHA && github.writes.length > writes,
    );
    expect(github.writes.slice(writes).every((w) => !w.url.includes('/issues/2/comments'))).toBe(true);
    const since = github.statuses.slice(statusesBefore);
    expect(since.length).toBeGreaterThanOrEqual(1);
    expect(since.every((s) => s.sha === SHA && s.state === 'failure')).toBe(true);
    expect(
      github.comments.filter((c) => c.issue === 2 && c.body.startsWith('<!-- pathgate:path=')),
    ).toHaveLength(1);
    // And a pull request that opens the route after the takeover gets its comment from the new leader.
    expect((await gate(newLeader, trivyReport([LOW_CVE, KEV_CVE]), 3, SHA2)).verdict).toBe('blocked');
    // Its conversation: the summary and one comment per fix, each once (the leader writes them in turn).
    const onThree = () => github.comments.filter((c) => c.issue === 3);
    await waitFor(
      'the conversation on the new pull request',
      () =>
        onThree().some((c) => c.body.startsWith('<!-- pathgate:summary -->')) &&
        onThree().some((c) => c.body.startsWith('<!-- pathgate:path=')),
    );
    const firstLines = onThree().map((c) => c.body.split('\n')[0]);
    expect(new Set(firstLines).size).toBe(firstLines.length);
  });
});
