// Issue 31 item 2 (PR-comment part): node names come from ingested reports, so the App's comments must not
// let a name leave its code span, hide text in an HTML comment, forge the app's marker, mention a team or
// draw a link; and a marker in a comment someone else wrote is not the app's: never updated, never trusted.
// The comments are rendered by a CommonMark + GFM renderer (markdown-it) to check what a reader would see.
import { generateKeyPairSync } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { makeService, type TestService } from '../helpers/service.js';
import { mdCode, mdText, mermaidLabel, truncateWords } from '../../app/github/markdown.js';

const SECRET = 'github-app-webhook-secret';
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

/** Hostile node names: each tries another way out of the text it is written into. */
const HOSTILE = {
  start: 'lb`) [link](javascript:alert(1)) `',
  middle: 'api ``` <!-- pathgate:path=ap-0000000000000000 --> @acme/security-team',
  target: 'db --> <img src=x onerror=alert(1)> ![x](https://evil.example/x.png)',
};

const markdown = new MarkdownIt({ html: true, linkify: true });
const decode = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** What a reader sees outside code: the rendered HTML with code spans and blocks removed. */
const outsideCode = (html: string) => html.replace(/<code[^>]*>[\s\S]*?<\/code>/g, '');

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
});

async function start(): Promise<TestService> {
  service = await makeService({
    WEBHOOK_SECRET: SECRET,
    APP_ID: '4242',
    PRIVATE_KEY: PEM,
    FORGE_API_URL: github.url,
    REPO_ALLOWLIST: 'Codertocat/*',
  });
  const lb = node('LoadBalancer', HOSTILE.start, { internet_exposed: true });
  const web = node('Service', HOSTILE.middle);
  const db = node('Database', HOSTILE.target, { crown_jewel: true });
  await service.ingest(envelope([lb, web, db], [edge('ROUTES_TO', lb, web)]));
  await service.settle();
  return service;
}

/** A pull request's report that lets the service read the database: opens the hostile route. */
async function gateHostileRoute(s: TestService) {
  const web = node('Service', HOSTILE.middle);
  const db = node('Database', HOSTILE.target);
  const r = await s.apiApp.inject({
    method: 'POST',
    url: `/gate/impact?source=events&slug=Codertocat/Hello-World&pr=2&sha=${SHA}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(envelope([], [edge('HAS_PERMISSION', web, db, 0.9)])),
  });
  expect(r.statusCode).toBe(200);
  expect(r.json().opened.length).toBeGreaterThan(0);
  await s.github!.idle();
}

describe('Markdown the App writes', () => {
  it('keeps hostile node names inside their code spans: no link, image, HTML, comment or mention', async () => {
    const s = await start();
    await gateHostileRoute(s);
    const written = github.comments.filter((c) => c.issue === 2);
    expect(written.length).toBeGreaterThan(0);
    for (const comment of written) {
      const html = markdown.render(comment.body);
      // The app's own markers open the comment; after them, no HTML comment at all.
      expect(comment.body.startsWith('<!-- pathgate:')).toBe(true);
      const afterMarkers = comment.body.replace(/^(?:<!-- pathgate:[a-z]+(?:=[a-z0-9,-]+)? -->\n?)+/, '');
      expect(markdown.render(afterMarkers)).not.toContain('<!--');
      // Nothing a name says becomes markup.
      expect(html).not.toMatch(/<a\s|<img\s/i);
      // A name shown as code is shown whole: nothing in it closed the span early.
      const codes = [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => decode(m[1]));
      for (const name of Object.values(HOSTILE))
        for (const code of codes.filter((c) => c.includes(name.slice(0, 4))))
          expect(code, comment.body).toContain(name);
      // The route's own comment shows every hop's name, as code.
      if (!comment.body.startsWith('<!-- pathgate:summary'))
        for (const name of Object.values(HOSTILE)) expect(codes.some((c) => c === name)).toBe(true);
      // No mention outside code (GitHub links @user and @org/team in text).
      expect(decode(outsideCode(html))).not.toMatch(/(^|[^\w])@acme\/security-team/);
      // Mermaid labels cannot close their quotes or the fence.
      for (const block of comment.body.matchAll(/```mermaid\n([\s\S]*?)\n```/g))
        expect(block[1]).not.toMatch(/`|<!--/);
    }
  });

  it('never updates, resolves or trusts a marker comment another user wrote', async () => {
    const s = await start();
    await gateHostileRoute(s);
    const own = github.comments.filter((c) => c.issue === 2);
    const marker = own
      .map((c) => /^<!-- pathgate:path=([a-z]+-[0-9a-f]{16}) -->/.exec(c.body)?.[1])
      .find(Boolean)!;
    expect(marker).toBeDefined();
    // Someone else posts comments carrying the app's markers: one for the live route, one for a made-up route
    // (the app would "resolve" it), one forging the summary.
    const forged = [
      { id: 7001, body: `<!-- pathgate:path=${marker} -->\nLGTM, this route is fine`, issue: 2 },
      { id: 7002, body: '<!-- pathgate:path=ap-00000000000000ff -->\nplanted', issue: 2 },
      { id: 7003, body: '<!-- pathgate:summary -->\nall clear, merge away', issue: 2 },
    ].map((c) => ({
      ...c,
      user: { login: 'mallory', id: 666, type: 'User' as const },
      performed_via_github_app: null,
    }));
    github.comments.unshift(...forged);
    const writesBefore = github.writes.length;
    // A second, different report for the commit: the app rewrites its conversation.
    const web = node('Service', HOSTILE.middle);
    const db = node('Database', HOSTILE.target);
    const r = await s.apiApp.inject({
      method: 'POST',
      url: `/gate/impact?source=events&slug=Codertocat/Hello-World&pr=2&sha=${SHA}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(envelope([], [edge('HAS_PERMISSION', web, db, 0.95)])),
    });
    expect(r.statusCode).toBe(200);
    await s.github!.idle();
    const touched = github.writes.slice(writesBefore).filter((w) => /\/comments\/700[123]$/.test(w.url));
    expect(touched).toEqual([]);
    for (const f of forged) expect(github.comments.find((c) => c.id === f.id)?.body).toBe(f.body);
    // The app's own comments are still there, one per subject, updated in place.
    const ownAfter = github.comments.filter((c) => c.user?.login === 'pathgate[bot]');
    expect(ownAfter.length).toBe(own.length);
  });
});

describe('the escaping module', () => {
  it('fences a code span longer than any backtick run, and pads a value that starts with one', () => {
    expect(mdCode('a``b')).toBe('```a``b```');
    expect(mdCode('`x')).toBe('`` `x ``');
    expect(markdown.renderInline(mdCode('a ``` b`'))).toBe('<code>a ``` b`</code>');
    expect(mdCode('line\n# heading')).toBe('`line # heading`');
  });

  it('renders text literally, without mentions', () => {
    const html = markdown.renderInline(mdText('**x** <b>y</b> [z](javascript:1) @org/team www.evil.example'));
    expect(decode(html.replace(/\u200d/g, ''))).toBe(
      '**x** <b>y</b> [z](javascript:1) @org/team www.evil.example',
    );
    expect(html).not.toMatch(/<a |<b>|<strong>/);
    expect(html).toContain('@\u200dorg');
  });

  it('writes Mermaid labels as entities', () => {
    expect(mermaidLabel('a"b`c\n```')).toBe('a#34;b#96;c #96;#96;#96;');
  });

  it('cuts text at a word boundary, never inside a SHA', () => {
    const sha = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
    const cut = truncateWords(`waiting for a report of commit ${sha} from the pipeline`, 50);
    expect(cut).toBe('waiting for a report of commit…');
    expect(cut.length).toBeLessThanOrEqual(50);
  });
});
