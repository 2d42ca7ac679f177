// Issue 32 item 2: one readable conversation per pull request. The App, fed GitHub's real webhook payloads
// and gate reports, against the stand-in GitHub (test/helpers/github-standin.ts, GitHub's REST shapes):
// one summary comment and one Check Run per commit with annotations on the files and lines the fix names;
// redeliveries and concurrent reports leave no duplicate; routes sharing a fix share a comment; the
// pending text is "waiting for a scan"; no link is written when no page is behind it.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubCheckRuns } from '../../src/forge/check-runs.js';
import { githubForge } from '../../src/forge/forge.js';
import { tokenRequest } from '../../src/forge/token-request.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { makeService, type TestService } from '../helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const payloads = path.resolve(root, '../shared/fixtures/real/github');
const SECRET = 'github-app-webhook-secret';
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

/** The pull request's repository: the image's Dockerfile and the Maven manifest naming log4j-core. */
const FILES: [string, string][] = [
  ['README.md', '# checkout\n'],
  ['Dockerfile', '# the checkout service\nFROM eclipse-temurin:17-jre\nCOPY target/app.jar /app.jar\n'],
  [
    'pom.xml',
    [
      '<project>',
      '  <dependencies>',
      '    <dependency>',
      '      <groupId>org.apache.logging.log4j</groupId>',
      '      <artifactId>log4j-core</artifactId>',
      '      <version>2.14.1</version>',
      '    </dependency>',
      '  </dependencies>',
      '</project>',
      '',
    ].join('\n'),
  ],
];

let github: GithubStandIn;
let service: TestService | undefined;
beforeAll(async () => {
  github = new GithubStandIn();
  await github.start();
});
afterAll(async () => {
  await github.app.close();
});
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  github.comments = [];
  github.checkRuns = [];
  github.statuses = [];
  github.files.clear();
});

async function start(env: Record<string, string> = {}): Promise<TestService> {
  for (const [file, text] of FILES) github.files.set(file, text);
  service = await makeService({
    WEBHOOK_SECRET: SECRET,
    APP_ID: '4242',
    PRIVATE_KEY: PEM,
    FORGE_API_URL: github.url,
    REPO_ALLOWLIST: 'Codertocat/*',
    ...env,
  });
  await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' });
  await service.ingest(gateEstate());
  await service.settle();
  return service;
}

async function deliver(
  s: TestService,
  event: string,
  file: string,
  delivery = `d-${Math.random()}`,
  expected = 202,
) {
  const body = readFileSync(path.join(payloads, file), 'utf8');
  const r = await s.apiApp.inject({
    method: 'POST',
    url: '/api/github/webhooks',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': await sign(SECRET, body),
    },
    payload: body,
  });
  expect(r.statusCode).toBe(expected);
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

const summaries = () => github.comments.filter((c) => c.body.startsWith('<!-- pathgate:summary -->'));
const fixComments = () => github.comments.filter((c) => c.body.startsWith('<!-- pathgate:path='));

describe('one conversation per pull request', () => {
  it('says "waiting for a scan" until a report arrives, in the status and the Check Run', async () => {
    const s = await start();
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    await s.github!.idle();
    expect(github.statuses).toEqual([
      expect.objectContaining({ state: 'pending', description: 'waiting for a scan' }),
    ]);
    expect(github.checkRuns).toHaveLength(1);
    expect(github.checkRuns[0]).toMatchObject({
      name: 'service/attack-paths',
      head_sha: SHA,
      status: 'in_progress',
      output: { title: 'waiting for a scan' },
    });
    expect(github.comments).toEqual([]);
  });

  it('gives one summary, one comment per fix naming file:line, and one Check Run with file-anchored annotations', async () => {
    const s = await start();
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json');
    // Two routes reach the crown jewels through the image the report changes: the same fix cuts both.
    const web = node('Service', 'checkout');
    const ledger = node('Database', 'ledger', { crown_jewel: true });
    await s.ingest(envelope([web, ledger], [edge('HAS_PERMISSION', web, ledger, 0.9)]));
    await s.settle();
    const answer = await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    expect(answer.verdict).toBe('blocked');
    const routes = [...answer.opened, ...answer.worsened];
    expect(routes.length).toBe(2);
    await s.github!.idle();

    expect(summaries()).toHaveLength(1);
    expect(fixComments()).toHaveLength(1);
    const [fix] = fixComments();
    expect(fix.body).toMatch(/^### ⛔ 2 attack paths share one fix: /m);
    for (const r of routes) expect(fix.body).toContain(r.id);
    // The fix names what to change and where: the package in pom.xml, the Dockerfile's FROM.
    expect(fix.body).toContain('`log4j-core` at `pom.xml:5`');
    expect(fix.body).toContain('`the Dockerfile FROM` at `Dockerfile:2`');

    const summary = summaries()[0].body;
    expect(summary).toMatch(/^<!-- pathgate:summary -->\n## ⛔ pathgate blocked\\: 2 attack paths/);
    expect(summary).toContain('```mermaid');
    expect(summary).toMatch(/\*\*Fixes\*\*\n\n1\. upgrade log4j\\-core/);

    expect(github.checkRuns).toHaveLength(1);
    const [run] = github.checkRuns;
    expect(run).toMatchObject({
      name: 'service/attack-paths',
      head_sha: SHA,
      status: 'completed',
      conclusion: 'failure',
      output: { title: 'blocked: 2 attack paths opened or made likelier (2 critical)' },
    });
    expect(run.output.summary).toBe(summary.replace('<!-- pathgate:summary -->\n', ''));
    expect(run.annotations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'pom.xml', start_line: 5, end_line: 5, annotation_level: 'failure' }),
        expect.objectContaining({ path: 'Dockerfile', start_line: 2, annotation_level: 'failure' }),
      ]),
    );
    expect(run.annotations.every((a) => github.files.has(a.path))).toBe(true);
    // No dashboard is configured: no link anywhere (each would answer 404).
    expect(run.details_url).toBeNull();
    expect(github.statuses.at(-1)).not.toHaveProperty('target_url');
    for (const c of github.comments) expect(c.body).not.toMatch(/\/paths\/|Open in pathgate/);
  });

  it('leaves no duplicate after redeliveries and concurrent reports', async () => {
    const s = await start();
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json', 'delivery-1');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => gate(s, trivyReport([LOW_CVE, KEV_CVE]))),
    );
    expect(answers.every((a) => a.verdict === 'blocked')).toBe(true);
    // The same delivery again (a replay: answered as a duplicate, handled once), a synchronize, a
    // rerequested check suite: all for the same commit.
    await deliver(s, 'pull_request', 'pull_request.opened.payload.json', 'delivery-1', 200);
    await deliver(s, 'pull_request', 'pull_request.synchronize.payload.json');
    await deliver(s, 'check_suite', 'check_suite.rerequested.with-organization.payload.json');
    await Promise.all(Array.from({ length: 4 }, () => gate(s, trivyReport([LOW_CVE, KEV_CVE]))));
    await s.github!.idle();
    expect(summaries()).toHaveLength(1);
    expect(fixComments()).toHaveLength(1);
    expect(github.checkRuns.filter((r) => r.head_sha === SHA)).toHaveLength(1);
    expect(github.checkRuns[0].annotations.length).toBeGreaterThan(0);
    // Annotations were sent once, not appended again on every update.
    const keys = github.checkRuns[0].annotations.map((a) => `${a.path}:${a.start_line}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('writes a link only when the page behind it exists (PUBLIC_URL and a dashboard)', async () => {
    const s = await start({ PUBLIC_URL: 'https://pathgate.example.test', DASHBOARD_ADDR: '127.0.0.1:3000' });
    const answer = await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await s.github!.idle();
    const id = answer.worsened[0].id;
    const link = `https://pathgate.example.test/paths/${id}`;
    expect(fixComments()[0].body).toContain(`[Open in pathgate](${link})`);
    expect(github.statuses.at(-1)).toMatchObject({ target_url: link });
    expect(github.checkRuns[0].details_url).toBe(link);
  });

  it('writes no link with PUBLIC_URL alone (no dashboard serves the pages)', async () => {
    const s = await start({ PUBLIC_URL: 'https://pathgate.example.test' });
    await gate(s, trivyReport([LOW_CVE, KEV_CVE]));
    await s.github!.idle();
    expect(github.comments.length).toBeGreaterThan(0);
    for (const c of github.comments) expect(c.body).not.toContain('pathgate.example.test');
    expect(github.checkRuns[0].details_url).toBeNull();
  });
});

describe('GitHub limits', () => {
  it('pages annotations at 50 per request: 120 reach the run, none refused', async () => {
    const checks = githubCheckRuns(
      tokenRequest({ token: 'ghs_standin_installation_token', apiUrl: github.url }),
    );
    const annotations = Array.from({ length: 120 }, (_, i) => ({
      path: 'pom.xml',
      startLine: i + 1,
      endLine: i + 1,
      level: 'warning' as const,
      message: `finding ${i}`,
    }));
    const id = await checks.createCheckRun(
      { owner: 'Codertocat', repo: 'Hello-World' },
      {
        name: 'service/attack-paths',
        headSha: SHA,
        status: 'completed',
        conclusion: 'failure',
        externalId: 'x',
        title: 'many',
        summary: 'many annotations',
        annotations,
      },
    );
    const run = github.checkRuns.find((r) => r.id === id)!;
    expect(run.annotations).toHaveLength(120);
    expect(run.output.annotations_count).toBe(120);
  });

  it('keeps a status description within 140 characters, cut at a word, never inside a SHA', async () => {
    const forge = githubForge(tokenRequest({ token: 'ghp_standin', apiUrl: github.url }));
    const description = `not analysed yet: the report is empty; fell back to attribution by commit ${SHA} and found no asset stamped with ${SHA}`;
    await forge.setStatus({ owner: 'Codertocat', repo: 'Hello-World' }, SHA, {
      context: 'service/attack-paths',
      state: 'pending',
      description,
    });
    const sent = github.statuses.at(-1)!.description!;
    expect(sent.length).toBeLessThanOrEqual(140);
    expect(sent.endsWith('…')).toBe(true);
    // Every word sent is a whole word of the original.
    const words = new Set(description.split(' '));
    for (const word of sent.replace(/…$/, '').split(' ')) expect(words.has(word)).toBe(true);
  });
});
