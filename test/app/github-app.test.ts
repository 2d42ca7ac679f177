// The GitHub App driven with GitHub's real webhook payloads against a stand-in of GitHub's REST API on
// loopback that records every call: the status goes pending, then red when a report opens a critical
// route, then green when a follow-up report fixes it; one comment per path, upserted idempotently and
// marked resolved; the allowlist refuses and logs; a dry run posts nothing; a bad signature is refused.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import {
  registerCheckRoutes,
  registerCommentRoutes,
  registerFileRoutes,
  registerIdentityRoutes,
  STANDIN_INSTALLATION_TOKEN,
  type StandInCheckRun,
  type StandInComment,
} from '../helpers/github-standin.js';
import { makeService, type TestService } from '../helpers/service.js';
import { routeNodes } from '../../src/paths/path-store.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const payloads = path.resolve(root, '../shared/fixtures/real/github');
const SECRET = 'github-app-webhook-secret';
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

interface Call {
  method: string;
  url: string;
  body: any;
  authorization?: string;
}

/** GitHub's REST API as the app uses it, recording every call. */
class StandIn {
  calls: Call[] = [];
  comments: StandInComment[] = [];
  checkRuns: StandInCheckRun[] = [];
  files = new Map<string, string>([
    ['package.json', '{\n  "name": "hello",\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n'],
  ]);
  app: FastifyInstance = Fastify();
  url = '';
  /** while set, listing comments waits for it (a slow GitHub) */
  hold?: Promise<void>;
  /** milliseconds each comment listing takes (widens the read-then-write window) */
  listLatency = 0;
  nextId = 1000;
  /** a slow GitHub: listing comments waits for `hold` and `listLatency` */
  beforeList = async () => {
    if (this.hold) await this.hold;
    if (this.listLatency) await new Promise((r) => setTimeout(r, this.listLatency));
  };

  async start() {
    const record = (request: {
      method: string;
      url: string;
      body: unknown;
      headers: Record<string, unknown>;
    }) =>
      this.calls.push({
        method: request.method,
        url: request.url,
        body: request.body,
        authorization: request.headers.authorization as string | undefined,
      });
    this.app.addHook('onRequest', async (request) => {
      if (request.method === 'GET')
        record({ method: 'GET', url: request.url, body: null, headers: request.headers });
    });
    this.app.addHook('preHandler', async (request) => {
      if (request.method !== 'GET') record(request);
    });
    this.app.post('/app/installations/:id/access_tokens', async (_q, reply) =>
      reply.code(201).send({ token: STANDIN_INSTALLATION_TOKEN, expires_at: '2099-01-01T00:00:00Z' }),
    );
    this.app.get('/repos/:owner/:repo/installation', async () => ({ id: 957387 }));
    registerCommentRoutes(this.app, this);
    registerCheckRoutes(this.app, this);
    registerIdentityRoutes(this.app);
    registerFileRoutes(this.app, this.files);
    this.app.delete<{ Params: { id: string } }>(
      '/repos/:owner/:repo/issues/comments/:id',
      async (q, reply) => {
        const at = this.comments.findIndex((c) => c.id === Number(q.params.id));
        if (at < 0) return reply.code(404).send({ message: 'Not Found' });
        this.comments.splice(at, 1);
        return reply.code(204).send();
      },
    );
    this.app.post('/repos/:owner/:repo/statuses/:sha', async (_q, reply) => reply.code(201).send({}));
    this.app.get('/repos/:owner/:repo', async () => ({ default_branch: 'main' }));
    this.app.get('/repos/:owner/:repo/git/ref/*', async () => ({ object: { sha: 'b'.repeat(40) } }));
    this.app.post('/repos/:owner/:repo/git/refs', async (_q, reply) => reply.code(201).send({}));
    this.app.put('/repos/:owner/:repo/contents/*', async (_q, reply) => reply.code(201).send({}));
    this.app.post('/repos/:owner/:repo/pulls', async (_q, reply) =>
      reply.code(201).send({ html_url: 'https://github.com/Codertocat/Hello-World/pull/3' }),
    );
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
  }

  statuses() {
    return this.calls.filter((c) => c.method === 'POST' && c.url.includes('/statuses/')).map((c) => c.body);
  }
  writes() {
    return this.calls.filter((c) => c.method !== 'GET' && !c.url.includes('access_tokens'));
  }
  /** the app's per-fix and exposure comments (not the summary) */
  routeComments() {
    return this.comments.filter((c) => c.body.startsWith('<!-- pathgate:path='));
  }
  summaries() {
    return this.comments.filter((c) => c.body.startsWith('<!-- pathgate:summary -->'));
  }
}

let github: StandIn;
let service: TestService | undefined;
let logs: string[] = [];
beforeAll(async () => {
  github = new StandIn();
  await github.start();
});
afterAll(async () => {
  await github.app.close();
});
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  logs = [];
  github.calls = [];
  github.comments = [];
  github.checkRuns = [];
  github.hold = undefined;
  github.listLatency = 0;
});

async function start(env: Record<string, string> = {}) {
  const sink = new Writable({
    write(chunk, _e, done) {
      logs.push(String(chunk));
      done();
    },
  });
  service = await makeService(
    {
      WEBHOOK_SECRET: SECRET,
      APP_ID: '4242',
      PRIVATE_KEY: PEM,
      FORGE_API_URL: github.url,
      REPO_ALLOWLIST: 'Codertocat/*',
      PUBLIC_URL: 'https://pathgate.example.test',
      DASHBOARD_ADDR: '127.0.0.1:3000',
      ...env,
    },
    { logger: pino({ level: 'info' }, sink) },
  );
  await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' });
  await service.ingest(gateEstate());
  await service.settle();
  return service;
}

async function deliver(
  s: TestService,
  event: string,
  file: string,
  edit?: (p: any) => void,
  signature?: string,
) {
  const payload = JSON.parse(readFileSync(path.join(payloads, file), 'utf8'));
  edit?.(payload);
  const body = JSON.stringify(payload);
  return s.apiApp.inject({
    method: 'POST',
    url: '/api/github/webhooks',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': `delivery-${Math.random()}`,
      'x-hub-signature-256': signature ?? (await sign(SECRET, body)),
    },
    payload: body,
  });
}

async function gate(s: TestService, report: unknown, source = 'trivy') {
  const r = await s.apiApp.inject({
    method: 'POST',
    url: `/gate/impact?source=${source}&slug=Codertocat/Hello-World&pr=2&sha=${SHA}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(report),
  });
  expect(r.statusCode).toBe(200);
  return r.json();
}

/** The app writes after answering: wait until the stand-in has seen `count` statuses. */
async function statusCount(count: number) {
  for (let i = 0; i < 1500 && github.statuses().length < count; i++)
    await new Promise((r) => setTimeout(r, 10));
  await service?.github?.idle();
  expect(github.statuses()).toHaveLength(count);
}

describe('the GitHub app', () => {
  it('goes pending, red when a report opens a critical route, then green when a follow-up fixes it', async () => {
    const s = await start();
    expect((await deliver(s, 'pull_request', 'pull_request.opened.payload.json')).statusCode).toBe(202);
    await statusCount(1);
    expect(github.statuses()[0]).toMatchObject({ state: 'pending', context: 'service/attack-paths' });

    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).verdict).toBe('blocked');
    await statusCount(2);
    expect(github.statuses()[1]).toMatchObject({
      state: 'failure',
      context: 'service/attack-paths',
      description: '1 critical attack path opened or made likelier',
      target_url: expect.stringMatching(/^https:\/\/pathgate\.example\.test\/paths\/ap-[0-9a-f]{16}$/),
    });
    expect(github.routeComments()).toHaveLength(1);
    expect(github.summaries()).toHaveLength(1);
    const [comment] = github.routeComments();
    expect(comment.issue).toBe(2);
    expect(comment.body).toMatch(
      /^<!-- pathgate:path=fix-[0-9a-f]{16} -->\n<!-- pathgate:routes=ap-[0-9a-f]{16} -->\n### ⛔ Critical attack path made likelier: `shop-alb` → `orders`/,
    );
    expect(comment.body).toMatch(
      /`shop-alb` —ROUTES\\_TO 0\.77 \(kev\)→ `checkout` —HAS\\_PERMISSION 0\.90 \(heuristic\)→ `orders`/,
    );
    expect(comment.body).toMatch(/\*\*Fix\*\*: upgrade log4j\\-core to 2\\\.15\\\.0/);
    expect(comment.body).toMatch(
      /\[Open in pathgate\]\(https:\/\/pathgate\.example\.test\/paths\/ap-[0-9a-f]{16}\)/,
    );
    // The installation token was used, from the installation named in the payload.
    expect(github.calls.some((c) => c.url === '/app/installations/1/access_tokens')).toBe(true);

    // A second delivery for the same commit edits nothing and adds nothing.
    const before = github.writes().filter((c) => c.url.includes('/comments')).length;
    expect((await deliver(s, 'pull_request', 'pull_request.synchronize.payload.json')).statusCode).toBe(202);
    await statusCount(3);
    expect(github.comments).toHaveLength(2);
    expect(github.writes().filter((c) => c.url.includes('/comments'))).toHaveLength(before);

    // The follow-up report fixes the route: the comment is marked resolved, the status goes green.
    expect((await gate(s, trivyReport([LOW_CVE]))).verdict).toBe('clean');
    await statusCount(4);
    expect(github.statuses()[3]).toMatchObject({
      state: 'success',
      description: 'no attack path opened or made likelier',
    });
    expect(github.routeComments()).toHaveLength(1);
    expect(github.routeComments()[0].body).toMatch(
      /<!-- pathgate:resolved -->\n### ✅ Resolved: `shop-alb` → `orders`/,
    );
    // The summary follows: green now, still one.
    expect(github.summaries()).toHaveLength(1);
    expect(github.summaries()[0].body).toMatch(/^<!-- pathgate:summary -->\n## ✅ pathgate clean/);
  });

  it('follows later analyzer passes for a commit judged by the assets stamped with it', async () => {
    const s = await start();
    // The PR's build is ingested with its slug, number and sha: checkout now runs from this commit.
    const stamped = node('Service', 'checkout');
    expect(
      (await s.ingest(envelope([stamped]), { query: `slug=Codertocat/Hello-World&pr=2&sha=${SHA}` })).status,
    ).toBe(202);
    await s.settle();
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    await statusCount(1);
    expect(github.statuses()[0]).toMatchObject({ state: 'success' });
    // Later, threat intel marks the image's CVE as known exploited: the route through checkout turns critical.
    await s.ingest(envelope([node('CVE', 'CVE-2023-0001', { kev: true })]));
    await s.settle();
    await statusCount(2);
    expect(github.statuses()[1]).toMatchObject({
      state: 'failure',
      description: '1 critical attack path opened or made likelier',
    });
    expect(github.routeComments()).toHaveLength(1);
    expect(github.routeComments()[0].body).toMatch(
      /### ⛔ Critical attack path opened: `shop-alb` → `orders`/,
    );
  });

  it('answers check_suite rerequested for the suite’s pull requests', async () => {
    const s = await start();
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await statusCount(1);
    expect(
      (await deliver(s, 'check_suite', 'check_suite.rerequested.with-organization.payload.json')).statusCode,
    ).toBe(202);
    await statusCount(2);
    expect(github.statuses()[1]).toMatchObject({ state: 'failure' });
    expect(github.routeComments()).toHaveLength(1);
  });

  it('keeps a commit red while any of its reports blocks: a clean second report does not resolve the route', async () => {
    const s = await start();
    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).verdict).toBe('blocked');
    await statusCount(1);
    expect(github.statuses()[0]).toMatchObject({ state: 'failure' });
    // A second report of the same commit (a relationship report, another source) is clean on its own.
    const web = node('Service', 'checkout');
    const db = node('Database', 'orders');
    expect((await gate(s, envelope([], [edge('HAS_PERMISSION', web, db, 0.9)]), 'events')).verdict).toBe(
      'clean',
    );
    await statusCount(2);
    expect(github.statuses()[1]).toMatchObject({ state: 'failure' });
    expect(github.routeComments()).toHaveLength(1);
    expect(github.routeComments()[0].body).not.toMatch(/resolved/);
    const { prVerdict } = await s.graphql(`{ prVerdict(sha: "${SHA}") { verdict worsened reason } }`);
    expect(prVerdict).toMatchObject({ verdict: 'blocked', worsened: 1 });
    expect(prVerdict.reason).toMatch(/^blocked over 2 reports \(worst: trivy image:acme\/checkout:1\.0\)/);

    // A newer report of the same source and artifact replaces the first: now the route is gone everywhere.
    expect((await gate(s, trivyReport([LOW_CVE]))).verdict).toBe('clean');
    await statusCount(3);
    expect(github.statuses()[2]).toMatchObject({ state: 'success' });
    expect(github.routeComments()[0].body).toMatch(/### ✅ Resolved: `shop-alb` → `orders`/);

    // A later report that cannot be read does not leave the commit clean.
    const unreadable = await s.apiApp.inject({
      method: 'POST',
      url: `/gate/impact?source=trivy&slug=Codertocat/Hello-World&pr=2&sha=${SHA}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"SchemaVersion": 2, "Results": [',
    });
    expect(unreadable.statusCode).toBe(200);
    expect(unreadable.json()).toMatchObject({
      verdict: 'unknown',
      errors: [expect.objectContaining({ pointer: '/' })],
    });
    const after = await s.graphql(`{ prVerdict(sha: "${SHA}") { verdict } }`);
    expect(after.prVerdict.verdict).toBe('unknown');
    await statusCount(4);
    expect(github.statuses()[3]).toMatchObject({ state: 'pending' });

    // The commit's reports survive a restart: the pull request is brought up to date from them.
    await s.dispose({ keepData: true });
    service = await makeService(
      {
        WEBHOOK_SECRET: SECRET,
        APP_ID: '4242',
        PRIVATE_KEY: PEM,
        FORGE_API_URL: github.url,
        REPO_ALLOWLIST: 'Codertocat/*',
      },
      { dataDir: s.dataDir },
    );
    const again = await service.graphql(`{ prVerdict(sha: "${SHA}") { verdict reason } }`);
    expect(again.prVerdict.verdict).toBe('unknown');
    expect(again.prVerdict.reason).toMatch(/over 3 reports/);
  });

  it('leaves exactly one comment per route after eight concurrent evaluations of one pull request', async () => {
    const s = await start();
    github.listLatency = 15;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => gate(s, trivyReport([LOW_CVE, KEV_CVE]))),
    );
    expect(answers.map((a) => a.verdict)).toEqual(Array(8).fill('blocked'));
    await s.github!.idle();
    expect(github.routeComments()).toHaveLength(1);
    expect(github.summaries()).toHaveLength(1);
    expect(github.routeComments()[0].body).toMatch(
      /Critical attack path made likelier: `shop-alb` → `orders`/,
    );
    expect(github.checkRuns).toHaveLength(1);
    expect(github.statuses().at(-1)).toMatchObject({ state: 'failure' });
  });

  it('gives routes that share one fix one comment, and counts them all in the status', async () => {
    // Token mode: the App's Octokit spaces comment creation by 3 s (GitHub's secondary rate limits).
    const s = await start({
      APP_ID: '',
      PRIVATE_KEY: '',
      FORGE_TOKEN: 'github_pat_standin_0123456789abcdefghij',
    });
    const web = node('Service', 'checkout');
    const replicas = Array.from({ length: 24 }, (_, i) =>
      node('Database', `orders-replica-${String(i).padStart(2, '0')}`, { crown_jewel: true }),
    );
    await s.ingest(
      envelope(
        [web, ...replicas],
        replicas.map((db) => edge('HAS_PERMISSION', web, db, 0.9)),
      ),
    );
    await s.settle();
    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).worsened).toHaveLength(25);
    await s.github!.idle();
    // All 25 routes are cut by the same upgrade: one comment names them all.
    expect(github.routeComments()).toHaveLength(1);
    const [shared] = github.routeComments();
    expect(shared.body).toMatch(/^### ⛔ 25 attack paths share one fix: /m);
    expect(/<!-- pathgate:routes=([^ ]+) -->/.exec(shared.body)![1].split(',')).toHaveLength(25);
    expect(github.summaries()).toHaveLength(1);
    expect(github.statuses().at(-1)).toMatchObject({
      state: 'failure',
      description: '25 critical attack paths opened or made likelier',
    });
    // A second verdict resolves none of the routes left without a comment, and adds no comment.
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await s.github!.idle();
    expect(github.comments).toHaveLength(2);
    expect(github.comments.some((c) => c.body.includes('Resolved'))).toBe(false);
  });

  it('removes a copy of a route comment another writer posted at the same moment', async () => {
    const s = await start();
    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).verdict).toBe('blocked');
    await s.github!.idle();
    const [first] = github.routeComments();
    const [summary] = github.summaries();
    // Another replica raced this one and posted the same route and summary again; the next update keeps
    // the oldest of each.
    github.comments.push({ ...first, id: 5000 }, { ...summary, id: 5001 });
    github.comments.find((c) => c.id === first.id)!.body = first.body.replace('score', 'stale score');
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await s.github!.idle();
    expect(github.comments.map((c) => c.id).sort()).toEqual([first.id, summary.id].sort());
  });

  it('answers a webhook before its queued work finishes, however slow GitHub is', async () => {
    const s = await start();
    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).verdict).toBe('blocked');
    await s.github!.idle();
    for (let i = 0; i < 40; i++)
      github.comments.push({ id: 2000 + i, body: `a human comment ${i}`, issue: 2 });
    const order: string[] = [];
    let release!: () => void;
    github.hold = new Promise<void>((r) => (release = r)).then(() => {
      order.push('github answered');
    });
    const answer = await deliver(s, 'pull_request', 'pull_request.synchronize.payload.json');
    order.push('webhook answered');
    expect(answer.statusCode).toBe(202);
    // The update is queued and waiting on GitHub, not done.
    expect(github.calls.some((c) => c.method === 'GET' && c.url.includes('/comments'))).toBe(true);
    release();
    await s.github!.idle();
    expect(order).toEqual(['webhook answered', 'github answered']);
    expect(github.statuses().at(-1)).toMatchObject({ state: 'failure' });
  });

  it('answers 400 to a signed payload that is not what its event promises, and writes nothing', async () => {
    const s = await start();
    const post = async (event: string, body: string) =>
      s.apiApp.inject({
        method: 'POST',
        url: '/api/github/webhooks',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': 'delivery-malformed',
          'x-hub-signature-256': await sign(SECRET, body),
        },
        payload: body,
      });
    const notJson = await post('pull_request', '{"action": "opened", ');
    expect(notJson.statusCode).toBe(400);
    expect(notJson.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(notJson.json().detail).toMatch(/not JSON/);
    const noPull = await post(
      'pull_request',
      JSON.stringify({
        action: 'opened',
        repository: { name: 'Hello-World', owner: { login: 'Codertocat' } },
      }),
    );
    expect(noPull.statusCode).toBe(400);
    expect(noPull.json().detail).toMatch(/pull_request\.number and pull_request\.head\.sha/);
    expect((await post('pull_request', '[]')).statusCode).toBe(400);
    await s.github!.idle();
    expect(github.writes()).toEqual([]);
  });

  it('forgets a closed pull request: later passes post nothing to it', async () => {
    const s = await start();
    expect(
      (
        await s.ingest(envelope([node('Service', 'checkout')]), {
          query: `slug=Codertocat/Hello-World&pr=2&sha=${SHA}`,
        })
      ).status,
    ).toBe(202);
    await s.settle();
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    await statusCount(1);
    const closed = await deliver(s, 'pull_request', 'pull_request.closed.payload.json', (p) => {
      p.number = 2;
      p.pull_request.number = 2;
    });
    expect(closed.statusCode).toBe(202);
    await s.ingest(envelope([node('CVE', 'CVE-2023-0001', { kev: true })]));
    await s.settle();
    await new Promise((r) => setTimeout(r, 100));
    await s.github!.idle();
    expect(github.statuses()).toHaveLength(1);
  });

  it('posts with FORGE_TOKEN for teams without the App (token mode, no webhooks needed)', async () => {
    const token = 'github_pat_standin_0123456789abcdefghij';
    const s = await start({ WEBHOOK_SECRET: '', APP_ID: '', PRIVATE_KEY: '', FORGE_TOKEN: token });
    expect(s.github?.mode).toBe('token');
    expect((await gate(s, trivyReport([LOW_CVE, KEV_CVE]))).verdict).toBe('blocked');
    await s.github!.idle();
    expect(github.statuses()).toEqual([
      expect.objectContaining({ state: 'failure', context: 'service/attack-paths' }),
    ]);
    expect(github.routeComments()).toHaveLength(1);
    // A token cannot write check runs (GitHub Apps only): the status alone.
    expect(github.checkRuns).toEqual([]);
    expect(github.calls.every((c) => c.authorization === `Bearer ${token}`)).toBe(true);
    // No App: no installation token was asked for, and no webhook route is open without a secret.
    expect(github.calls.some((c) => c.url.includes('access_tokens'))).toBe(false);
    expect((await deliver(s, 'pull_request', 'pull_request.opened.payload.json')).statusCode).toBe(404);
    expect(logs.join('')).not.toContain(token);
  });

  it('refuses writes outside REPO_ALLOWLIST and logs the slug', async () => {
    const s = await start({ REPO_ALLOWLIST: 'someone-else/*' });
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await new Promise((r) => setTimeout(r, 200));
    expect(github.writes()).toEqual([]);
    const refused = logs.map((l) => JSON.parse(l)).filter((l) => /forge write refused/.test(l.msg));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ slug: 'Codertocat/Hello-World' });
  });

  it('runs dry without APP_ID and PRIVATE_KEY: logs what it would post, posts nothing', async () => {
    const s = await start({ APP_ID: '', PRIVATE_KEY: '' });
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await new Promise((r) => setTimeout(r, 200));
    expect(github.calls).toEqual([]);
    const dry = logs.map((l) => JSON.parse(l)).filter((l) => l.dryRun);
    expect(dry.map((l) => l.msg)).toEqual(expect.arrayContaining(['would set status', 'would comment']));
    expect(dry.filter((l) => l.msg === 'would set status').map((l) => [l.state, l.slug])).toEqual([
      ['pending', 'Codertocat/Hello-World'],
      ['failure', 'Codertocat/Hello-World'],
    ]);
  });

  it('refuses a webhook whose signature does not match', async () => {
    const s = await start();
    const r = await deliver(
      s,
      'pull_request',
      'pull_request.opened.payload.json',
      undefined,
      'sha256=' + '0'.repeat(64),
    );
    expect(r.statusCode).toBe(401);
    const tampered = await deliver(
      s,
      'pull_request',
      'pull_request.opened.payload.json',
      (p) => (p.number = 99),
      await sign(SECRET, '{}'),
    );
    expect(tampered.statusCode).toBe(401);
    await new Promise((r2) => setTimeout(r2, 100));
    expect(github.calls).toEqual([]);
  });

  it('opens a fix pull request hardening a workload manifest found where the repository keeps it', async () => {
    const s = await start();
    github.files.set(
      'deploy/checkout.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: checkout\nspec:\n  template:\n    spec:\n      containers:\n        - name: checkout\n          image: ghcr.io/acme/checkout:1.0\n          securityContext:\n            privileged: true\n',
    );
    try {
      const web = node('Service', 'checkout', { repo_slug: 'Codertocat/Hello-World' });
      const host = node('VirtualMachine', 'shop/node/worker-1', { sensitive: true, crown_jewel: true });
      await s.ingest(
        envelope(
          [web, host],
          [{ ...edge('CAN_ESCALATE_TO', web, host, 0.9), properties: { technique: 'T1611' } }],
        ),
      );
      await s.settle();
      const path = s.engine
        .tenant('default')!
        .paths.open()
        .find((p) => routeNodes(p).at(-1)!.name === 'shop/node/worker-1')!;
      const r = await s.apiApp.inject({
        method: 'POST',
        url: '/remediation/pr',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ pathId: path.id, fix: 'fx-harden-workload-1' }),
      });
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({ files: ['deploy/checkout.yaml'], fix: { kind: 'harden-workload' } });
      const commit = github.writes().find((c) => c.method === 'PUT')!;
      const text = Buffer.from(commit.body.content, 'base64').toString();
      expect(text).toMatch(/privileged: false/);
      expect(text).toMatch(/runAsNonRoot: true/);
    } finally {
      github.files.delete('deploy/checkout.yaml');
    }
  });

  it('opens a fix pull request for a path: branch, commit and pull request', async () => {
    const s = await start();
    const img = node('Image', 'acme/checkout:1.0');
    const repo = node('Repository', 'github.com/Codertocat/Hello-World', {
      repo_slug: 'Codertocat/Hello-World',
    });
    const lodash = node('Library', 'pkg:npm/lodash@4.17.20', {
      package: 'lodash',
      ecosystem: 'npm',
      version: '4.17.20',
    });
    const cve = node('CVE', 'CVE-2021-23337', { cvss_score: 7.2 });
    await s.ingest(
      envelope(
        [img, repo, lodash, cve],
        [
          edge('BUILT_FROM', img, repo),
          edge('DEPENDS_ON', img, lodash),
          { ...edge('AFFECTS', cve, lodash), properties: { fixed_version: '4.17.21' } },
        ],
      ),
    );
    await s.settle();
    const [path] = s.engine.tenant('default')!.paths.open();
    const post = (body: unknown) =>
      s.apiApp.inject({
        method: 'POST',
        url: '/remediation/pr',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const unknown = await post({ pathId: path.id, fix: 'fx-nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().fixes).toEqual([
      expect.objectContaining({
        id: 'fx-upgrade-dependency-1',
        kind: 'upgrade-dependency',
        repo: 'Codertocat/Hello-World',
      }),
    ]);
    const r = await post({ pathId: path.id, fix: 'fx-upgrade-dependency-1' });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({
      url: 'https://github.com/Codertocat/Hello-World/pull/3',
      branch: 'pathgate/upgrade-lodash-4.17.21',
      files: ['package.json'],
    });
    const writes = github.writes();
    const branch = writes.find((c) => c.url.endsWith('/git/refs'))!;
    expect(branch.body).toEqual({ ref: 'refs/heads/pathgate/upgrade-lodash-4.17.21', sha: 'b'.repeat(40) });
    const commit = writes.find((c) => c.method === 'PUT')!;
    expect(commit.body).toMatchObject({ branch: 'pathgate/upgrade-lodash-4.17.21', sha: 'c'.repeat(40) });
    expect(JSON.parse(Buffer.from(commit.body.content, 'base64').toString()).dependencies.lodash).toBe(
      '^4.17.21',
    );
    const pull = writes.find((c) => c.url.endsWith('/pulls'))!;
    expect(pull.body).toMatchObject({
      head: 'pathgate/upgrade-lodash-4.17.21',
      base: 'main',
      title: 'Upgrade lodash to 4.17.21 (CVE-2021-23337)',
    });
    expect(pull.body.body).toContain('`shop-alb` → `checkout` → `orders`');
  });
});
