// Registering the GitHub App from `app.yml` through GitHub's manifest flow, as Probot's setup does: while no
// App is configured (no APP_ID, no FORGE_TOKEN), `GET /probot` shows a page whose button posts the
// manifest to GitHub (`<github>/settings/apps/new`); GitHub creates the App and sends the browser back to
// `GET /probot/setup?code=…&state=…`; the code is converted (`POST /app-manifests/{code}/conversions`,
// with Probot's Octokit) into the App's id, private key and webhook secret, written to `.env` (mode 0600),
// and the browser goes on to install the App. Restart pathgate to use them (`npm start` reads `.env`).
// Served only to loopback clients (the operator's own browser, as with `probot run` on localhost), with a
// one-time `state` so no other page can complete a registration.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ProbotOctokit } from 'probot';
import { parse as parseYaml } from 'yaml';
import type { GithubServer } from '../../src/config/settings.js';
import { problem } from '../../src/http/problems.js';
import { sendProblem } from '../plugins/http-base.js';

export interface SetupOptions {
  server: GithubServer;
  /** the App manifest (`app.yml` of the package) */
  manifestPath: string;
  /** where the credentials are written (`.env` in the working directory, as Probot does) */
  envPath: string;
  /** WEBHOOK_PROXY_URL: GitHub delivers there during local development */
  webhookProxyUrl?: string;
  log: Logger;
}

/** states handed out and not yet used */
const MAX_STATES = 32;

const isLoopback = (address: string | undefined) =>
  !!address && (/^127\./.test(address) || address === '::1' || address === '::ffff:127.0.0.1');

const html = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The App manifest GitHub is given: app.yml, with where this pathgate takes webhooks and the redirect. */
export function appManifest(
  options: Pick<SetupOptions, 'manifestPath' | 'webhookProxyUrl'>,
  baseUrl: string,
) {
  const manifest = parseYaml(readFileSync(options.manifestPath, 'utf8')) as Record<string, unknown>;
  return {
    ...manifest,
    hook_attributes: {
      ...(manifest.hook_attributes as object),
      url: options.webhookProxyUrl ?? `${baseUrl}/api/github/webhooks`,
    },
    redirect_url: `${baseUrl}/probot/setup`,
    public: manifest.public ?? false,
  };
}

/** `.env` with `values` set, the other lines kept (Probot's updateEnv, with the file kept private). */
export function updateEnvFile(file: string, values: Record<string, string>): void {
  const current = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  const merged = { ...current, ...values };
  const line = (key: string, value: string) =>
    /[\s#"']/.test(value) ? `${key}="${value.replace(/\n/g, '\\n')}"` : `${key}=${value}`;
  writeFileSync(
    file,
    `${Object.entries(merged)
      .map(([k, v]) => line(k, v ?? ''))
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  chmodSync(file, 0o600);
}

export function registerAppSetup(api: FastifyInstance, options: SetupOptions): void {
  const log = options.log.child({ component: 'github-setup' });
  const states = new Set<string>();
  const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const local = (request: FastifyRequest) => isLoopback(request.socket.remoteAddress);

  api.get('/probot', { config: { access: 'public' } }, async (request, reply) => {
    if (!local(request))
      return sendProblem(
        reply,
        problem('forbidden', 'the App setup page is served to loopback clients only'),
      );
    const state = randomBytes(16).toString('hex');
    states.add(state);
    if (states.size > MAX_STATES) states.delete(states.values().next().value!);
    const manifest = JSON.stringify(appManifest(options, baseOf(request)));
    const action = `${options.server.webUrl}/settings/apps/new?state=${state}`;
    return reply
      .type('text/html; charset=utf-8')
      .send(
        [
          '<!doctype html><html><head><meta charset="utf-8"><title>pathgate: register the GitHub App</title></head><body>',
          '<h1>Register pathgate as a GitHub App</h1>',
          `<p>GitHub creates the App from <code>app.yml</code> on <code>${html(options.server.webUrl)}</code>; pathgate then writes its credentials to <code>${html(options.envPath)}</code>.</p>`,
          `<form action="${html(action)}" method="post">`,
          `<input type="hidden" name="manifest" value="${html(manifest)}">`,
          '<button type="submit">Register GitHub App</button></form></body></html>',
        ].join('\n'),
      );
  });

  api.get<{ Querystring: { code?: string; state?: string } }>(
    '/probot/setup',
    { config: { access: 'public' } },
    async (request, reply) => {
      if (!local(request))
        return sendProblem(
          reply,
          problem('forbidden', 'the App setup page is served to loopback clients only'),
        );
      const { code, state } = request.query;
      if (!state || !states.delete(state))
        return sendProblem(
          reply,
          problem(
            'invalid-query',
            `state ${JSON.stringify(state ?? '')} was not handed out by GET /probot: start there`,
          ),
        );
      if (!code || !/^[A-Za-z0-9_-]{1,200}$/.test(code))
        return sendProblem(
          reply,
          problem('invalid-query', `code ${JSON.stringify(code ?? '')} is not a manifest code`),
        );
      const octokit = new ProbotOctokit({
        baseUrl: options.server.apiUrl,
        log: { debug() {}, info() {}, warn() {}, error() {} } as never,
      });
      let created: {
        id: number;
        slug?: string;
        html_url: string;
        pem: string;
        webhook_secret: string;
        client_id: string;
        client_secret: string;
      };
      try {
        ({ data: created } = (await octokit.request('POST /app-manifests/{code}/conversions', {
          code,
        })) as never);
      } catch (error) {
        const status = (error as { status?: number }).status;
        log.warn({ status }, 'the manifest code could not be converted');
        return sendProblem(
          reply,
          problem(
            'unavailable',
            `GitHub did not convert the manifest code (${status ?? (error as Error).message}): register again from GET /probot`,
          ),
        );
      }
      updateEnvFile(options.envPath, {
        APP_ID: String(created.id),
        PRIVATE_KEY: created.pem,
        WEBHOOK_SECRET: created.webhook_secret,
        GITHUB_CLIENT_ID: created.client_id,
        GITHUB_CLIENT_SECRET: created.client_secret,
      });
      log.info(
        { appId: created.id, env: options.envPath },
        'GitHub App registered: its credentials are in .env; restart pathgate to use them',
      );
      return reply.redirect(`${created.html_url}/installations/new`, 302);
    },
  );
}

/** The setup's files: the package's app.yml, and `.env` where pathgate is started. */
export function setupPaths(root: string): { manifestPath: string; envPath: string } {
  return { manifestPath: path.join(root, 'app.yml'), envPath: path.resolve('.env') };
}
