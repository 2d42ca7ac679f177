// CORS for the dashboard on another origin: an allowed origin (CORS_ALLOWED_ORIGINS) is echoed back,
// never `*`; credentials travel in the Authorization header, so no cookies are involved.
import type { FastifyInstance } from 'fastify';

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (!origins.length) return;
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, '')));
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      reply.header('access-control-allow-headers', 'authorization, content-type, x-tenant, x-request-id');
      reply.header('access-control-max-age', '600');
      return reply.code(204).send();
    }
  });
}
