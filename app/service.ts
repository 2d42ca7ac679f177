// Composition root: settings -> logger, metrics, engine, the two listeners, demo data. buildService()
// wires everything without listening (tests use inject()); startService() also listens.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { signingEnabled } from '../src/auth/ingest-signature.js';
import { AuditLog } from '../src/audit/audit-log.js';
import { fileAuditReader, pgAuditReader } from '../src/audit/audit-reader.js';
import { startAuditRetention } from '../src/audit/retention.js';
import { TrustedProxies } from '../src/auth/client-ip.js';
import { createOidcVerifier } from '../src/auth/oidc.js';
import { Lockout } from '../src/auth/rate-limit.js';
import { apiAuthEnabled, type Settings } from '../src/config/settings.js';
import { Health, HEALTH_PARTS } from '../src/engine/health.js';
import { createEngine, type Engine, type EngineConfig, type HandedVerdict } from '../src/engine/engine.js';
import { inboxKey } from '../src/db/inbox-mac.js';
import { FileDeliveryLedger, PgDeliveryLedger } from './github/delivery-dedupe.js';
import { LeaderInbox } from '../src/db/leader-inbox.js';
import { DbPathFinder } from '../src/db/db-path-finder.js';
import { GraphStore } from '../src/db/graph-store.js';
import { createGovernance, type Governance } from '../src/governance/governance.js';
import { openPgGovernanceBackend } from '../src/governance/pg-store.js';
import { createDriftMonitor, type DriftMonitor } from '../src/governance/drift.js';
import { DEFAULT_TENANT } from '../src/engine/tenant.js';
import { createLogger } from '../src/log/logger.js';
import { createMetrics, type Metrics } from '../src/metrics/metrics.js';
import { buildApiServer, buildMetricsServer } from './api-server.js';
import { AnalysisService } from '../src/analysis/analysis-service.js';
import type { PathFinder } from '../src/analysis/path-finder.js';
import { registerGithubApp, type GithubApp, type HandedWebhook } from './github/host.js';
import { registerRemediationRoute } from './github/remediation.js';
import { registerAppSetup, setupPaths } from './github/setup.js';
import { startWebhookProxy } from './github/webhook-proxy.js';
import { createAuditor } from './plugins/audit.js';
import { yamlToList } from '../src/ingest/yaml.js';
import { buildIngestServer } from './ingest-server.js';
import { buildDashboardServer } from './dashboard-server.js';
import { packageRoot } from './package-root.js';
import { openScaleOut, teeAudit } from './scale-out.js';
import { PgAuditChain, pruneAuditTable } from '../src/db/audit-chain.js';
import { lockDataDir, type DataDirLock } from '../src/bus/data-dir-lock.js';
import { ConnectorRuntime } from '../src/connectors/runtime.js';
import { createSources } from '../src/connectors/sources.js';
import type { ConnectorSource } from '../src/connectors/connector.js';
import { createConnectorMetrics } from '../src/metrics/connector-metrics.js';
import { registerConnectorRoutes } from './routes/connectors.js';
import { OpenSearchIndex, redactedUrl } from '../src/search/opensearch-index.js';

export const DEMO_DIR = path.join(packageRoot(), 'fixtures', 'demo');

export interface Service {
  engine: Engine;
  /** suppressions, validations, tickets, history, the export signing key */
  governance: Governance;
  /** posture drift: history points and the drift webhook, after each pass and on a timer */
  drift: DriftMonitor;
  metrics: Metrics;
  logger: Logger;
  ingestApp: FastifyInstance;
  apiApp: FastifyInstance;
  /** the heavy analyses' slots, workers and graph (riskSimulation, whatIf, ...) */
  analyses: AnalysisService;
  /** the `/metrics`-only listener, when METRICS_ADDR is set */
  metricsApp?: FastifyInstance;
  /** the GitHub App, when WEBHOOK_SECRET is set */
  github?: GithubApp;
  /** the scheduled connectors (CONNECTORS_ENABLED), pulling on the leader once started */
  connectors: ConnectorRuntime;
  close(): Promise<void>;
}

export function engineConfigFrom(settings: Settings): EngineConfig {
  return {
    dataDir: settings.dataDir,
    analyzerIntervalMs: settings.analyzerIntervalMs,
    analyzerThreads: settings.analyzerThreads,
    scrubIngest: settings.scrubIngest,
    parkedTtlMs: settings.parkedEdgeTtlMs,
    snapshotIntervalMs: settings.snapshotIntervalMs,
    seedIamUsers: settings.seedIamUsers,
    signatures: settings.signatures,
    threatIntel: settings.threatIntel,
    graphTtlMs: settings.graphTtlMs,
    graphSweep: settings.graphSweep,
    thresholds: { p1: settings.priorityP1Score, p2: settings.priorityP2Score },
    ingestThreads: settings.ingestThreads,
  };
}

export async function buildService(options: {
  settings: Settings;
  logger?: Logger;
  now?: () => number;
  /**
   * A part the engine cannot run without stopped for good (the bus: its connection closed, its consumer
   * gone). `pathgate serve` and `npm start` close and exit non-zero (the spec's startup refusals); without
   * it the condition is logged only.
   */
  onFatal?: (error: Error) => void;
  /** the connectors' sources instead of those CONNECTORS_ENABLED makes (tests, embedding) */
  connectorSources?: ConnectorSource[];
  /** engine options no setting names (tests: `ingestWorkersAlways`) */
  engine?: Pick<EngineConfig, 'ingestWorkersAlways'>;
}): Promise<Service> {
  const { settings } = options;
  const logger = options.logger ?? createLogger({ format: settings.logFormat, level: settings.logLevel });
  // DATA_DIR is this process's alone, before anything reads or writes it (a second process refuses here).
  const lock = await lockDataDir(settings.dataDir);
  try {
    return await buildOnLockedDataDir(options, settings, logger, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function buildOnLockedDataDir(
  options: {
    logger?: Logger;
    now?: () => number;
    onFatal?: (error: Error) => void;
    connectorSources?: ConnectorSource[];
    engine?: Pick<EngineConfig, 'ingestWorkersAlways'>;
  },
  settings: Settings,
  logger: Logger,
  lock: DataDirLock,
): Promise<Service> {
  const metrics = createMetrics({ processMetrics: true });
  // The connectors' sources first: one that cannot be made (a mode this build lacks) refuses the start.
  const connectorSources = options.connectorSources ?? (await createSources(settings.connectors));
  // Scale-out (BUS_URL, DB_DSN): the JetStream bus and the leader lock; embedded otherwise.
  // The reduced modes (`/healthz` 503): the graph store fallen back, the bus away, the journal refusing.
  const health = new Health(options.now);
  for (const part of HEALTH_PARTS) metrics.reducedMode.set({ part }, 0);
  health.onChange((part, reduced) => {
    metrics.reducedMode.set({ part }, reduced ? 1 : 0);
    const reason = health.reduced().find((c) => c.part === part)?.reason;
    if (reduced) logger.warn({ part, reason }, 'serving in a reduced mode');
    else logger.info({ part }, 'left a reduced mode');
  });
  const scaleOut = await openScaleOut(settings, logger, metrics, health, options.onFatal);
  // Governance before the engine: it asks which paths are suppressed (the one critical definition).
  // Scale-out: what a follower may not do itself (write to GitHub) it hands to the leader through PostgreSQL.
  // Its rows carry a MAC under a key every replica holds; with none (no GitHub settings) nothing is handed.
  const inboxKeyMaterial =
    settings.security.leaderInboxKey ?? settings.github?.webhookSecret ?? settings.github?.token;
  const inbox =
    scaleOut.db && settings.scaleOut?.bus && inboxKeyMaterial !== undefined
      ? new LeaderInbox(scaleOut.db, settings.scaleOut.bus.consumer, logger, inboxKey(inboxKeyMaterial))
      : undefined;
  let governance: Governance;
  let engine: Engine;
  try {
    governance = createGovernance(
      settings,
      settings.governance.backend === 'postgres'
        ? await openPgGovernanceBackend({
            dsn: settings.scaleOut!.db!.dsn,
            sslmode: settings.scaleOut!.db!.sslmode,
            key: settings.audit.key,
            log: logger,
          })
        : undefined,
    );
  } catch (error) {
    await scaleOut.close();
    throw error;
  }
  // OPENSEARCH_URL: the search index in OpenSearch; in process otherwise (src/search/).
  const searchIndex = settings.opensearchUrl ? new OpenSearchIndex(settings.opensearchUrl) : undefined;
  if (settings.opensearchUrl)
    logger.info({ url: redactedUrl(settings.opensearchUrl) }, 'search: index in OpenSearch');
  try {
    engine = await createEngine({
      config: { ...engineConfigFrom(settings), ...options.engine },
      log: logger,
      metrics,
      now: options.now,
      suppression: (tenant, pathId, at) => governance.suppression(tenant, pathId, at),
      leadership: scaleOut.leadership,
      bus: scaleOut.bus,
      sharedSnapshots: scaleOut.sharedSnapshots,
      sharedPaths: scaleOut.sharedPaths,
      dbPaths: dbPathsFor(settings, scaleOut, metrics, logger),
      handOff: inbox && ((handed) => inbox.put('gate', handed)),
      health,
      searchIndex,
    });
  } catch (error) {
    await searchIndex?.close();
    await governance.backend.close();
    await scaleOut.close();
    throw error;
  }
  governance.preload(['default', ...[...engine.tenants()].map((t) => t.name)]);
  // A 0.1 store kept its trend beside the path records: the posture history (the one trend store) adopts it
  // once, so the trend a user saw survives the upgrade.
  for (const state of engine.tenants()) {
    const legacy = state.paths.legacyTrend.list();
    if (!legacy.length) continue;
    const points = legacy.map((p) => ({
      at: new Date(p.at).toISOString(),
      criticalPaths: p.criticalPaths,
      riskPct: p.riskPct,
    }));
    await governance.history.adopt(state.name, points).then(
      (n) => n && logger.info({ tenant: state.name, points: n }, 'posture history: adopted the 0.1 trend'),
      (error: unknown) =>
        logger.warn({ err: error, tenant: state.name }, 'posture history: 0.1 trend not adopted'),
    );
  }
  const { auth } = settings;
  const now = options.now ?? Date.now;
  const drift = createDriftMonitor({
    engine,
    history: governance.history,
    log: logger,
    now,
    webhook: settings.security.drift,
  });
  // The drift webhook is the leader's alone (spec "Events"); a follower that takes over checks from then on.
  engine.onPass((tenant) => {
    if (scaleOut.leadership.isLeader()) void drift.check(tenant);
  });
  // One lockout for both listeners: a client guessing on either is the same client.
  const lockout = new Lockout({
    threshold: auth.lockoutThreshold,
    windowMs: 5 * 60_000,
    lockMs: 15 * 60_000,
  });
  const trusted = new TrustedProxies(auth.trustedProxies);
  const auditLog =
    settings.audit.path !== undefined
      ? new AuditLog(settings.audit.path, settings.audit.key, now)
      : undefined;
  // The shared chain in PostgreSQL: with DB_DSN beside a file log (each replica keeps its file too), or on its
  // own with the database governance backend (the spec: "AUDIT_LOG_PATH (file) or the database governance
  // backend"); `verify-audit -postgres` walks it.
  const sharedAudit =
    scaleOut.db && (auditLog || settings.governance.backend === 'postgres')
      ? new PgAuditChain(scaleOut.db, settings.audit.key, now, (error) =>
          logger.error({ err: error }, 'audit: a record could not be written to PostgreSQL'),
        )
      : undefined;
  const auditSink = auditLog && sharedAudit ? teeAudit(auditLog, sharedAudit) : (auditLog ?? sharedAudit);
  // GET /audit reads the shared chain when there is one (every replica's records), else this replica's file.
  const auditReader =
    sharedAudit && scaleOut.db
      ? pgAuditReader(scaleOut.db, settings.audit.key, () => sharedAudit.flush())
      : settings.audit.path !== undefined
        ? fileAuditReader(settings.audit.path, settings.audit.key)
        : undefined;
  const auditor =
    auditSink &&
    createAuditor(auditSink, {
      exfilThreshold: settings.audit.exfilThreshold,
      now,
    });
  // AUDIT_RETENTION: records older than the window are pruned from both chains, each kept verifiable (an anchor).
  const db = scaleOut.db;
  const retention =
    settings.audit.retentionMs !== undefined && (auditLog || sharedAudit)
      ? startAuditRetention({
          log: auditLog,
          file: settings.audit.path,
          table:
            sharedAudit && db
              ? {
                  prune: (retentionMs, at) => pruneAuditTable(db, settings.audit.key, retentionMs, at),
                  record: (fields) => sharedAudit.append('audit.pruned', { subject: 'service', fields }),
                }
              : undefined,
          key: settings.audit.key,
          retentionMs: settings.audit.retentionMs,
          registry: metrics.registry,
          now,
          onError: (error) =>
            logger.error({ err: error }, 'audit retention: prune failed; nothing was removed'),
        })
      : undefined;
  const ingestApp = buildIngestServer({
    engine,
    logger,
    metrics,
    secrets: settings.ingestSecrets,
    ratePerSecond: auth.ingestRateRps,
    trusted,
    lockout,
    now,
    https: auth.tls,
    audit: auditor,
    maxTenants: settings.maxTenants,
    yamlMaxBytes: settings.yamlMaxBytes,
  });
  for (const note of auth.notes) logger[note.level](note.message);
  if (!apiAuthEnabled(auth))
    logger.warn(
      'the API is open: no API_TOKENS or OIDC_JWKS_URL is set, so anyone who reaches it reads every path',
    );
  if (!signingEnabled(settings.ingestSecrets)) {
    logger.warn(
      'ingest is open: no INGEST_HMAC_SECRET or INGEST_HMAC_SECRETS is set, so anyone who reaches the ingest listener can write to the graph',
    );
  } else if (settings.ingestSecrets.acceptV1) {
    logger.warn(
      'ingest accepts v1 signatures (INGEST_HMAC_ACCEPT_V1 is on): a v1 signature covers the body alone, with no time and no replay protection, so a captured request can be replayed (an old scan undoing a fix) and its query rewritten; sign with v2 and set INGEST_HMAC_ACCEPT_V1=false',
    );
  }
  const analyses = new AnalysisService(
    {
      seedIamUsers: settings.seedIamUsers,
      profilePriors: settings.attackerProfilePriors,
      deadlineMs: settings.analysisDeadlineMs,
    },
    metrics,
  );
  const apiApp = buildApiServer({
    engine,
    metrics,
    logger,
    auth,
    lockout,
    trusted,
    oidc: auth.oidc && createOidcVerifier(auth.oidc),
    now,
    https: auth.tls,
    audit: auditor,
    auditReader,
    attribution: settings.prAttribution,
    dataDir: settings.dataDir,
    governance,
    ticketWebhook: settings.security.tickets,
    exportLimits: settings.security.exports,
    // Links only to pages that exist: the dashboard runs unless DASHBOARD_ADDR=off.
    publicUrl: settings.dashboardAddr ? settings.publicUrl : undefined,
    ai: settings.ai,
    analyses,
  });
  const github = settings.github
    ? registerGithubApp(apiApp, {
        engine,
        logger,
        settings: settings.github,
        handOff: inbox && ((delivery) => inbox.put('webhook', delivery)),
        audit: auditSink,
        deliveries: scaleOut.db
          ? new PgDeliveryLedger(scaleOut.db, settings.security.webhooks.deliveryMemory)
          : new FileDeliveryLedger(settings.dataDir, settings.security.webhooks.deliveryMemory),
        webhookLimits: settings.security.webhooks,
      })
    : undefined;
  inbox?.start(settings.scaleOut!.leaderPollMs, () => engine.isLeader(), {
    gate: (body) => engine.receiveHandedVerdict(body as HandedVerdict),
    webhook: async (body) => github?.receiveHanded(body as HandedWebhook),
  });
  // Without a forge the route still answers, with what is missing.
  if (!github) registerRemediationRoute(apiApp, { engine });
  // No App configured yet: the manifest flow registers one (app/github/setup.ts).
  if (!settings.github?.appId && !settings.github?.token && settings.githubServer)
    registerAppSetup(apiApp, {
      server: settings.githubServer,
      ...setupPaths(packageRoot()),
      webhookProxyUrl: settings.github?.webhookProxyUrl,
      log: logger,
    });
  const metricsApp = auth.metricsAddr
    ? buildMetricsServer({ engine, metrics, logger, https: auth.tls })
    : undefined;
  const connectors = new ConnectorRuntime({
    sources: connectorSources,
    intervalMs: settings.connectors.intervalMs,
    ingest: (request) => engine.ingest(request),
    isLeader: () => engine.isLeader(),
    metrics: createConnectorMetrics(metrics.registry),
    log: logger,
    now,
  });
  registerConnectorRoutes(apiApp, { connectors });
  let closed = false;
  return {
    engine,
    governance,
    drift,
    metrics,
    logger,
    ingestApp,
    apiApp,
    analyses,
    metricsApp,
    github,
    connectors,
    async close() {
      if (closed) return;
      closed = true;
      try {
        retention?.stop();
        await connectors.stop();
        await inbox?.stop();
        await Promise.allSettled([ingestApp.close(), apiApp.close(), metricsApp?.close()]);
        // Pull-request updates already queued (webhooks answered, verdicts given) are finished, not dropped.
        await github?.idle();
        await engine.close();
        await sharedAudit?.flush();
        await governance.backend.close();
        await scaleOut.close();
      } finally {
        // Last: the store is closed (its snapshot written) before another process may open it.
        await lock.release();
      }
    },
  };
}

/** Loads the demo estate through the real ingest path, unless the default tenant already holds a graph. */
/** The demo reports, in the order a team's tools would send them; each goes through its own source. */
export const DEMO_REPORTS: readonly { file: string; source: string; query?: Record<string, string> }[] = [
  { file: 'trivy-checkout-api.json', source: 'trivy' },
  { file: 'build-checkout-api.json', source: 'build' },
  { file: 'semgrep-checkout-api.json', source: 'semgrep', query: { repo: 'github.com/acme/checkout-api' } },
  { file: 'estate.json', source: 'events' },
  // The cloud account: network state, then its IAM: jump-1 is open to the internet, reaches batch-worker-1,
  // whose role may pass a role to a new instance, which is the account's administrator.
  { file: 'cloudnet-111122223333.json', source: 'cloudnet', query: { account: '111122223333' } },
  { file: 'iam-111122223333.json', source: 'iam', query: { account: '111122223333' } },
  // The shop cluster: ingress -> service -> pods -> service account -> a role that may create pods.
  { file: 'k8s-shop-cluster.yaml', source: 'k8s', query: { snapshot: 'cluster:shop' } },
];

export async function loadDemo(service: Service): Promise<boolean> {
  const existing = service.engine.tenant(DEFAULT_TENANT);
  if (existing && existing.graph.order > 0) return false;
  for (const report of DEMO_REPORTS) {
    const text = await readFile(path.join(DEMO_DIR, report.file), 'utf8');
    const body: unknown = report.file.endsWith('.yaml') ? yamlToList(text) : JSON.parse(text);
    await service.engine.ingest({
      tenant: DEFAULT_TENANT,
      source: report.source,
      body,
      query: report.query ?? {},
    });
  }
  await service.engine.drain();
  return true;
}

export interface RunningService extends Service {
  ingestUrl: string;
  apiUrl: string;
  /** the dashboard (DASHBOARD_ADDR), when asked for and not `off` */
  dashboardUrl?: string;
  metricsUrl?: string;
}

/** A listener that could not listen, named by the setting that gave its address. */
export class ListenError extends Error {
  constructor(
    readonly setting: string,
    readonly address: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(
      `cannot listen on ${setting}=${address} (${code ?? (cause as Error).message})${code === 'EADDRINUSE' ? `: another process has that address (another pathgate?); stop it or set ${setting} to a free address` : ''}`,
      { cause },
    );
  }
}

async function listenAs(
  app: FastifyInstance,
  setting: string,
  addr: { host: string; port: number },
): Promise<string> {
  try {
    return await app.listen({ host: addr.host, port: addr.port });
  } catch (error) {
    const address = addr.host.includes(':') ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
    throw new ListenError(setting, address, (error as NodeJS.ErrnoException).code, error);
  }
}

export async function startService(options: {
  settings: Settings;
  demo: boolean;
  logger?: Logger;
  onFatal?: (error: Error) => void;
  /** also serve the dashboard on DASHBOARD_ADDR (`npm start`, `pathgate serve`; tests ask for it) */
  dashboard?: boolean;
}): Promise<RunningService> {
  const service = await buildService(options);
  const { settings, logger } = { settings: options.settings, logger: service.logger };
  try {
    const ingestUrl = await listenAs(service.ingestApp, 'INGEST_ADDR', settings.ingestAddr);
    const apiUrl = await listenAs(service.apiApp, 'API_ADDR', settings.apiAddr);
    // Local development: webhooks from a smee.io channel to the listener just opened (app/github/webhook-proxy.ts).
    const proxyUrl = service.github && settings.github?.webhookProxyUrl;
    const webhookProxy = proxyUrl
      ? startWebhookProxy({ source: proxyUrl, target: `${apiUrl}/api/github/webhooks`, log: logger })
      : undefined;
    const metricsAddr = settings.auth.metricsAddr;
    const metricsUrl =
      metricsAddr && service.metricsApp && (await listenAs(service.metricsApp, 'METRICS_ADDR', metricsAddr));
    const dashboardAddr = options.dashboard ? settings.dashboardAddr : null;
    let dashboardUrl: string | undefined;
    if (dashboardAddr) {
      const dashboardApp = buildDashboardServer({
        logger,
        apiUrl: () => apiUrl,
        oidcTokenUrl: settings.auth.oidcPublic.tokenUrl,
        https: settings.auth.tls,
      });
      const closeService = service.close;
      service.close = async () => {
        await dashboardApp.close();
        await closeService();
      };
      dashboardUrl = await listenAs(dashboardApp, 'DASHBOARD_ADDR', dashboardAddr);
    }
    if (options.demo && (await loadDemo(service)))
      logger.info({ reports: DEMO_REPORTS.length, dir: DEMO_DIR }, 'loaded the demo estate');
    // The first pass runs now, not one interval from now, so paths are there as soon as the service is.
    await service.engine.analyzeAll();
    service.engine.start();
    // Started once the ingest worker is warmed up too, so a large first report runs optimized code.
    await service.engine.ingestWorkersReady();
    // The connectors pull now and every CONNECTOR_INTERVAL, on the leader only.
    service.connectors.start();
    // Suppressions lapse without an analyzer pass: drift is also checked every interval (by the leader,
    // which alone sends the drift webhook and records the posture history).
    const driftTimer = setInterval(() => {
      if (!service.engine.isLeader()) return;
      for (const tenant of service.engine.tenants()) void service.drift.check(tenant.name);
    }, settings.analyzerIntervalMs).unref();
    const close = service.close;
    service.close = async () => {
      clearInterval(driftTimer);
      await webhookProxy?.stop();
      await close();
    };
    return { ...service, ingestUrl, apiUrl, metricsUrl: metricsUrl || undefined, dashboardUrl };
  } catch (error) {
    await service.close();
    throw error;
  }
}

/**
 * ANALYZER_DB_PATHS with a reachable DB_DSN: the graph store and the database path finder. Only the leader
 * writes the store (every replica holds the same graph; one writer keeps the rows from flapping between
 * replicas), so only the leader searches there; followers search in-process.
 */
function dbPathsFor(
  settings: Settings,
  scaleOut: Awaited<ReturnType<typeof openScaleOut>>,
  metrics: Metrics,
  logger: Logger,
): ((fallback: PathFinder) => DbPathFinder) | undefined {
  if (!settings.dbPaths.enabled) return undefined;
  const db = scaleOut.db;
  if (!db) {
    logger.warn('ANALYZER_DB_PATHS=true but PostgreSQL is not available: paths are searched in-process');
    return undefined;
  }
  return (fallback) =>
    new DbPathFinder(new GraphStore(db, logger), fallback, {
      metrics,
      log: logger,
      options: { timeoutMs: settings.dbPaths.timeoutMs, rowLimit: settings.dbPaths.rowLimit },
      writes: () => scaleOut.leadership.isLeader(),
    });
}
