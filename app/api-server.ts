// The API listener (8080): GET /healthz, GET /auth/config, GET /auth/me, POST /graphql, GET /metrics, the
// REST routes of app/routes/ (tickets, suppressions, validations, exports, the audit log, AI answers) and
// MCP at /mcp (app/mcp/).
// Every route passes through the client guard (rate limit, lockout) and the policy layer (app/plugins/
// api-auth.ts); a route states what it needs in `config.access`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import type { Logger } from 'pino';
import type { TrustedProxies } from '../src/auth/client-ip.js';
import type { OidcVerifier } from '../src/auth/oidc.js';
import { atLeast, canWrite } from '../src/auth/principal.js';
import type { Lockout } from '../src/auth/rate-limit.js';
import { apiAuthEnabled, DEFAULT_GRAPHQL_LIMITS, type AuthSettings } from '../src/config/settings.js';
import type { Engine } from '../src/engine/engine.js';
import { metricsWithoutTenants, type Metrics } from '../src/metrics/metrics.js';
import { registerApiAuth } from './plugins/api-auth.js';
import { registerTicketRoutes } from './routes/tickets.js';
import { registerSuppressionRoutes } from './routes/suppressions.js';
import { registerValidationRoutes } from './routes/validations.js';
import { registerExportRoutes } from './routes/exports.js';
import { registerAuditRoute } from './routes/audit.js';
import type { AuditReader } from '../src/audit/audit-reader.js';
import { registerAiRoutes } from './routes/ai.js';
import { defaultAiSettings, type AiSettings } from '../src/config/ai-settings.js';
import type { Retriever } from '../src/ai/grounding.js';
import { defaultSecuritySettings, type OutboundWebhook } from '../src/config/security-settings.js';
import type { SpoolLimitSettings } from '../src/export/spool-limits.js';
import type { Governance } from '../src/governance/governance.js';
import type { Auditor } from './plugins/audit.js';
import { registerClientGuard } from './plugins/client-guard.js';
import { registerCors } from './plugins/cors.js';
import { createHttpApp } from './plugins/http-base.js';
import { createResolvers, type GraphqlContext } from './graphql/resolvers.js';
import { AnalysisService } from '../src/analysis/analysis-service.js';
import { SCHEMA_SDL } from './graphql/schema.js';
import { AnswerBudget, checkRequestShape, limitOptions, registerLimitHooks } from './graphql/limits.js';
import { unreadableReportHandler } from './gate-body.js';
import { answerHealth } from './routes/healthz.js';
import { registerAuthConfigRoute } from './routes/auth-config.js';
import { registerGraphiql } from './graphql/graphiql.js';
import { presentFloats } from './graphql/numbers.js';
import { registerMcpRoute } from './mcp/http-route.js';

export interface ApiServerDeps {
  engine: Engine;
  metrics: Metrics;
  logger: Logger;
  auth: AuthSettings;
  lockout: Lockout;
  trusted: TrustedProxies;
  oidc?: OidcVerifier;
  now?: () => number;
  https?: { cert: string; key: string };
  audit?: Auditor;
  /** GET /audit: the audit chain read back (absent when no audit log is kept) */
  auditReader?: AuditReader;
  /** PR_ATTRIBUTION: the gate's default attribution */
  attribution?: 'report' | 'commit';
  /** where export spool files live (DATA_DIR) */
  dataDir: string;
  /** suppressions, validations, tickets, the export signing key (src/governance/governance.ts) */
  governance: Governance;
  /** TICKET_WEBHOOK_URL(S), TICKET_WEBHOOK_SECRET: where each tenant's tickets go, signed */
  ticketWebhook?: OutboundWebhook;
  /** EXPORT_MAX_PER_CALLER, EXPORT_SPOOL_MAX_BYTES, EXPORT_SEND_TIMEOUT (defaults when left out) */
  exportLimits?: SpoolLimitSettings;
  /** heavy analyses: SEED_IAM_USERS, ATTACKER_PROFILE_PRIORS, slots (app/graphql/analyses.ts) */
  analyses?: AnalysisService;
  /** ANALYSIS_DEADLINE, for the analyses this listener builds when none is given */
  analysisDeadlineMs?: number;
  /** PUBLIC_URL when the dashboard runs: the pages MCP answers link to (app/mcp/links.ts) */
  publicUrl?: string;
  /** AI answers: the providers and the per-tenant rate (unset: no provider, `/ai/ask` answers 503) */
  ai?: AiSettings;
  /** retrievers `/ai/ask` asks before the path store's (default: the search index's; docs/ai.md) */
  aiRetrievers?: readonly Retriever[];
}

export function buildApiServer(deps: ApiServerDeps): FastifyInstance {
  const now = deps.now ?? Date.now;
  const app = createHttpApp({ logger: deps.logger, name: 'api', https: deps.https });
  const authOn = apiAuthEnabled(deps.auth);
  registerClientGuard(app, {
    surface: 'api',
    ratePerSecond: deps.auth.apiRateRps,
    trusted: deps.trusted,
    lockout: deps.lockout,
    metrics: deps.metrics,
    now,
  });
  registerCors(app, deps.auth.corsOrigins);
  registerApiAuth(app, {
    auth: deps.auth,
    oidc: deps.oidc,
    lockout: deps.lockout,
    metrics: deps.metrics,
    log: deps.logger,
    now,
    onDeny: (request, reason) => deps.audit?.deny(request, 'api', reason),
    onLockout: (request) => deps.audit?.lockout(request, 'api'),
  });
  deps.audit?.register(app);
  app.get('/healthz', { config: { access: 'public' } }, async (_request, reply) =>
    answerHealth(reply, deps.engine.health),
  );
  registerAuthConfigRoute(app, deps.auth, authOn);
  app.get('/auth/me', { config: { access: 'self' } }, async (request) => {
    const p = request.principal;
    return {
      subject: p.subject,
      role: p.role,
      tenant: p.tenant ?? null,
      anonymous: p.anonymous,
      canWrite: canWrite(p),
      ...(p.apps && { apps: p.apps }),
    };
  });
  // Open and unthrottled (spec), so it names no tenant: per-tenant series are summed away here and served
  // only on the METRICS_ADDR listener.
  app.get('/metrics', { config: { access: 'public' } }, metricsHandler(deps, { tenants: false }));
  registerTicketRoutes(app, {
    engine: deps.engine,
    tickets: deps.governance.tickets,
    webhook: deps.ticketWebhook,
    now,
  });
  registerSuppressionRoutes(app, { engine: deps.engine, suppressions: deps.governance.suppressions, now });
  registerValidationRoutes(app, { engine: deps.engine, verdicts: deps.governance.verdicts, now });
  registerAuditRoute(app, { reader: deps.auditReader });
  registerExportRoutes(app, {
    engine: deps.engine,
    signer: deps.governance.signer,
    dataDir: deps.dataDir,
    audit: deps.audit,
    now,
    limits: deps.exportLimits ?? defaultSecuritySettings().exports,
  });
  // AI answers grounded in the live paths (docs/ai.md); the policy layer keeps anonymous callers out.
  registerAiRoutes(app, {
    engine: deps.engine,
    settings: deps.ai ?? defaultAiSettings(),
    metrics: deps.metrics,
    logger: deps.logger,
    now,
    audit: deps.audit,
    retrievers: deps.aiRetrievers,
  });
  // The merge gate: the report in the body, the ingest query parameters plus `source` and `attribution`.
  // Evaluating is a read (viewer); recording the commit's verdict, which drives the pull request's comment
  // and status, needs an operator: a viewer's answer says `recorded: false`.
  app.post<{ Querystring: Record<string, string | undefined> }>(
    '/gate/impact',
    // A body that is not JSON is a report the gate cannot read: 200 unknown, not 400 (app/gate-body.ts).
    { config: { access: 'gate' }, errorHandler: unreadableReportHandler },
    async (request) => {
      const persist = atLeast(request.principal.role, 'operator');
      const result = await deps.engine.gateImpact(
        {
          tenant: request.tenant,
          body: request.body,
          query: request.query,
          attribution: deps.attribution ?? 'report',
        },
        { persist },
      );
      return { ...result, recorded: persist && result.commit !== undefined };
    },
  );
  // Request limits (app/graphql/limits.ts). Introspection follows the playground unless
  // GRAPHQL_INTROSPECTION says otherwise.
  const limits = deps.auth.graphql ?? DEFAULT_GRAPHQL_LIMITS;
  let analyses: AnalysisService | undefined;
  // The heavy analyses' idle worker threads stop with the listener.
  app.addHook('onClose', async () => {
    await analyses?.close();
  });
  void app.register(mercurius, {
    schema: SCHEMA_SDL,
    resolvers: createResolvers() as never,
    // GraphiQL is served from bundled assets (app/graphiql/graphiql.ts), not mercurius' CDN page.
    graphiql: false,
    ...limitOptions(limits, { introspection: limits.introspection ?? !authOn }),
    // GRAPHQL_MAX_BODY_BYTES: a body is refused while it is read, before JSON parsing (app/plugins/http-base.ts).
    additionalRouteOptions: {
      bodyLimit: limits.maxBodyBytes,
      config: { bodyLimitSetting: 'GRAPHQL_MAX_BODY_BYTES' },
      // A body that is JSON but no GraphQL request is a 400 problem naming what is wrong.
      preValidation: async (request: FastifyRequest) => {
        if (request.method === 'POST' && request.headers['content-type']?.includes('json'))
          checkRequestShape(request.body);
      },
    },
    context: (request, reply): GraphqlContext => {
      analyses ??=
        deps.analyses ??
        new AnalysisService({ seedIamUsers: false, deadlineMs: deps.analysisDeadlineMs }, deps.metrics);
      // Views reach the audit log once the answer is complete (a limit may still stop it).
      const answer = new AnswerBudget(limits.maxPaths);
      const audit = deps.audit;
      // The connection closing before the answer is written: the client went away, its analyses stop.
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      return {
        signal: gone.signal,
        engine: deps.engine,
        governance: deps.governance,
        analyses,
        tenant: request.tenant,
        principal: request.principal,
        now: now(),
        onView: audit && ((ids) => answer.hold(() => audit.view(request, ids))),
        onGraphView: audit && ((ids) => answer.hold(() => audit.viewGraph(request, ids))),
        answer,
      };
    },
  });
  void app.register(async () => {
    registerLimitHooks(app, limits);
    // Probabilities in [0, 1], percentages in [0, 100], no float noise (app/graphql/numbers.ts).
    presentFloats(app.graphql.schema);
  });
  registerGraphiql(app, { authRequired: authOn });
  // MCP over Streamable HTTP (app/mcp/http-route.ts): its tools call the routes above as the caller.
  registerMcpRoute(app, { publicUrl: deps.publicUrl });
  return app;
}

/**
 * METRICS_ADDR: `/metrics` (and `/healthz`) alone on a listener of their own, for a scraper on an internal
 * address; it carries no credentials, so bind it where only the scraper can reach it.
 */
export function buildMetricsServer(deps: {
  engine: Engine;
  metrics: Metrics;
  logger: Logger;
  https?: { cert: string; key: string };
}): FastifyInstance {
  const app = createHttpApp({ logger: deps.logger, name: 'metrics', https: deps.https });
  app.get('/healthz', async (_request, reply) => answerHealth(reply, deps.engine.health));
  app.get('/metrics', metricsHandler(deps, { tenants: true }));
  return app;
}

/**
 * GET /metrics: the gauges refreshed, then the registry in Prometheus' text format; with `tenants: false`
 * every series labelled by tenant is summed over tenants and served without the label.
 */
function metricsHandler(deps: { engine: Engine; metrics: Metrics }, options: { tenants: boolean }) {
  return async (_request: FastifyRequest, reply: FastifyReply) => {
    deps.engine.refreshGauges();
    const { registry } = deps.metrics;
    const text = options.tenants ? await registry.metrics() : await metricsWithoutTenants(registry);
    return reply.type(registry.contentType).send(text);
  };
}
