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
    // A large JSON report for a source a worker prepares is read as bytes and parsed there (INGEST_THREADS).
    defer: (request, bytes) =>
      deps.engine.defersBody((request.params as { source?: string }).source ?? '', bytes),
  });
  const receiving = new WeakSet<object>();
  const reading = new WeakSet<object>();
  const bodyRead = (request: FastifyRequest) => {
    if (reading.delete(request)) deps.engine.readingBody(false);
  };
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
        // A large report on its way (its declared length): a worker boots if none runs, and graph writes
        // wait while its body is read.
        if (deps.engine.defersBody(request.params.source, Number(request.headers['content-length']), true)) {
          reading.add(request);
          deps.engine.readingBody(true);
        }
        // From here until the answer is sent, the analyzer holds scheduled passes (writes are coming).
        receiving.add(request);
        deps.engine.receiving(true);
      },
      preValidation: async (request) => bodyRead(request),
      onResponse: async (request) => {
        bodyRead(request);
        if (receiving.delete(request)) deps.engine.receiving(false);
      },
      onRequestAbort: async (request) => {
        bodyRead(request);
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
