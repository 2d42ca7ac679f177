// The ingest listener (8081): GET /healthz and POST /ingest/<source>.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Engine } from '../src/engine/engine.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import { createHttpApp } from './plugins/http-base.js';

export function buildIngestServer(deps: { engine: Engine; logger: Logger }): FastifyInstance {
  const app = createHttpApp({ logger: deps.logger, name: 'ingest' });
  const receiving = new WeakSet<object>();
  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok'));
  app.post<{ Params: { source: string }; Querystring: Record<string, string | undefined> }>(
    '/ingest/:source',
    {
      // An unknown source answers 404 before its body is read, whatever the body holds.
      onRequest: async (request) => {
        deps.engine.assertSource(request.params.source);
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
      const header = request.headers['x-tenant'];
      const tenant = typeof header === 'string' && header.length ? header : DEFAULT_TENANT;
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
