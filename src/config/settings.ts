// Settings from the environment, parsed once at start-up. Every bad value is reported together, each
// naming its variable, the value and what is expected; the process then refuses to start. SETTINGS_DOC
// (settings-doc.ts) is the documented list, and docs/configuration.md is rendered from it.
import os from 'node:os';
import type { IngestSecrets } from '../auth/ingest-signature.js';
import type { IntelSettings } from '../intel/threat-intel.js';
import { defaultSecuritySettings, readSecuritySettings, type SecuritySettings } from './security-settings.js';
import { readSignatureSettings } from './signature-settings.js';
import type { SignatureTrustSettings } from '../ingest/signatures/trust.js';
import {
  defaultConnectorSettings,
  readConnectorSettings,
  type ConnectorSettings,
} from './connector-settings.js';
import { defaultAiSettings, readAiSettings, type AiSettings } from './ai-settings.js';
import {
  DEFAULT_PROFILE_PRIORS,
  parseProfilePriors,
  type ProfileName,
} from '../analysis/attacker-profiles.js';
import {
  type Parser,
  durationParser,
  isAnyHost,
  parseAddress,
  parseBodyBytes,
  parseBoolean,
  parseCount,
  parseEnum,
  parsePath,
  parseScore,
  parseThreads,
  parseThreadsOrNone,
  parseUrl,
  wholeNumber,
} from './parsers.js';
import {
  type AuditSettings,
  type AuthSettings,
  apiAuthEnabled,
  parseTenantSecrets,
  readAuth,
  readSecret,
  readStoreKey,
} from './auth-settings.js';
import { type GithubServer, type GithubSettings, readGithub, readGithubServer } from './github-settings.js';
import { type ScaleOutSettings, readScaleOut } from './scale-out-settings.js';
import { type GovernanceSettings, readGovernance } from './governance-settings.js';

/** The environment as settings read it (process.env fits; so does a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ListenAddress {
  host: string;
  port: number;
}

export type LogFormat = 'text' | 'json';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Settings {
  /** issue 31's defences: export spool limits, webhook limits, leader inbox MAC key, outbound webhooks */
  security: SecuritySettings;
  /** CONNECTORS_ENABLED, CONNECTOR_INTERVAL, CLOUDA_*, CLOUDB_*: the scheduled connectors (docs/connectors.md) */
  connectors: ConnectorSettings;
  /** AI answers (`POST /ai/ask`): the providers, the per-tenant rate (src/config/ai-settings.ts) */
  ai: AiSettings;
  dataDir: string;
  ingestAddr: ListenAddress;
  apiAddr: ListenAddress;
  /** DASHBOARD_ADDR: the dashboard's listener (`npm start`, `pathgate serve`); null when `off` */
  dashboardAddr: ListenAddress | null;
  analyzerIntervalMs: number;
  analyzerThreads: number;
  /** INGEST_THREADS: worker threads preparing large JSON report bodies; 0: all on the event loop */
  ingestThreads: number;
  /** THREATINTEL, THREATINTEL_KEV_FILE, THREATINTEL_EPSS_FILE, THREATINTEL_KEV_URL, THREATINTEL_EPSS_URL */
  threatIntel: IntelSettings;
  seedIamUsers: boolean;
  /** SIGSTORE_TRUSTED_ROOT, ATTESTATION_PUBLIC_KEYS: what provenance signatures verify against */
  signatures: SignatureTrustSettings;
  /** ATTACKER_PROFILE_PRIORS: weights of the attacker profiles (src/analysis/attacker-profiles.ts) */
  attackerProfilePriors: Record<ProfileName, number>;
  /** ANALYSIS_DEADLINE: a heavy analysis' wait for a slot and run together (src/analysis/analysis-service.ts) */
  analysisDeadlineMs: number;
  scrubIngest: boolean;
  /** null: nodes and edges are never aged out. */
  graphTtlMs: number | null;
  /** GRAPH_SWEEP: a complete snapshot retracts what its scope's previous snapshot held and it omits */
  graphSweep: boolean;
  /** GRAPH_STRICT: an unreachable graph store (DB_DSN) stops the start instead of serving from memory */
  graphStrict: boolean;
  /** ANALYZER_DB_PATHS, ANALYZER_DB_PATHS_TIMEOUT, ANALYZER_DB_PATHS_ROW_LIMIT (src/db/db-path-finder.ts) */
  dbPaths: { enabled: boolean; timeoutMs: number; rowLimit: number };
  parkedEdgeTtlMs: number;
  snapshotIntervalMs: number;
  priorityP1Score: number;
  priorityP2Score: number;
  logFormat: LogFormat;
  logLevel: LogLevel;
  demoData: boolean;
  /** Ingest signatures; none configured means ingest is open (logged as a warning). */
  ingestSecrets: IngestSecrets;
  auth: AuthSettings;
  audit: AuditSettings;
  /** PR_ATTRIBUTION: how the merge gate attributes routes to a change by default */
  prAttribution: 'report' | 'commit';
  /** The GitHub App, when WEBHOOK_SECRET is set (docs/github-app.md) */
  github?: GithubSettings;
  /** Which GitHub (github.com or an Enterprise Server): also for registering the App (app/github/setup.ts) */
  githubServer?: GithubServer;
  /** PUBLIC_URL: where people open the dashboard (links in GitHub comments and statuses, and in MCP answers) */
  publicUrl?: string;
  /** TICKET_WEBHOOK_URL: where new and closed tickets are sent */
  ticketWebhookUrl?: string;
  /** OPENSEARCH_URL: the search index in OpenSearch (src/search/opensearch-index.ts); unset: in process */
  opensearchUrl?: string;
  /** YAML_MAX_BYTES: YAML bodies over this are refused (413); YAML is parsed far slower than JSON */
  yamlMaxBytes: number;
  /** MAX_TENANTS: tenants open (unsigned) ingest may create; signed ingest is bounded by its secrets */
  maxTenants: number;
  /** Suppressions, validations, tickets, history, signed exports, drift webhook (docs/governance.md) */
  governance: GovernanceSettings;
  /** BUS_URL, BUS_*, DB_DSN, DB_SSLMODE, LEADER_POLL_INTERVAL: scale-out (docs/deployment.md); unset embedded */
  scaleOut?: ScaleOutSettings;
}

export class SettingsError extends Error {
  /** One line per bad setting, each starting `NAME="value"`, or naming the settings that conflict. */
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `bad settings:\n  ${problems.join('\n  ')}`);
    this.name = 'SettingsError';
  }
}

export { renderSettingsTable, SETTINGS_DOC } from './settings-doc.js';
// Each area's settings live in a file of its own; importers may keep importing them from here.
export { apiAuthEnabled, type AuditSettings, type AuthSettings } from './auth-settings.js';
export type { GithubServer, GithubSettings } from './github-settings.js';
export type { GovernanceSettings } from './governance-settings.js';
export { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './graphql-settings.js';
export type { ScaleOutSettings } from './scale-out-settings.js';

const defaultThreads = () => Math.max(1, Math.min(4, os.availableParallelism()));

/** The defaults; `loadSettings(env, defaults)` lays the caller's over these, and the environment over both. */
function builtInDefaults(): Settings {
  return {
    security: defaultSecuritySettings(),
    connectors: defaultConnectorSettings(),
    ai: defaultAiSettings(),
    dataDir: './data',
    ingestAddr: { host: '127.0.0.1', port: 8081 },
    apiAddr: { host: '127.0.0.1', port: 8080 },
    dashboardAddr: { host: '127.0.0.1', port: 3000 },
    analyzerIntervalMs: 30_000,
    analyzerThreads: defaultThreads(),
    ingestThreads: 1,
    threatIntel: { enabled: false },
    seedIamUsers: false,
    signatures: { keys: [] },
    attackerProfilePriors: { ...DEFAULT_PROFILE_PRIORS },
    analysisDeadlineMs: 30_000,
    scrubIngest: true,
    graphTtlMs: null,
    graphSweep: true,
    graphStrict: false,
    dbPaths: { enabled: false, timeoutMs: 10_000, rowLimit: 2_000_000 },
    parkedEdgeTtlMs: 168 * 3_600_000,
    snapshotIntervalMs: 5 * 60_000,
    priorityP1Score: 0.5,
    priorityP2Score: 0.1,
    logFormat: 'text',
    logLevel: 'info',
    demoData: false,
    ingestSecrets: { tenants: new Map(), acceptV1: true },
    auth: {
      apiTokens: [],
      notes: [],
      oidcPublic: {},
      ingestRateRps: 50,
      apiRateRps: 20,
      lockoutThreshold: 10,
      trustedProxies: [],
      corsOrigins: [],
      production: false,
    },
    audit: {},
    prAttribution: 'report',
    yamlMaxBytes: 8 * 1024 * 1024,
    maxTenants: 100,
    governance: { backend: 'file', paths: {} },
  };
}

/**
 * Reads every setting from `env` (unset or blank means the default), over `defaults` supplied by the caller
 * (`DEMO_DATA` differs between `npm start` and `pathgate serve`) and the built-in defaults. Throws one
 * SettingsError listing every bad value.
 */
export function loadSettings(env: Env, defaults: Partial<Settings> = {}): Settings {
  const base = builtInDefaults();
  // An explicit `undefined` in the caller's defaults means "no opinion", not "unset the default".
  for (const [key, value] of Object.entries(defaults))
    if (value !== undefined) Object.assign(base, { [key]: value });
  const problems: string[] = [];
  const bad = new Set<string>();
  function read<T>(name: string, parse: Parser<T>, fallback: T): T {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    try {
      return parse(raw);
    } catch (error) {
      problems.push(`${name}=${JSON.stringify(raw)} ${(error as Error).message}`);
      bad.add(name);
      return fallback;
    }
  }
  const githubServer = readGithubServer(problems, read);
  // Read once: GitHub's comments and the MCP server's answers link to the same pages.
  const publicUrl = read<string | undefined>('PUBLIC_URL', parseUrl, undefined);
  const settings: Settings = {
    dataDir: read('DATA_DIR', (t) => t, base.dataDir),
    ingestAddr: read('INGEST_ADDR', parseAddress, base.ingestAddr),
    apiAddr: read('API_ADDR', parseAddress, base.apiAddr),
    dashboardAddr: read<ListenAddress | null>(
      'DASHBOARD_ADDR',
      (text) => (text.trim().toLowerCase() === 'off' ? null : parseAddress(text)),
      base.dashboardAddr,
    ),
    analyzerIntervalMs: read('ANALYZER_INTERVAL', durationParser({ timer: true }), base.analyzerIntervalMs),
    analyzerThreads: read('ANALYZER_THREADS', parseThreads, base.analyzerThreads),
    ingestThreads: read('INGEST_THREADS', parseThreadsOrNone, base.ingestThreads),
    threatIntel: {
      enabled: read('THREATINTEL', parseBoolean, base.threatIntel.enabled),
      kevFile: read<string | undefined>('THREATINTEL_KEV_FILE', parsePath, base.threatIntel.kevFile),
      epssFile: read<string | undefined>('THREATINTEL_EPSS_FILE', parsePath, base.threatIntel.epssFile),
      kevUrl: read<string | undefined>('THREATINTEL_KEV_URL', parseUrl, base.threatIntel.kevUrl),
      epssUrl: read<string | undefined>('THREATINTEL_EPSS_URL', parseUrl, base.threatIntel.epssUrl),
    },
    seedIamUsers: read('SEED_IAM_USERS', parseBoolean, base.seedIamUsers),
    signatures: readSignatureSettings(
      env,
      (name) => readSecret(env, name, problems),
      problems,
      base.signatures,
    ),
    attackerProfilePriors: read('ATTACKER_PROFILE_PRIORS', parseProfilePriors, base.attackerProfilePriors),
    analysisDeadlineMs: read('ANALYSIS_DEADLINE', durationParser({ timer: true }), base.analysisDeadlineMs),
    scrubIngest: read('SCRUB_INGEST', parseBoolean, base.scrubIngest),
    graphTtlMs: read<number | null>('GRAPH_TTL', durationParser(), base.graphTtlMs),
    graphSweep: read('GRAPH_SWEEP', parseBoolean, base.graphSweep),
    graphStrict: read('GRAPH_STRICT', parseBoolean, base.graphStrict),
    dbPaths: {
      enabled: read('ANALYZER_DB_PATHS', parseBoolean, base.dbPaths.enabled),
      timeoutMs: read('ANALYZER_DB_PATHS_TIMEOUT', durationParser({ timer: true }), base.dbPaths.timeoutMs),
      rowLimit: read('ANALYZER_DB_PATHS_ROW_LIMIT', wholeNumber(1, 1_000_000_000), base.dbPaths.rowLimit),
    },
    parkedEdgeTtlMs: read('PARKED_EDGE_TTL', durationParser(), base.parkedEdgeTtlMs),
    snapshotIntervalMs: read('SNAPSHOT_INTERVAL', durationParser({ timer: true }), base.snapshotIntervalMs),
    priorityP1Score: read('PRIORITY_P1_SCORE', parseScore, base.priorityP1Score),
    priorityP2Score: read('PRIORITY_P2_SCORE', parseScore, base.priorityP2Score),
    logFormat: read('LOG_FORMAT', parseEnum<LogFormat>(['text', 'json']), base.logFormat),
    logLevel: read('LOG_LEVEL', parseEnum<LogLevel>(['debug', 'info', 'warn', 'error']), base.logLevel),
    demoData: read('DEMO_DATA', parseBoolean, base.demoData),
    ingestSecrets: {
      single: readSecret(env, 'INGEST_HMAC_SECRET', problems),
      tenants: parseTenantSecrets(readSecret(env, 'INGEST_HMAC_SECRETS', problems), problems),
      acceptV1: read('INGEST_HMAC_ACCEPT_V1', parseBoolean, base.ingestSecrets.acceptV1),
    },
    auth: readAuth(env, problems, read),
    audit: {
      path: read<string | undefined>('AUDIT_LOG_PATH', (t) => t.trim(), undefined),
      retentionMs: read<number | undefined>('AUDIT_RETENTION', durationParser(), undefined),
      key: readStoreKey(env, problems),
      exfilThreshold: read<number | undefined>('EXFIL_ALERT_THRESHOLD', parseCount, undefined),
    },
    github: readGithub(env, problems, read, githubServer, publicUrl),
    githubServer,
    publicUrl,
    ticketWebhookUrl: read<string | undefined>('TICKET_WEBHOOK_URL', parseUrl, undefined),
    opensearchUrl: read<string | undefined>('OPENSEARCH_URL', parseUrl, undefined),
    yamlMaxBytes: read('YAML_MAX_BYTES', parseBodyBytes, base.yamlMaxBytes),
    prAttribution: read(
      'PR_ATTRIBUTION',
      parseEnum<'report' | 'commit'>(['report', 'commit']),
      base.prAttribution,
    ),
    maxTenants: read('MAX_TENANTS', parseCount, base.maxTenants),
    governance: readGovernance(env, problems, read),
    scaleOut: readScaleOut(env, problems, read),
    connectors: readConnectorSettings(read, problems),
    ai: readAiSettings(read, (name) => readSecret(env, name, problems), problems),
    security: readSecuritySettings(read, (name) => readSecret(env, name, problems), problems, {
      drift: env.DRIFT_WEBHOOK_URL?.trim()
        ? read<string | undefined>('DRIFT_WEBHOOK_URL', parseUrl, undefined)
        : undefined,
      tickets: env.TICKET_WEBHOOK_URL?.trim()
        ? read<string | undefined>('TICKET_WEBHOOK_URL', parseUrl, undefined)
        : undefined,
    }),
  };
  if (settings.governance.backend === 'postgres' && !settings.scaleOut?.db)
    problems.push('GOVERNANCE_BACKEND=postgres needs DB_DSN: the governance records are kept in PostgreSQL');
  if (settings.dbPaths.enabled && !settings.scaleOut?.db && !bad.has('DB_DSN'))
    problems.push(
      'ANALYZER_DB_PATHS=true needs DB_DSN: the database path finder searches the graph in PostgreSQL',
    );
  if (settings.auth.production) {
    const api = apiAuthEnabled(settings.auth);
    const ingest = settings.ingestSecrets.single !== undefined || settings.ingestSecrets.tenants.size > 0;
    if (!api || !ingest)
      problems.push(
        `PG_ENV=production needs both API auth (API_TOKENS or OIDC_JWKS_URL) and ingest auth (INGEST_HMAC_SECRET or INGEST_HMAC_SECRETS); missing: ${[!api && 'API', !ingest && 'ingest'].filter(Boolean).join(' and ')}`,
      );
    // The spec: production refuses to start when the graph store is unavailable; unset is unavailable.
    if (!settings.scaleOut?.db && !bad.has('DB_DSN'))
      problems.push('PG_ENV=production needs the graph store: set DB_DSN (PostgreSQL, docs/deployment.md)');
  }
  // Cross-checks only between values that parsed, so one typo does not also report a phantom conflict.
  if (
    !bad.has('PRIORITY_P1_SCORE') &&
    !bad.has('PRIORITY_P2_SCORE') &&
    settings.priorityP2Score > settings.priorityP1Score
  ) {
    problems.push(
      `PRIORITY_P2_SCORE (${settings.priorityP2Score}) is above PRIORITY_P1_SCORE (${settings.priorityP1Score}); P2 must be at most P1`,
    );
  }
  const { ingestAddr: ingest, apiAddr: api } = settings;
  if (
    !bad.has('INGEST_ADDR') &&
    !bad.has('API_ADDR') &&
    ingest.port !== 0 &&
    ingest.port === api.port &&
    (ingest.host === api.host || isAnyHost(ingest.host) || isAnyHost(api.host))
  ) {
    problems.push(
      `INGEST_ADDR and API_ADDR both listen on port ${api.port}; give the two listeners different ports`,
    );
  }
  if (problems.length) throw new SettingsError(problems);
  return settings;
}
