// Issue 32 item 4: the App set up as Probot users know it. Registration from app.yml through GitHub's
// manifest flow (against the stand-in GitHub's `POST /app-manifests/{code}/conversions`), credentials
// written to `.env`; WEBHOOK_PROXY_URL forwarding webhooks from a loopback stand-in of a smee.io channel
// (server-sent events, as smee.io streams them); GHE_HOST; one start-up line naming the mode.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { sign } from '@octokit/webhooks-methods';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAppSetup } from '../../app/github/setup.js';
import { startService } from '../../app/service.js';
import { loadSettings, SettingsError } from '../../src/config/settings.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { makeService } from '../helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const payloads = path.resolve(root, '../shared/fixtures/real/github');
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

let github: GithubStandIn;
beforeAll(async () => {
  github = new GithubStandIn();
  await github.start();
});
afterAll(async () => {
  await github.app.close();
});

function logSink() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _e, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { lines, logger };
}

describe('registering the App from app.yml (manifest flow)', () => {
  async function setupServer(envPath: string): Promise<FastifyInstance> {
    const app = Fastify();
    registerAppSetup(app, {
      server: { apiUrl: github.url, webUrl: 'https://github.example.test' },
      manifestPath: path.join(root, 'app.yml'),
      envPath,
      log: pino({ level: 'silent' }),
    });
    await app.ready();
    return app;
  }

  it('posts the manifest to GitHub, converts the code GitHub returns and writes the credentials to .env', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pathgate-setup-'));
    const envPath = path.join(dir, '.env');
    writeFileSync(envPath, 'LOG_LEVEL=debug\n');
    const app = await setupServer(envPath);
    const page = await app.inject({ method: 'GET', url: '/probot', headers: { host: 'localhost:8081' } });
    expect(page.statusCode).toBe(200);
    const action = /<form action="([^"]+)" method="post">/.exec(page.body)![1].replace(/&amp;/g, '&');
    expect(action).toMatch(/^https:\/\/github\.example\.test\/settings\/apps\/new\?state=[0-9a-f]{32}$/);
    const manifest = JSON.parse(
      /name="manifest" value="([^"]+)"/
        .exec(page.body)![1]
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
    const yml = parseYaml(readFileSync(path.join(root, 'app.yml'), 'utf8'));
    expect(manifest).toMatchObject({
      name: yml.name,
      default_permissions: { ...yml.default_permissions, checks: 'write' },
      default_events: yml.default_events,
      hook_attributes: { url: 'http://localhost:8081/api/github/webhooks' },
      redirect_url: 'http://localhost:8081/probot/setup',
    });
    // GitHub created the App and sends the browser back with a one-time code.
    github.manifestCodes.set('a1b2c3', {
      id: 777,
      slug: 'pathgate-test',
      html_url: 'https://github.example.test/apps/pathgate-test',
      pem: PEM,
      webhook_secret: 'whsec_0123456789',
      client_id: 'Iv1.0123456789',
      client_secret: 'cs_0123456789',
    });
    const state = new URL(action).searchParams.get('state')!;
    const done = await app.inject({ method: 'GET', url: `/probot/setup?code=a1b2c3&state=${state}` });
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe('https://github.example.test/apps/pathgate-test/installations/new');
    const env = parseEnv(readFileSync(envPath, 'utf8'));
    expect(env).toMatchObject({
      LOG_LEVEL: 'debug',
      APP_ID: '777',
      WEBHOOK_SECRET: 'whsec_0123456789',
      GITHUB_CLIENT_ID: 'Iv1.0123456789',
    });
    expect(env.PRIVATE_KEY).toBe(PEM);
    expect(statSync(envPath).mode & 0o777).toBe(0o600);
    // What was written starts pathgate as the App.
    const settings = loadSettings({ ...env, FORGE_API_URL: github.url });
    expect(settings.github).toMatchObject({ appId: '777', webhookSecret: 'whsec_0123456789' });
    // The state was used once; a replayed or made-up one is refused and changes nothing.
    const replay = await app.inject({ method: 'GET', url: `/probot/setup?code=a1b2c3&state=${state}` });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().detail).toMatch(/state .* was not handed out by GET \/probot/);
    await app.close();
  });

  it('serves the setup to loopback clients only', async () => {
    const envPath = path.join(mkdtempSync(path.join(tmpdir(), 'pathgate-setup-')), '.env');
    const app = await setupServer(envPath);
    const remote = await app.inject({ method: 'GET', url: '/probot', remoteAddress: '10.1.2.3' });
    expect(remote.statusCode).toBe(403);
    const setup = await app.inject({
      method: 'GET',
      url: '/probot/setup?code=x&state=y',
      remoteAddress: '10.1.2.3',
    });
    expect(setup.statusCode).toBe(403);
    await app.close();
  });

  it('is on while no App is configured, off once it is', async () => {
    const bare = await makeService({});
    expect((await bare.apiApp.inject({ method: 'GET', url: '/probot' })).statusCode).toBe(200);
    await bare.dispose();
    const configured = await makeService({
      WEBHOOK_SECRET: 's',
      APP_ID: '4242',
      PRIVATE_KEY: PEM,
      FORGE_API_URL: github.url,
    });
    expect((await configured.apiApp.inject({ method: 'GET', url: '/probot' })).statusCode).toBe(404);
    await configured.dispose();
  });
});

describe('GHE_HOST', () => {
  it('names the Enterprise Server API as Probot does', () => {
    const settings = loadSettings({ WEBHOOK_SECRET: 's', GHE_HOST: 'ghe.example.com' });
    expect(settings.github?.apiUrl).toBe('https://ghe.example.com/api/v3');
    expect(settings.githubServer).toEqual({
      apiUrl: 'https://ghe.example.com/api/v3',
      webUrl: 'https://ghe.example.com',
    });
    // The same server named both ways is fine.
    expect(
      loadSettings({ GHE_HOST: 'ghe.example.com', FORGE_API_URL: 'https://ghe.example.com/api/v3/' })
        .githubServer?.apiUrl,
    ).toBe('https://ghe.example.com/api/v3');
    expect(loadSettings({}).githubServer).toEqual({
      apiUrl: 'https://api.github.com',
      webUrl: 'https://github.com',
    });
  });

  it('refuses GHE_HOST and FORGE_API_URL naming different servers, and a URL for a host', () => {
    expect(() =>
      loadSettings({ GHE_HOST: 'ghe.example.com', FORGE_API_URL: 'https://api.github.com' }),
    ).toThrow(
      /GHE_HOST="ghe\.example\.com" and FORGE_API_URL="https:\/\/api\.github\.com\/" name different GitHub servers/,
    );
    expect(() => loadSettings({ GHE_HOST: 'https://ghe.example.com/' })).toThrow(SettingsError);
    expect(() => loadSettings({ GHE_HOST: 'https://ghe.example.com/' })).toThrow(
      /GHE_HOST=.* is not a host name/,
    );
  });

  it('needs WEBHOOK_SECRET for WEBHOOK_PROXY_URL', () => {
    expect(() => loadSettings({ WEBHOOK_PROXY_URL: 'https://smee.io/abc' })).toThrow(
      /WEBHOOK_PROXY_URL is set without WEBHOOK_SECRET/,
    );
  });
});

describe('the start-up line', () => {
  it('names the mode once: App, token or dry run', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ WEBHOOK_SECRET: 's', APP_ID: '4242', PRIVATE_KEY: PEM, FORGE_API_URL: github.url }, 'app'],
      [{ FORGE_TOKEN: 'github_pat_standin', FORGE_API_URL: github.url }, 'token'],
      [{ WEBHOOK_SECRET: 's' }, 'dry-run'],
    ];
    for (const [env, mode] of cases) {
      const { lines, logger } = logSink();
      const s = await makeService(env, { logger });
      const named = lines.filter((l) => 'mode' in l);
      expect(named).toHaveLength(1);
      expect(named[0]).toMatchObject({ mode, component: 'github-app' });
      expect(String(named[0].msg)).toMatch(/^GitHub (App mode|token mode|dry run)/);
      expect(JSON.stringify(lines)).not.toContain('github_pat_standin');
      await s.dispose();
    }
  });
});

describe('WEBHOOK_PROXY_URL', () => {
  it('forwards the webhooks of a smee channel (a loopback stand-in) to the App', async () => {
    const secret = 'proxy-webhook-secret';
    const payload = JSON.parse(readFileSync(path.join(payloads, 'pull_request.opened.payload.json'), 'utf8'));
    const body = JSON.stringify(payload);
    // smee.io's wire protocol: server-sent events, each a JSON object of the delivery's headers and `body`.
    const event = JSON.stringify({
      'x-github-event': 'pull_request',
      'x-github-delivery': 'proxied-1',
      'x-hub-signature-256': await sign(secret, body),
      body: payload,
      query: {},
      timestamp: Date.now(),
    });
    const channel = Fastify();
    channel.get('/channel', (_q, reply) => {
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      reply.raw.write('event: ready\ndata: {}\n\n');
      setTimeout(() => reply.raw.write(`data: ${event}\n\n`), 50);
    });
    const channelUrl = await channel.listen({ host: '127.0.0.1', port: 0 });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pathgate-proxy-'));
    const { lines, logger } = logSink();
    const settings = loadSettings({
      DATA_DIR: dataDir,
      API_ADDR: '127.0.0.1:0',
      INGEST_ADDR: '127.0.0.1:0',
      ANALYZER_THREADS: '1',
      WEBHOOK_SECRET: secret,
      FORGE_TOKEN: 'github_pat_standin_proxy',
      FORGE_API_URL: github.url,
      REPO_ALLOWLIST: 'Codertocat/*',
      WEBHOOK_PROXY_URL: `${channelUrl}/channel`,
    });
    const service = await startService({ settings, demo: false, logger });
    try {
      for (let i = 0; i < 500 && !github.statuses.some((s) => s.sha === SHA); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(github.statuses).toContainEqual(
        expect.objectContaining({ sha: SHA, state: 'pending', description: 'waiting for a scan' }),
      );
      expect(lines.some((l) => l.msg === 'forwarding webhooks from WEBHOOK_PROXY_URL')).toBe(true);
    } finally {
      await service.close();
      await channel.close();
    }
  });
});
