// The dashboard listener (DASHBOARD_ADDR, 3000): the single-page app built into build/dashboard at install
// (`npm run build:dashboard`, run by `prepare`; never on start), every other GET path answered with its
// index.html so `PUBLIC_URL/paths/<id>` links resolve, and `/api/*` forwarded to the API listener. The
// forward is a same-origin proxy over HTTP to the public API: the caller's Authorization and X-Tenant go
// through unchanged, so the API's policy layer (roles, tenants, applications, rate limits, audit) decides
// exactly as it would for a direct call; the dashboard holds no credential of its own. docs/dashboard.md.
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { BODY_LIMIT, createHttpApp, sendProblem } from './plugins/http-base.js';
import { problem } from '../src/http/problems.js';
import { packageRoot } from './package-root.js';

export const DASHBOARD_ASSETS = path.join(packageRoot(), 'build', 'dashboard');

/** Request headers the API reads from the browser; everything else (cookies included) stays here. */
const FORWARDED_REQUEST = ['authorization', 'content-type', 'accept', 'x-tenant', 'x-request-id'];
/** Response headers that describe the forward itself, not the answer (fetch has already decoded the body). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'content-length',
  'date',
]);

export interface DashboardDeps {
  logger: Logger;
  /** The API listener's base URL, known once it listens (`http://127.0.0.1:8080`). */
  apiUrl: () => string;
  /** OIDC_TOKEN_URL: the browser exchanges the PKCE code there, so the page's CSP must let it connect. */
  oidcTokenUrl?: string;
  https?: { cert: string; key: string };
  /** Where the built single-page app is (default build/dashboard). */
  assets?: string;
}

export function buildDashboardServer(deps: DashboardDeps): FastifyInstance {
  const app = createHttpApp({ logger: deps.logger, name: 'dashboard', https: deps.https });
  const assets = deps.assets ?? DASHBOARD_ASSETS;
  const built = existsSync(path.join(assets, 'index.html'));
  if (!built)
    deps.logger.warn(
      { assets },
      'the dashboard is not built (npm ci builds it; or run npm run build:dashboard): its pages answer 503',
    );
  const connect = ["'self'", deps.oidcTokenUrl && new URL(deps.oidcTokenUrl).origin].filter(Boolean);
  const csp = [
    "default-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "img-src 'self' data: blob:",
    // React and sigma set style attributes; no inline script is ever needed.
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  app.addHook('onSend', async (request, reply) => {
    if (!request.url.startsWith('/api/')) {
      reply.header('content-security-policy', csp);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    }
  });

  // /api/*: forwarded as it came (raw body, no parsing here).
  void app.register(async (api) => {
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    api.all('/api/*', (request, reply) => forward(deps, request, reply));
  });

  if (built) {
    void app.register(fastifyStatic, { root: assets, prefix: '/', index: false, wildcard: false });
    const page = (_request: FastifyRequest, reply: FastifyReply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html');
    app.get('/', page);
    // Every other GET is a page of the app (`/paths/<id>`, `/graph`, ...): the app's router draws it.
    app.get('/*', (request, reply) =>
      /\.[a-z0-9]+$/i.test(request.url.split('?')[0])
        ? sendProblem(reply, problem('not-found', `no file ${request.url.split('?')[0]}`))
        : page(request, reply),
    );
  } else {
    app.get('/*', (_request, reply) =>
      reply
        .code(503)
        .type('text/plain')
        .send('The dashboard is not built: run `npm ci` (or `npm run build:dashboard`) in the package.\n'),
    );
  }
  return app;
}

async function forward(deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply) {
  const target = deps.apiUrl() + request.url.slice('/api'.length);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The API believes this only from TRUSTED_PROXY_CIDRS (docs/dashboard.md): then its per-client limits and
  // lockout see the browser, not this listener.
  const prior = request.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = [typeof prior === 'string' ? prior : '', request.ip]
    .filter(Boolean)
    .join(', ');
  const body = request.body instanceof Buffer && request.body.length ? request.body : undefined;
  let answer: Response;
  try {
    answer = await fetch(target, { method: request.method, headers, body, redirect: 'manual' });
  } catch (error) {
    request.log.warn({ err: error }, 'the API listener did not answer the dashboard');
    return sendProblem(reply, problem('unavailable', 'the API listener did not answer the dashboard'));
  }
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) reply.header(name, value);
  });
  return reply.send(Buffer.from(await answer.arrayBuffer()));
}
