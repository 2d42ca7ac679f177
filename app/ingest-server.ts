// The ingest listener (8081): GET /healthz, POST /ingest/<source> and POST /intel (threat intel by hand). Signed ingest speaks for the tenant
// whose secret signed it; open ingest (no secrets) for the tenant X-Tenant names, checked, and creates at
// most MAX_TENANTS tenants. Every accepted report is written to the audit log (`ingest.accepted`).
import type { FastifyRequest } from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { TrustedProxies } from '../src/auth/client-ip.js';
import type { IngestSecrets } from '../src/auth/ingest-signature.js';
import type { Lockout } from '../src/auth/rate-limit.js';
import type { Engine } from '../src/engine/engine.js';
import { DEFAULT_TENANT, TENANT_NAME } from '../src/engine/tenant.js';
import { ProblemError } from '../src/http/problems.js';
import type { Metrics } from '../src/metrics/metrics.js';
import { createYamlPool } from '../src/ingest/yaml-pool.js';
import { createHttpApp, DEFAULT_YAML_MAX_BYTES, registerReportBodies } from './plugins/http-base.js';
import type { Auditor } from './plugins/audit.js';
import { registerClientGuard } from './plugins/client-guard.js';
import { registerIngestAuth } from './plugins/ingest-auth.js';
import { answerHealth } from './routes/healthz.js';
import { registerIntelRoute } from './routes/intel.js';

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
  /** MAX_TENANTS: tenants open ingest may create */
  maxTenants?: number;
  /** YAML_MAX_BYTES: the largest YAML body taken */
  yamlMaxBytes?: number;
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
  // YAML is parsed on worker threads owned by this listener.
  const yaml = createYamlPool();
  app.addHook('onClose', () => yaml.close());
  registerReportBodies(app, {
    yaml,
    yamlMaxBytes: deps.yamlMaxBytes ?? DEFAULT_YAML_MAX_BYTES,
    keep: auth.keepBody,
  });
  const receiving = new WeakSet<object>();
  app.get('/healthz', async (_request, reply) => answerHealth(reply, deps.engine.health));
  registerIntelRoute(app, { engine: deps.engine, auth });
  app.post<{ Params: { source: string }; Querystring: Record<string, string | undefined> }>(
    '/ingest/:source',
    {
      // An unknown source answers 404 before its body is read, whatever the body holds; with signing on,
      // only once the request passed the checks that need no body, so strangers learn nothing.
      onRequest: async (request) => {
        auth.beforeBody(request);
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
      const signed = auth.verify(request);
      const tenant = signed?.tenant ?? openTenant(request);
      let receipt;
      try {
        receipt = await deps.engine.ingest({
          tenant,
          source: request.params.source,
          body: request.body,
          query: request.query,
        });
      } catch (error) {
        // A refused report creates no tenant: its seat goes back, so bad reports cannot use up the cap.
        if (!signed && !deps.engine.tenant(tenant)) released(tenant);
        throw error;
      }
      if (!signed) pending.delete(tenant);
      deps.audit?.ingest(request, {
        tenant,
        source: request.params.source,
        signature: signed?.version,
        batchId: receipt.batchId,
        nodes: receipt.nodes,
        edges: receipt.edges,
      });
      return reply.code(202).send(receipt);
    },
  );

  // Tenants open ingest has let in (the engine creates a tenant only once its first record is applied, so
  // reports in flight hold a seat here), with how many reports in flight each new one has.
  const maxTenants = deps.maxTenants ?? 100;
  const admitted = new Set<string>();
  const pending = new Map<string, number>();
  function released(tenant: string): void {
    // Once a report for it was accepted the tenant is coming, whatever later ones do.
    if (!pending.has(tenant)) return;
    const left = pending.get(tenant)! - 1;
    if (left > 0) pending.set(tenant, left);
    else {
      pending.delete(tenant);
      admitted.delete(tenant);
    }
  }
  /** The tenant an unsigned report names: a valid name, and an existing tenant or room for one more. */
  function openTenant(request: FastifyRequest): string {
    const header = request.headers['x-tenant'];
    const tenant = typeof header === 'string' && header.length ? header : DEFAULT_TENANT;
    if (!TENANT_NAME.test(tenant))
      throw new ProblemError(
        'invalid-query',
        `X-Tenant ${JSON.stringify(tenant.slice(0, 100))} is not a tenant name`,
        {
          errors: [
            {
              pointer: '/headers/x-tenant',
              value: tenant.slice(0, 100),
              detail: 'lowercase letters, digits, - and _; at most 63',
            },
          ],
        },
      );
    if (deps.engine.tenant(tenant)) return tenant;
    if (admitted.has(tenant)) {
      pending.set(tenant, (pending.get(tenant) ?? 0) + 1);
      return tenant;
    }
    for (const state of deps.engine.tenants()) admitted.add(state.name);
    if (!admitted.has(tenant) && admitted.size >= maxTenants)
      throw new ProblemError(
        'tenant-limit',
        `tenant ${JSON.stringify(tenant)} would be tenant ${admitted.size + 1}, and MAX_TENANTS allows ${maxTenants}; send reports to an existing tenant or raise MAX_TENANTS`,
        { limit: maxTenants },
      );
    admitted.add(tenant);
    pending.set(tenant, (pending.get(tenant) ?? 0) + 1);
    return tenant;
  }
  return app;
}
