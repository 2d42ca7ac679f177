// The API listener (8080): GET /healthz, POST /graphql, GET /metrics.
import type { FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import type { Logger } from 'pino';
import type { Engine } from '../src/engine/engine.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import type { Metrics } from '../src/metrics/metrics.js';
import { createHttpApp } from './plugins/http-base.js';
import { createResolvers, type GraphqlContext } from './graphql/resolvers.js';
import { SCHEMA_SDL } from './graphql/schema.js';

export function buildApiServer(deps: {
  engine: Engine;
  metrics: Metrics;
  logger: Logger;
  now?: () => number;
}): FastifyInstance {
  const now = deps.now ?? Date.now;
  const app = createHttpApp({ logger: deps.logger, name: 'api' });
  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok'));
  app.get('/metrics', async (_request, reply) => {
    deps.engine.refreshGauges();
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  void app.register(mercurius, {
    schema: SCHEMA_SDL,
    resolvers: createResolvers() as never,
    graphiql: true,
    context: (request): GraphqlContext => {
      const header = request.headers['x-tenant'];
      return {
        engine: deps.engine,
        tenant: typeof header === 'string' && header ? header : DEFAULT_TENANT,
        now: now(),
      };
    },
  });
  return app;
}
