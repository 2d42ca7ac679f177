// POST /intel on the ingest listener: a threat-intel catalog loaded by hand (`pathgate intel <file>`),
// the CISA KEV catalog as JSON (application/json) or CSV, or FIRST EPSS scores as CSV (text/csv). Signed
// like ingest when signing is on. Intel is service-wide: applied to every tenant's CVEs at once, kept
// under DATA_DIR/intel/ for the next start. 409 when THREATINTEL is off; 400 naming what was expected.
// Because it reprices every tenant, only the operator's own secret (the default tenant's) may load it when
// signing is on: one tenant's secret must not move another tenant's scores (403).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Engine } from '../../src/engine/engine.js';
import { DEFAULT_TENANT } from '../../src/engine/tenant.js';
import { ProblemError } from '../../src/http/problems.js';
import type { KeepBody } from '../plugins/http-base.js';

export function registerIntelRoute(
  app: FastifyInstance,
  deps: {
    engine: Engine;
    auth: {
      beforeBody(request: FastifyRequest): void;
      verify(request: FastifyRequest): { tenant: string } | undefined;
      keepBody?: KeepBody;
    };
  },
): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'buffer' }, (request, body, done) => {
      deps.auth.keepBody?.(request, body as Buffer);
      done(null, (body as Buffer).toString('utf8'));
    });
    scope.post(
      '/intel',
      { onRequest: async (request) => deps.auth.beforeBody(request) },
      async (request, reply) => {
        const signed = deps.auth.verify(request);
        if (signed && signed.tenant !== DEFAULT_TENANT)
          throw new ProblemError(
            'forbidden',
            `threat intel applies to every tenant: only the ${DEFAULT_TENANT} tenant's secret may load it, not ${JSON.stringify(signed.tenant)}'s`,
            {
              errors: [
                { pointer: '/headers/x-tenant', value: signed.tenant, detail: 'not the default tenant' },
              ],
            },
          );
        const text = typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? null);
        const name = String(request.headers['x-intel-source'] ?? 'pathgate intel').slice(0, 200);
        const loaded = await deps.engine.loadIntel(text, name);
        return reply.code(200).send(loaded);
      },
    );
  });
}
