// The ingest listener (8081): GET /healthz and POST /ingest/<source>.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { TrustedProxies } from '../src/auth/client-ip.js';
import type { IngestSecrets } from '../src/auth/ingest-signature.js';
import type { Lockout } from '../src/auth/rate-limit.js';
import type { Engine } from '../src/engine/engine.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import type { Metrics } from '../src/metrics/metrics.js';
import { createHttpApp } from './plugins/http-base.js';
import type { Auditor } from './plugins/audit.js';
import { registerClientGuard } from './plugins/client-guard.js';
import { registerIngestAuth } from './plugins/ingest-auth.js';

export function buildIngestServer(deps: {
  engine: Engine;
  logger: Logger;
  metrics: Metrics;
  secrets: IngestSecrets;
  ratePerSecond: number;
  trusted: TrustedProxies;
  lockout: Lockout;
  now?: () => number;
  https?: { cert: string; key: string };
  audit?: Auditor;
}): FastifyInstance {
  const now = deps.now ?? Date.now;
  const app = createHttpApp({ logger: deps.logger, name: 'ingest', https: deps.https });
  registerClientGuard(app, {
    surface: 'ingest',
    ratePerSecond: deps.ratePerSecond,
    trusted: deps.trusted,
    lockout: deps.lockout,
    metrics: deps.metrics,
    now,
  });
  const auth = registerIngestAuth(app, {
    secrets: deps.secrets,
    metrics: deps.metrics,
    now,
    onDeny: (request, reason) => deps.audit?.deny(request, 'ingest', reason),
    onFailure: (request) => {
      if (!deps.lockout.fail(request.clientIp, now())) return;
      deps.audit?.lockout(request, 'ingest');
      deps.logger.warn(
        { event: 'auth.lockout.alert', client: request.clientIp },
        'client locked out after repeated failed ingest signatures',
      );
    },
  });
  const receiving = new WeakSet<object>();
  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok'));
  app.post<{ Params: { source: string }; Querystring: Record<string, string | undefined> }>(
    '/ingest/:source',
    {
      // An unknown source answers 404 before its body is read, whatever the body holds.
      onRequest: async (request) => {
        deps.engine.assertSource(request.params.source);
        auth.beforeBody(request);
        // From here until the answer is sent, the analyzer holds scheduled passes (writes are coming).
        receiving.add(request);
        deps.engine.receiving(true);
      },
      onResponse: async (request) => {
        if (receiving.delete(request)) deps.engine.receiving(false);
      },
      onRequestAbort: async (request) => {
        if (receiving.delete(request)) deps.engine.receiving(false);
      },
    },
    async (request, reply) => {
      // Signed ingest speaks for the tenant whose secret signed it; open ingest for the one it names.
      const header = request.headers['x-tenant'];
      const tenant =
        auth.verify(request) ?? (typeof header === 'string' && header.length ? header : DEFAULT_TENANT);
      const receipt = await deps.engine.ingest({
        tenant,
        source: request.params.source,
        body: request.body,
        query: request.query,
      });
      return reply.code(202).send(receipt);
    },
  );
  return app;
}
