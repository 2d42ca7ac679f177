// Settings from the environment, parsed once at start-up. Every bad value is reported together, each
// naming its variable, the value and what is expected; the process then refuses to start. SETTINGS_DOC
// (settings-doc.ts) is the documented list, and docs/configuration.md is rendered from it.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { KeyObject } from 'node:crypto';
import { parseStoreKey } from '../audit/cipher.js';
import { parseSigningKey } from '../export/signing.js';
import { parseApiTokens, type ApiToken } from '../auth/api-tokens.js';
import type { IngestSecrets } from '../auth/ingest-signature.js';
import type { OidcSettings } from '../auth/oidc.js';
import { isRole, type Role } from '../auth/principal.js';
import { TrustedProxies } from '../auth/client-ip.js';
import type { IntelSettings } from '../intel/threat-intel.js';
import { TenantRepos } from '../forge/tenant-repos.js';
import { TENANT_NAME } from '../engine/tenant.js';
import { parseDuration } from './duration.js';
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

/** Scale-out: NATS JetStream as the bus, PostgreSQL for leadership (docs/deployment.md). */
export interface ScaleOutSettings {
  bus?: {
    url: string;
    subjectPrefix: string;
    maxAgeMs: number;
    maxDeliver: number;
    /** BUS_CONSUMER: the durable consumer, one per replica (each replica holds every graph) */
    consumer: string;
    user?: string;
    password?: string;
    tls?: { ca?: string; cert?: string; key?: string };
  };
  db?: { dsn: string; sslmode?: 'disable' | 'require' | 'verify-full' };
  leaderPollMs: number;
}

/** GOVERNANCE_BACKEND and the file backend's paths; signed exports; the drift webhook. */
export interface GovernanceSettings {
  /** file: under DATA_DIR (one replica); postgres: in DB_DSN, shared by the replicas (src/governance/pg-store.ts) */
  backend: 'file' | 'postgres';
  /** SUPPRESSIONS_PATH, VALIDATIONS_PATH, TICKETS_PATH, HISTORY_PATH: unset, under DATA_DIR/governance */
  paths: { suppressions?: string; validations?: string; tickets?: string; history?: string };
  /** EXPORT_SIGNING_KEY: unset, a key made and kept under DATA_DIR/keys */
  exportSigningKey?: KeyObject;
  /** DRIFT_WEBHOOK_URL: where posture drift (critical paths opened, resolved, suppressions lapsing) is sent */
  driftWebhookUrl?: string;
}

export interface GithubSettings {
  /** WEBHOOK_SECRET: webhooks are taken only with it */
  webhookSecret?: string;
  /** FORGE_TOKEN: token mode (no App): comments and statuses written with this token */
  token?: string;
  /** APP_ID and PRIVATE_KEY: without both the app runs dry */
  appId?: string;
  privateKey?: string;
  /** FORGE_API_URL, or from GHE_HOST: GitHub's REST API (GitHub Enterprise Server: https://<host>/api/v3) */
  apiUrl: string;
  /** WEBHOOK_PROXY_URL: a smee.io channel whose webhooks are forwarded to this service (local development) */
  webhookProxyUrl?: string;
  /** REPO_ALLOWLIST entries by the tenant whose repositories they name (src/forge/tenant-repos.ts) */
  allowlist: Map<string, string[]>;
  /** PUBLIC_URL: where people open pathgate (links in comments and statuses) */
  publicUrl?: string;
  /** a dashboard is configured (DASHBOARD_ADDR): the pages links point at exist (app/github/links.ts) */
  dashboard?: boolean;
}

/** Which GitHub the app talks to: its REST API and its web pages (where Apps are registered). */
export interface GithubServer {
  apiUrl: string;
  /** `https://github.com`, or `https://<GHE_HOST>` */
  webUrl: string;
}

/** The audit log (docs/security.md). */
export interface AuditSettings {
  path?: string;
  /** AUDIT_RETENTION: records older than this are pruned (src/audit/retention.ts) */
  retentionMs?: number;
  /** STORE_ENCRYPTION_KEY: 32 bytes; the audit log's lines are sealed with AES-256-GCM */
  key?: Buffer;
  exfilThreshold?: number;
}

/** API authentication, limits and listener hardening (docs/security.md). */
export interface AuthSettings {
  apiTokens: ApiToken[];
  /** notes to log at start: dropped token entries, dropped group-role entries (never a secret) */
  notes: { level: 'warn' | 'error'; message: string }[];
  anonymousRole?: 'viewer';
  oidc?: OidcSettings;
  /** published by GET /auth/config for the SPA's PKCE login */
  oidcPublic: { clientId?: string; authorizeUrl?: string; tokenUrl?: string; logoutUrl?: string };
  /** AUTH_CONFIG_LEGACY_MODE: `GET /auth/config` answers the 0.x `mode` words (deprecated; docs/security.md) */
  legacyConfigMode?: boolean;
  ingestRateRps: number;
  apiRateRps: number;
  lockoutThreshold: number;
  trustedProxies: string[];
  corsOrigins: string[];
  metricsAddr?: ListenAddress;
  tls?: { cert: string; key: string };
  production: boolean;
  /** GRAPHQL_*: what one GraphQL request may ask for and one answer may carry (app/graphql/limits.ts) */
  graphql?: GraphqlLimits;
}

/** GraphQL request limits (docs/security.md, GraphQL cost); a request over one is refused with a 400. */
export interface GraphqlLimits {
  maxAliases: number;
  maxDepth: number;
  maxDirectives: number;
  maxTokens: number;
  /** estimated values in the answer: each field 1, each list times its expected length */
  maxCost: number;
  /** path records one answer may carry, all fields and aliases together */
  maxPaths: number;
  /** bytes of one POST /graphql body, refused while it is read, before JSON parsing */
  maxBodyBytes: number;
  /** bytes of one request's variables (as JSON), refused before they are coerced */
  maxVariablesBytes: number;
  /** entries of one list argument (`whatIf(cuts:)`), written in the document or passed as a variable */
  maxListItems: number;
  /** Monte Carlo iterations one request may ask for, every riskSimulation and whatIf together */
  maxIterations: number;
  /** GRAPHQL_INTROSPECTION; unset: introspection is on only while API auth is off */
  introspection?: boolean;
}

export const DEFAULT_GRAPHQL_LIMITS: Readonly<GraphqlLimits> = {
  maxAliases: 15,
  maxDepth: 10,
  maxDirectives: 50,
  maxTokens: 2_000,
  maxCost: 250_000,
  maxPaths: 10_000,
  maxBodyBytes: 256 * 1024,
  maxVariablesBytes: 64 * 1024,
  maxListItems: 100,
  maxIterations: 1_000_000,
};

export function apiAuthEnabled(auth: AuthSettings): boolean {
  return auth.apiTokens.length > 0 || auth.oidc !== undefined;
}

export class SettingsError extends Error {
  /** One line per bad setting, each starting `NAME="value"`, or naming the settings that conflict. */
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `bad settings:\n  ${problems.join('\n  ')}`);
    this.name = 'SettingsError';
  }
}

export { renderSettingsTable, SETTINGS_DOC } from './settings-doc.js';

// setInterval() fires at once, every millisecond, when given more than this (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_THREADS = 64;

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

/** A parser returns the value or throws with text that follows `NAME="value" `. */
type Parser<T> = (text: string) => T;

const BOOLEAN: Readonly<Record<string, boolean>> = {
  true: true,
  '1': true,
  yes: true,
  on: true,
  false: false,
  '0': false,
  no: false,
  off: false,
};

/** A file that must exist and be readable now (a start-up check, not a surprise later). */
const parsePath: Parser<string> = (text) => {
  const file = text.trim();
  if (!existsSync(file)) throw new Error('names no file that exists');
  return file;
};

const parseBoolean: Parser<boolean> = (text) => {
  const value = BOOLEAN[text.trim().toLowerCase()];
  if (value === undefined) throw new Error('is not a boolean (use true/false, 1/0, yes/no or on/off)');
  return value;
};

// A hostname or IPv4 address, or an IPv6 address in brackets; `:port` alone means every interface.
const ADDRESS = /^(?:\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\]|([A-Za-z0-9._-]*)):(\d{1,5})$/;

const parseAddress: Parser<ListenAddress> = (text) => {
  const match = ADDRESS.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error('is not host:port (e.g. 127.0.0.1:8080 or :8080)');
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
};

function parseEnum<T extends string>(allowed: readonly T[]): Parser<T> {
  return (text) => {
    const value = text.trim().toLowerCase();
    if (!(allowed as readonly string[]).includes(value))
      throw new Error(`is not one of ${allowed.join(', ')}`);
    return value as T;
  };
}

const parseScore: Parser<number> = (text) => {
  const trimmed = text.trim();
  // Plain decimals only: Number() would also take `0x1`, `1e-1` and `Infinity`.
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(value >= 0 && value <= 1)) throw new Error('is not a number from 0 to 1');
  return value;
};

const parseThreads: Parser<number> = (text) => {
  const trimmed = text.trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(value >= 1 && value <= MAX_THREADS))
    throw new Error(`is not a whole number from 1 to ${MAX_THREADS}`);
  return value;
};

/** Worker threads for work the event loop can also do itself: 0 means none. */
const parseThreadsOrNone: Parser<number> = (text) => {
  const trimmed = text.trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(value >= 0 && value <= MAX_THREADS))
    throw new Error(`is not a whole number from 0 to ${MAX_THREADS}`);
  return value;
};

function durationParser(options: { timer?: boolean } = {}): Parser<number> {
  return (text) => {
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch {
      throw new Error('is not a duration (use e.g. 30s, 5m, 1h30m)');
    }
    if (ms <= 0) throw new Error('must be longer than zero');
    if (options.timer && ms > MAX_TIMER_MS) throw new Error('is too long (at most 596h)');
    return ms;
  };
}

const isAnyHost = (host: string) => host === '0.0.0.0' || host === '::';

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

/**
 * A secret-bearing setting: from `NAME`, or from the file `NAME_FILE` names (one trailing newline
 * stripped). Problems name the variable and the file, never the secret.
 */
function readSecret(env: Env, name: string, problems: string[]): string | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  const hasDirect = direct !== undefined && direct !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasDirect && hasFile) {
    problems.push(`${name} and ${name}_FILE are both set; set one`);
    return undefined;
  }
  if (hasFile) {
    try {
      const text = readFileSync(file.trim(), 'utf8').replace(/\r?\n$/, '');
      if (!text) problems.push(`${name}_FILE=${JSON.stringify(file)} is empty`);
      return text || undefined;
    } catch (error) {
      problems.push(
        `${name}_FILE=${JSON.stringify(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return undefined;
    }
  }
  return hasDirect ? direct : undefined;
}

/** `INGEST_HMAC_SECRETS`: `<tenant>:<secret>,...`; a bad entry is named by its position, never echoed. */
function parseTenantSecrets(text: string | undefined, problems: string[]): Map<string, string> {
  const tenants = new Map<string, string>();
  if (text === undefined) return tenants;
  text.split(',').forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const tenant = colon < 0 ? '' : entry.slice(0, colon).trim();
    const secret = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!TENANT_NAME.test(tenant) || !secret) {
      problems.push(
        `INGEST_HMAC_SECRETS entry ${index + 1} is not <tenant>:<secret> (tenant: lowercase letters, digits, - and _)`,
      );
    } else if (tenants.has(tenant)) {
      problems.push(`INGEST_HMAC_SECRETS names tenant ${JSON.stringify(tenant)} twice`);
    } else tenants.set(tenant, secret);
  });
  return tenants;
}

type Reader = <T>(name: string, parse: Parser<T>, fallback: T) => T;

const parseRate: Parser<number> = (text) => {
  const value = /^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value > 0 && value <= 100_000)) throw new Error('is not a rate above 0 (requests per second)');
  return value;
};

const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 * 1024 };

/** A body size: bytes, or `KiB`/`MiB`; from 1 KiB up to the 32 MiB body limit. */
const parseBodyBytes: Parser<number> = (text) => {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kib|mib)?$/i.exec(text.trim());
  const value = match ? Math.floor(Number(match[1]) * BYTE_UNITS[(match[2] ?? '').toLowerCase()]) : NaN;
  if (!(value >= 1024 && value <= 32 * 1024 * 1024))
    throw new Error('is not a size from 1KiB to 32MiB (bytes, or e.g. 512KiB, 8MiB)');
  return value;
};

const parseCount: Parser<number> = (text) => {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value >= 1 && value <= 10_000)) throw new Error('is not a whole number from 1 to 10000');
  return value;
};

const parseUrl: Parser<string> = (text) => {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    return url.toString();
  } catch {
    throw new Error('is not an http(s) URL');
  }
};

const parseList: Parser<string[]> = (text) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

function readAuth(env: Env, problems: string[], read: Reader): AuthSettings {
  const notes: AuthSettings['notes'] = [];
  const tokenText = readSecret(env, 'API_TOKENS', problems);
  const tokens = parseApiTokens(tokenText);
  for (const message of tokens.dropped) notes.push({ level: 'error', message });
  // Present but unusable would leave the API open, as admin, to everyone: refuse instead. The reasons name
  // entries by position, never a token.
  if (tokenText !== undefined && tokenText.trim() !== '' && !tokens.tokens.length) {
    const name = env.API_TOKENS_FILE?.trim() ? 'API_TOKENS_FILE' : 'API_TOKENS';
    const why = tokens.dropped.map((d) => d.replace(/^API_TOKENS /, '')).join('; ');
    problems.push(
      `${name} is set but yields no valid token (${why || 'no entries'}); refusing to start with the API open`,
    );
  }
  const anonymous = read<string | undefined>('API_ANONYMOUS_ROLE', (t) => t.trim(), undefined);
  if (anonymous !== undefined && anonymous !== 'viewer')
    problems.push(`API_ANONYMOUS_ROLE=${JSON.stringify(anonymous)} is not accepted; only viewer is`);
  const jwksUrl = read<string | undefined>('OIDC_JWKS_URL', parseUrl, undefined);
  const issuer = read<string | undefined>('OIDC_ISSUER', (t) => t.trim(), undefined);
  const audience = read<string | undefined>('OIDC_AUDIENCE', (t) => t.trim(), undefined);
  // Every OIDC setting is read (and checked) whether or not OIDC is on, so a typo never waits for the day
  // it is switched on.
  const groupRoles = new Map<string, Role>();
  for (const entry of parseList(env.OIDC_GROUP_ROLES ?? '')) {
    const eq = entry.lastIndexOf('=');
    const group = entry.slice(0, eq).trim();
    const role = entry.slice(eq + 1).trim();
    if (eq <= 0 || !isRole(role))
      notes.push({
        level: 'error',
        message: `OIDC_GROUP_ROLES entry ${JSON.stringify(entry)} dropped: not <group>=<role>`,
      });
    else groupRoles.set(group, role);
  }
  const defaultRole = read<Role | undefined>(
    'OIDC_DEFAULT_ROLE',
    parseEnum<Role>(['none', 'viewer', 'operator', 'admin']),
    undefined,
  );
  const claims = {
    roleClaim: read('OIDC_ROLE_CLAIM', (t) => t.trim(), 'role'),
    tenantClaim: read('OIDC_TENANT_CLAIM', (t) => t.trim(), 'tenant'),
    appsClaim: read('OIDC_APPS_CLAIM', (t) => t.trim(), 'apps'),
    groupsClaim: read('OIDC_GROUPS_CLAIM', (t) => t.trim(), 'groups'),
  };
  let oidc: OidcSettings | undefined;
  if (jwksUrl !== undefined) {
    if (!issuer || !audience) {
      problems.push(
        `OIDC_JWKS_URL is set without ${[!issuer && 'OIDC_ISSUER', !audience && 'OIDC_AUDIENCE'].filter(Boolean).join(' and ')}; both are required`,
      );
    } else {
      if (defaultRole && defaultRole !== 'none')
        notes.push({
          level: 'warn',
          message: `OIDC_DEFAULT_ROLE=${defaultRole}: everyone the identity provider authenticates gets it`,
        });
      oidc = { jwksUrl, issuer, audience, ...claims, groupRoles, defaultRole };
    }
  }
  const trustedProxies = read('TRUSTED_PROXY_CIDRS', parseList, [] as string[]);
  try {
    new TrustedProxies(trustedProxies);
  } catch (error) {
    problems.push(`TRUSTED_PROXY_CIDRS: ${(error as Error).message}`);
  }
  const certFile = read<string | undefined>('TLS_CERT_FILE', (t) => t.trim(), undefined);
  const keyFile = read<string | undefined>('TLS_KEY_FILE', (t) => t.trim(), undefined);
  let tls: AuthSettings['tls'];
  if (certFile || keyFile) {
    if (!certFile || !keyFile) problems.push('TLS_CERT_FILE and TLS_KEY_FILE go together; set both');
    else {
      try {
        tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
      } catch (error) {
        problems.push(
          `TLS_CERT_FILE/TLS_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    }
  }
  const production =
    read<string | undefined>('PG_ENV', (t) => t.trim().toLowerCase(), undefined) === 'production';
  return {
    apiTokens: tokens.tokens,
    notes,
    anonymousRole: anonymous === 'viewer' ? 'viewer' : undefined,
    oidc,
    oidcPublic: {
      clientId: read<string | undefined>('OIDC_CLIENT_ID', (t) => t.trim(), undefined),
      authorizeUrl: read<string | undefined>('OIDC_AUTHORIZE_URL', parseUrl, undefined),
      tokenUrl: read<string | undefined>('OIDC_TOKEN_URL', parseUrl, undefined),
      logoutUrl: read<string | undefined>('OIDC_LOGOUT_URL', parseUrl, undefined),
    },
    legacyConfigMode: read('AUTH_CONFIG_LEGACY_MODE', parseBoolean, false),
    ingestRateRps: read('INGEST_RATE_RPS', parseRate, 50),
    apiRateRps: read('API_RATE_RPS', parseRate, 20),
    lockoutThreshold: read('AUTH_LOCKOUT_THRESHOLD', parseCount, 10),
    trustedProxies,
    corsOrigins: read('CORS_ALLOWED_ORIGINS', parseList, [] as string[]),
    metricsAddr: read<ListenAddress | undefined>('METRICS_ADDR', parseAddress, undefined),
    tls,
    production,
    graphql: readGraphqlLimits(read),
  };
}

function wholeNumber(min: number, max: number): Parser<number> {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
    if (!(value >= min && value <= max)) throw new Error(`is not a whole number from ${min} to ${max}`);
    return value;
  };
}

function readGraphqlLimits(read: Reader): GraphqlLimits {
  const d = DEFAULT_GRAPHQL_LIMITS;
  return {
    maxAliases: read('GRAPHQL_MAX_ALIASES', wholeNumber(0, 10_000), d.maxAliases),
    maxDepth: read('GRAPHQL_MAX_DEPTH', wholeNumber(1, 1_000), d.maxDepth),
    maxDirectives: read('GRAPHQL_MAX_DIRECTIVES', wholeNumber(0, 10_000), d.maxDirectives),
    maxTokens: read('GRAPHQL_MAX_TOKENS', wholeNumber(100, 1_000_000), d.maxTokens),
    maxCost: read('GRAPHQL_MAX_COST', wholeNumber(1, 100_000_000), d.maxCost),
    maxPaths: read('GRAPHQL_MAX_PATHS', wholeNumber(1, 10_000_000), d.maxPaths),
    maxBodyBytes: read('GRAPHQL_MAX_BODY_BYTES', wholeNumber(1024, 32 * 1024 * 1024), d.maxBodyBytes),
    maxVariablesBytes: read(
      'GRAPHQL_MAX_VARIABLES_BYTES',
      wholeNumber(0, 32 * 1024 * 1024),
      d.maxVariablesBytes,
    ),
    maxListItems: read('GRAPHQL_MAX_LIST_ITEMS', wholeNumber(1, 100_000), d.maxListItems),
    maxIterations: read('GRAPHQL_MAX_ITERATIONS', wholeNumber(1, 100_000_000), d.maxIterations),
    introspection: read<boolean | undefined>('GRAPHQL_INTROSPECTION', parseBoolean, undefined),
  };
}

function readGovernance(env: Env, problems: string[], read: Reader): GovernanceSettings {
  const backend = read<string>('GOVERNANCE_BACKEND', (t) => t.trim().toLowerCase(), 'file');
  if (backend !== 'file' && backend !== 'postgres')
    problems.push(`GOVERNANCE_BACKEND=${JSON.stringify(backend)} must be file or postgres`);
  const filePath = (t: string) => t.trim();
  let exportSigningKey: KeyObject | undefined;
  const keyText = readSecret(env, 'EXPORT_SIGNING_KEY', problems);
  if (keyText !== undefined) {
    try {
      exportSigningKey = parseSigningKey(keyText);
    } catch (error) {
      problems.push(`EXPORT_SIGNING_KEY ${(error as Error).message}`);
    }
  }
  return {
    backend: backend === 'postgres' ? 'postgres' : 'file',
    paths: {
      suppressions: read<string | undefined>('SUPPRESSIONS_PATH', filePath, undefined),
      validations: read<string | undefined>('VALIDATIONS_PATH', filePath, undefined),
      tickets: read<string | undefined>('TICKETS_PATH', filePath, undefined),
      history: read<string | undefined>('HISTORY_PATH', filePath, undefined),
    },
    exportSigningKey,
    driftWebhookUrl: read<string | undefined>('DRIFT_WEBHOOK_URL', parseUrl, undefined),
  };
}

function readStoreKey(env: Env, problems: string[]): Buffer | undefined {
  const text = readSecret(env, 'STORE_ENCRYPTION_KEY', problems);
  if (text === undefined) return undefined;
  try {
    return parseStoreKey(text);
  } catch (error) {
    problems.push(`STORE_ENCRYPTION_KEY ${(error as Error).message}`);
    return undefined;
  }
}

function readGithub(
  env: Env,
  problems: string[],
  read: Reader,
  server: GithubServer,
  publicUrl: string | undefined,
): GithubSettings | undefined {
  const webhookSecret = readSecret(env, 'WEBHOOK_SECRET', problems);
  const appId = read<string | undefined>(
    'APP_ID',
    (t) => {
      if (!/^\d+$/.test(t.trim())) throw new Error('is not a GitHub App id (digits)');
      return t.trim();
    },
    undefined,
  );
  const privateKey = readSecret(env, 'PRIVATE_KEY', problems)?.replace(/\\n/g, '\n');
  const token = readSecret(env, 'FORGE_TOKEN', problems)?.trim() || undefined;
  const { apiUrl } = server;
  const webhookProxyUrl = read<string | undefined>('WEBHOOK_PROXY_URL', parseUrl, undefined);
  const allowlist = read('REPO_ALLOWLIST', (t) => TenantRepos.parse(t), new Map<string, string[]>());
  if (privateKey !== undefined && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey))
    problems.push('PRIVATE_KEY is not a PEM private key');
  if ((appId === undefined) !== (privateKey === undefined))
    problems.push('APP_ID and PRIVATE_KEY go together: set both, or neither for a dry run');
  if (token !== undefined && appId !== undefined)
    problems.push('FORGE_TOKEN and APP_ID exclude each other: the App writes with its installation tokens');
  if (webhookSecret === undefined) {
    if (appId !== undefined)
      problems.push('APP_ID is set without WEBHOOK_SECRET: the app cannot verify its webhooks');
    if (webhookProxyUrl !== undefined)
      problems.push(
        'WEBHOOK_PROXY_URL is set without WEBHOOK_SECRET: the webhooks it forwards cannot be verified',
      );
    if (token === undefined) return undefined;
  }
  return {
    ...(webhookProxyUrl && { webhookProxyUrl }),
    webhookSecret,
    token,
    appId,
    privateKey,
    apiUrl: apiUrl.replace(/\/+$/, ''),
    allowlist,
    publicUrl,
    dashboard: Boolean(env.DASHBOARD_ADDR?.trim()),
  };
}

/**
 * GHE_HOST (as Probot reads it: `ghe.example.com` → `https://ghe.example.com/api/v3`) or FORGE_API_URL;
 * both naming different servers is refused. Problems are reported once (by the caller that passes them).
 */
function readGithubServer(problems: string[], read: Reader): GithubServer {
  const gheHost = read<string | undefined>('GHE_HOST', parseHostName, undefined);
  const forgeApiUrl = read<string | undefined>('FORGE_API_URL', parseUrl, undefined);
  const fromHost = gheHost && `https://${gheHost}/api/v3`;
  if (fromHost && forgeApiUrl && forgeApiUrl.replace(/\/+$/, '') !== fromHost)
    problems.push(
      `GHE_HOST=${JSON.stringify(gheHost)} and FORGE_API_URL=${JSON.stringify(forgeApiUrl)} name different GitHub servers: set one (GHE_HOST means ${fromHost})`,
    );
  const apiUrl = (fromHost ?? forgeApiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const api = new URL(apiUrl);
  const webUrl =
    api.hostname === 'api.github.com'
      ? 'https://github.com'
      : `${api.protocol}//${api.host}${api.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '')}`;
  return { apiUrl, webUrl };
}

/** A host name (and port) alone: no scheme, path or credentials. */
const parseHostName: Parser<string> = (text) => {
  const host = text.trim();
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/.test(host))
    throw new Error('is not a host name (e.g. ghe.example.com, without https:// or a path)');
  return host.toLowerCase();
};

/** BUS_* and DB_*: scale-out, only when BUS_URL or DB_DSN is set. */
function readScaleOut(env: Env, problems: string[], read: Reader): ScaleOutSettings | undefined {
  const url = read<string | undefined>('BUS_URL', parseNatsUrl, undefined);
  const dsn = readSecret(env, 'DB_DSN', problems);
  const leaderPollMs = read('LEADER_POLL_INTERVAL', durationParser({ timer: true }), 2_000);
  const prefix = read('BUS_SUBJECT_PREFIX', parseSubjectToken('a subject prefix'), 'service');
  const consumer = read(
    'BUS_CONSUMER',
    parseSubjectToken('a consumer name'),
    `pathgate-${os.hostname().replace(/[^A-Za-z0-9_-]/g, '_')}`,
  );
  const maxAgeMs = read('BUS_MAX_AGE', durationParser(), 168 * 3_600_000);
  const maxDeliver = read('BUS_MAX_DELIVER', parseCount, 5);
  if (url === undefined && dsn === undefined) {
    for (const name of [
      'BUS_USER',
      'BUS_PASSWORD',
      'BUS_TLS_CA',
      'BUS_TLS_CERT',
      'BUS_TLS_KEY',
      'DB_SSLMODE',
    ])
      if (env[name]?.trim()) problems.push(`${name} is set but neither BUS_URL nor DB_DSN is`);
    return undefined;
  }
  if (url !== undefined && dsn === undefined)
    problems.push('BUS_URL needs DB_DSN: replicas choose their leader through PostgreSQL');
  if (dsn !== undefined) {
    try {
      const parsed = new URL(dsn);
      if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error();
    } catch {
      // The DSN may carry a password: it is never echoed.
      problems.push('DB_DSN is not a postgres:// URL');
    }
  }
  const file = (t: string) => {
    const name = t.trim();
    readFileSync(name);
    return name;
  };
  const fileOf = (name: string) =>
    read<string | undefined>(
      name,
      (t) => {
        try {
          return file(t);
        } catch (error) {
          throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
            cause: error,
          });
        }
      },
      undefined,
    );
  const tls = { ca: fileOf('BUS_TLS_CA'), cert: fileOf('BUS_TLS_CERT'), key: fileOf('BUS_TLS_KEY') };
  if ((tls.cert === undefined) !== (tls.key === undefined))
    problems.push('BUS_TLS_CERT and BUS_TLS_KEY go together; set both or neither');
  const user = read<string | undefined>('BUS_USER', (t) => t.trim(), undefined);
  const password = readSecret(env, 'BUS_PASSWORD', problems);
  if (password !== undefined && user === undefined) problems.push('BUS_PASSWORD is set without BUS_USER');
  return {
    bus:
      url === undefined
        ? undefined
        : {
            url,
            subjectPrefix: prefix,
            maxAgeMs,
            maxDeliver,
            consumer,
            user,
            password,
            tls: tls.ca || tls.cert ? tls : undefined,
          },
    db:
      dsn === undefined
        ? undefined
        : {
            dsn,
            sslmode: read<'disable' | 'require' | 'verify-full' | undefined>(
              'DB_SSLMODE',
              parseEnum<'disable' | 'require' | 'verify-full'>(['disable', 'require', 'verify-full']),
              undefined,
            ),
          },
    leaderPollMs,
  };
}

const parseNatsUrl: Parser<string> = (text) => {
  const urls = text.split(',').map((t) => t.trim());
  for (const each of urls) {
    let url: URL;
    try {
      url = new URL(each);
    } catch {
      throw new Error('is not a nats:// or tls:// URL (comma separated for several)');
    }
    if (!['nats:', 'tls:'].includes(url.protocol)) throw new Error('is not a nats:// or tls:// URL');
  }
  return urls.join(',');
};

function parseSubjectToken(what: string): Parser<string> {
  return (text) => {
    const value = text.trim();
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(value) || value.length > 64)
      throw new Error(`is not ${what} (letters, digits, - and _, dot separated; at most 64)`);
    return value;
  };
}
