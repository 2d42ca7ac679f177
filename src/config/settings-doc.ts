// The settings' documentation: every variable with its default (as documented) and meaning, the one source
// docs/configuration.md is rendered from (scripts/settings-table.ts) and checked against
// (test/config/settings.test.ts). Kept apart from the reading of them (settings.ts).
import { AI_SETTINGS_DOC } from './ai-settings.js';
import { SECURITY_SETTINGS_DOC } from './security-settings.js';
import { CONNECTOR_SETTINGS_DOC } from './connector-settings.js';

/** Every setting: its variable, default (as documented) and meaning. docs/configuration.md shows the same. */
export const SETTINGS_DOC: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: 'DATA_DIR',
    default: './data',
    meaning:
      'Where the embedded store keeps its journal and snapshots. One process at a time: the service locks it (`DATA_DIR/LOCK`) before any store work, and a second process on the same folder refuses, naming the holder\'s pid (docs/operations.md, "One process per DATA_DIR").',
  },
  {
    name: 'INGEST_ADDR',
    default: '127.0.0.1:8081',
    meaning: 'Ingest listener, `host:port`; `:8081` listens on every interface, `[::1]:8081` on IPv6.',
  },
  {
    name: 'API_ADDR',
    default: '127.0.0.1:8080',
    meaning: 'API listener (GraphQL, metrics), `host:port`; must not share the ingest port.',
  },
  {
    name: 'DASHBOARD_ADDR',
    default: '127.0.0.1:3000',
    meaning:
      'Dashboard listener (`npm start`, `pathgate serve`; `docs/dashboard.md`), `host:port`, or `off`; it calls the API listener on behalf of the browser.',
  },
  {
    name: 'INGEST_THREADS',
    default: '1',
    meaning:
      'Worker threads that prepare large JSON report bodies (1 MiB and over: parse, normalizer, scrubbing, chunking; not `supplychain`) off the event loop while graph writes of earlier reports are still pending (any, for an `events` body, which a worker reads item by item; at least half the body, for any other source), so those writes and the API go on meanwhile (with less pending, or none, the event loop prepares it); 0 to 64, 0 prepares every report on the event loop.',
  },
  { name: 'ANALYZER_INTERVAL', default: '30s', meaning: 'How often the analyzer looks for changed graphs.' },
  {
    name: 'ANALYZER_THREADS',
    default: 'cores, at most 4',
    meaning: 'Worker threads for path finding, 1 to 64; 1 runs in-process.',
  },
  {
    name: 'THREATINTEL',
    default: 'off',
    meaning:
      'on: CVEs get CISA KEV and FIRST EPSS intel (`docs/model.md`), from the files or URLs below, or by hand (`pathgate intel <file>`); applied to CVEs in the graph and to every later one. Off: no intel, no network use.',
  },
  {
    name: 'THREATINTEL_KEV_FILE',
    default: '(unset)',
    meaning: 'The CISA KEV catalog (`known_exploited_vulnerabilities.json`, or its CSV) read at start.',
  },
  {
    name: 'THREATINTEL_EPSS_FILE',
    default: '(unset)',
    meaning: 'FIRST EPSS scores (`epss_scores-current.csv`) read at start.',
  },
  {
    name: 'THREATINTEL_KEV_URL',
    default: '(unset)',
    meaning: 'Where to fetch the KEV catalog at start (only when set: no network use otherwise).',
  },
  {
    name: 'THREATINTEL_EPSS_URL',
    default: '(unset)',
    meaning: 'Where to fetch the EPSS scores CSV at start (only when set; an uncompressed CSV).',
  },
  {
    name: 'SEED_IAM_USERS',
    default: 'false',
    meaning:
      'The IAM-user lens: every IAM user (iam source) is a starting node, marked `credential_exposed` (a leaked key). Off: none is.',
  },
  {
    name: 'SIGSTORE_TRUSTED_ROOT',
    default: 'unset (the public-good root `@sigstore/tuf` ships)',
    meaning:
      'Path to a Sigstore `trusted_root.json` (a private Sigstore, or a fresher public-good root from `cosign trusted-root create`) that provenance bundles verify against, offline. Unset: the public-good Fulcio, Rekor, CT log and timestamp authority of the installed `@sigstore/tuf`.',
  },
  {
    name: 'ATTESTATION_PUBLIC_KEYS',
    default: 'unset (bare DSSE envelopes stay `signature_unverified`)',
    meaning:
      'PEM public keys (one or more `-----BEGIN PUBLIC KEY-----` blocks, e.g. cosign.pub; ECDSA, Ed25519 or RSA) that bare DSSE envelopes and key-signed Sigstore bundles verify against. Also `ATTESTATION_PUBLIC_KEYS_FILE`.',
  },
  {
    name: 'ATTACKER_PROFILE_PRIORS',
    default: 'commodity=0.6,criminal=0.3,apt=0.1',
    meaning:
      'Prior weights of the attacker profiles behind `mixtureScore`, `profileScores` and the risk simulation mixture (`docs/model.md`); normalized.',
  },
  {
    name: 'SCRUB_INGEST',
    default: 'true',
    meaning: 'Redact secrets from property values before storage (docs/scrubbing.md).',
  },
  {
    name: 'GRAPH_TTL',
    default: 'unset (off)',
    meaning: 'Remove nodes and edges not re-seen for this long (e.g. 168h).',
  },
  {
    name: 'GRAPH_SWEEP',
    default: 'true',
    meaning:
      'A complete snapshot (docs/architecture.md, "Snapshots and identity") retracts what its scope held before and now omits. `false` keeps everything a snapshot once held until GRAPH_TTL ages it out (scopes are still recorded, so turning it back on sweeps from the next snapshot on).',
  },
  {
    name: 'GRAPH_STRICT',
    default: 'false',
    meaning:
      'With DB_DSN set: `true` refuses to start when PostgreSQL (the graph store) cannot be reached. `false` serves from memory and the local store instead, and `/healthz` answers 503 `graph-store` until a restart finds it (docs/operations.md). Always strict under PG_ENV=production, with BUS_URL (replicas need the database for leadership) and with GOVERNANCE_BACKEND=postgres.',
  },
  {
    name: 'ANALYZER_DB_PATHS',
    default: 'false',
    meaning:
      "Opt-in database path finder (needs DB_DSN): the analyzer keeps the tenant graph in PostgreSQL (graph_nodes, graph_edges) and runs each pass's best-path search there as a recursive query, with a statement timeout and a row limit; on a timeout, the row limit, a stale store or any error it falls back to the in-process finder (logged, `service_analyzer_db_path_fallbacks_total{reason}`). Only the replica that writes the store (the leader in scale-out) searches there (docs/operations.md).",
  },
  {
    name: 'ANALYZER_DB_PATHS_TIMEOUT',
    default: '10s',
    meaning:
      "The database path finder's `statement_timeout` per pass; past it the pass falls back to the in-process finder.",
  },
  {
    name: 'ANALYZER_DB_PATHS_ROW_LIMIT',
    default: '2000000',
    meaning:
      "The most rows the database path finder's recursive query may produce in one pass (1 to 1000000000; the rows of every step count); past it the query stops and the pass falls back to the in-process finder.",
  },
  {
    name: 'PARKED_EDGE_TTL',
    default: '168h',
    meaning: 'How long an edge waits for a missing endpoint, and `ingestBatch` remembers a batch.',
  },
  {
    name: 'SNAPSHOT_INTERVAL',
    default: '5m',
    meaning:
      'How often the embedded store writes a snapshot (and compacts the journal) when the journal grew.',
  },
  {
    name: 'PRIORITY_P1_SCORE',
    default: '0.5',
    meaning: 'A path scoring at least this is P1 (critical); 0 to 1.',
  },
  {
    name: 'PRIORITY_P2_SCORE',
    default: '0.1',
    meaning: 'A path scoring at least this is P2, below is P3; 0 to 1, at most PRIORITY_P1_SCORE.',
  },
  { name: 'LOG_FORMAT', default: 'text', meaning: '`text` or `json`.' },
  { name: 'LOG_LEVEL', default: 'info', meaning: '`debug`, `info`, `warn` or `error`.' },
  {
    name: 'INGEST_HMAC_SECRET',
    default: 'unset (ingest open)',
    meaning:
      'Secret signing every ingest request for the default tenant (docs/security.md); `INGEST_HMAC_SECRET_FILE` reads it from a file.',
  },
  {
    name: 'INGEST_HMAC_SECRETS',
    default: 'unset',
    meaning:
      'Per-tenant secrets, `<tenant>:<secret>,...`; a request names its tenant with `X-Tenant`. Also `INGEST_HMAC_SECRETS_FILE`.',
  },
  {
    name: 'INGEST_HMAC_ACCEPT_V1',
    default: 'true',
    meaning:
      'Also accept v1 signatures (`X-Service-Signature`, body only, no replay protection; warned at start while secrets are set).',
  },
  {
    name: 'API_TOKENS',
    default: 'unset',
    meaning:
      'Static API tokens, `<token>:<role>[:<tenant>[:<YYYY-MM-DD>[:<app>|<app>...]]]`, comma separated; the token may be `sha256$<hex>`. Also `API_TOKENS_FILE`. Set but without one valid entry stops start-up.',
  },
  {
    name: 'API_ANONYMOUS_ROLE',
    default: 'unset',
    meaning: 'Role of callers with no credential when auth is on; only `viewer` is accepted.',
  },
  {
    name: 'OIDC_JWKS_URL',
    default: 'unset',
    meaning: 'JWKS of the identity provider; needs OIDC_ISSUER and OIDC_AUDIENCE.',
  },
  { name: 'OIDC_ISSUER', default: 'unset', meaning: 'Required `iss` of OIDC tokens.' },
  { name: 'OIDC_AUDIENCE', default: 'unset', meaning: 'Required `aud` of OIDC tokens.' },
  { name: 'OIDC_ROLE_CLAIM', default: 'role', meaning: 'Claim holding the role.' },
  {
    name: 'OIDC_TENANT_CLAIM',
    default: 'tenant',
    meaning: 'Claim holding the tenant the subject is bound to.',
  },
  {
    name: 'OIDC_APPS_CLAIM',
    default: 'apps',
    meaning: 'Claim holding the applications the subject is bound to.',
  },
  {
    name: 'OIDC_GROUPS_CLAIM',
    default: 'groups',
    meaning: 'Claim holding groups (a JSON array or a delimited string).',
  },
  {
    name: 'OIDC_GROUP_ROLES',
    default: 'unset',
    meaning: "`<group>=<role>,...`; the highest role among a subject's groups and its role claim wins.",
  },
  {
    name: 'OIDC_DEFAULT_ROLE',
    default: 'unset',
    meaning: 'Role for everyone the identity provider authenticates (warned at start).',
  },
  {
    name: 'OIDC_CLIENT_ID',
    default: 'unset',
    meaning: 'Public client id for the dashboard login (GET /auth/config).',
  },
  { name: 'OIDC_AUTHORIZE_URL', default: 'unset', meaning: 'Authorization endpoint for the PKCE login.' },
  {
    name: 'AUTH_CONFIG_LEGACY_MODE',
    default: 'false',
    meaning:
      "Deprecated, removed in 1.0: `true` makes `GET /auth/config` answer `mode` in the words before the spec's (`open`, `token`, `oidc`, `token+oidc`) instead of `none`, `token`, `both` (docs/security.md).",
  },
  { name: 'OIDC_TOKEN_URL', default: 'unset', meaning: 'Token endpoint for the PKCE login.' },
  { name: 'OIDC_LOGOUT_URL', default: 'unset', meaning: 'Logout endpoint for the dashboard.' },
  {
    name: 'INGEST_RATE_RPS',
    default: '50',
    meaning: 'Ingest requests per second per client IP (burst twice that).',
  },
  {
    name: 'API_RATE_RPS',
    default: '20',
    meaning: 'API requests per second per client IP (burst twice that).',
  },
  {
    name: 'GRAPHQL_MAX_ALIASES',
    default: '15',
    meaning:
      'Aliases one GraphQL operation may use (0 to 10000); more is refused with a 400 before any resolver runs. Aliases on heavy analyses are counted by their own cap of 20 per request instead (docs/analyses.md).',
  },
  {
    name: 'GRAPHQL_MAX_DEPTH',
    default: '10',
    meaning:
      'How deep one GraphQL operation may nest fields (1 to 1000; `__schema` introspection is left to the cost limit).',
  },
  {
    name: 'GRAPHQL_MAX_DIRECTIVES',
    default: '50',
    meaning: 'Directives (`@include`, `@skip`) one GraphQL operation may use (0 to 10000).',
  },
  {
    name: 'GRAPHQL_MAX_TOKENS',
    default: '2000',
    meaning: 'Tokens a GraphQL document may hold (100 to 1000000); counted before it is parsed.',
  },
  {
    name: 'GRAPHQL_MAX_COST',
    default: '250000',
    meaning:
      "Estimated values in one GraphQL answer (1 to 100000000): each field 1, a list times its length (`attackPaths`: the tenant's paths or `first`; a route: 6 nodes, 5 hops). A listing of 2,000 paths with their routes is about 130000.",
  },
  {
    name: 'GRAPHQL_MAX_PATHS',
    default: '10000',
    meaning:
      'Attack path records one GraphQL answer may carry, every field and alias together (1 to 10000000); page with `first`/`after`.',
  },
  {
    name: 'GRAPHQL_MAX_BODY_BYTES',
    default: '262144',
    meaning:
      'Bytes of one `POST /graphql` body (1024 to 33554432); a longer body is refused with a 413 while it is read, before it is parsed.',
  },
  {
    name: 'GRAPHQL_MAX_VARIABLES_BYTES',
    default: '65536',
    meaning:
      "Bytes of one GraphQL request's variables as JSON (0 to 33554432); more is refused with a 400 before they are coerced.",
  },
  {
    name: 'GRAPHQL_MAX_LIST_ITEMS',
    default: '100',
    meaning:
      'Entries of one list argument (`whatIf(cuts:)`), written in the document or passed as a variable (1 to 100000); more is refused with a 400 before execution.',
  },
  {
    name: 'GRAPHQL_MAX_ITERATIONS',
    default: '1000000',
    meaning:
      'Monte Carlo iterations one GraphQL request may ask for, every `riskSimulation` and `whatIf` (aliases included) together (1 to 100000000); more is refused with a 400 before execution.',
  },
  {
    name: 'ANALYSIS_DEADLINE',
    default: '30s',
    meaning:
      'How long a heavy analysis (`riskSimulation`, `whatIf`, `remediationPlan`, `kShortestPaths`) may wait for a slot and run; past it the worker is stopped and the request answered 503 `analysis-deadline`.',
  },
  {
    name: 'GRAPHQL_INTROSPECTION',
    default: 'unset (on only while API auth is off)',
    meaning: '`true` allows schema introspection under API auth; `false` refuses it even without auth.',
  },
  {
    name: 'AUTH_LOCKOUT_THRESHOLD',
    default: '10',
    meaning:
      'Failed authentications from one client IP within 5 minutes that lock it out for 15 minutes (429).',
  },
  {
    name: 'TRUSTED_PROXY_CIDRS',
    default: 'unset',
    meaning: 'Proxies whose `X-Forwarded-For` hops are believed, comma-separated CIDRs.',
  },
  {
    name: 'CORS_ALLOWED_ORIGINS',
    default: 'unset',
    meaning: 'Origins allowed to call the API from a browser (echoed, never `*`).',
  },
  {
    name: 'METRICS_ADDR',
    default: 'unset',
    meaning:
      "A separate listener for `/metrics` only, `host:port`; the only place per-tenant series (`tenant` label) are served (the API's `/metrics` sums them).",
  },
  {
    name: 'MAX_TENANTS',
    default: '100',
    meaning:
      'Tenants open (unsigned) ingest may create, 1 to 10000; a report for one more is refused (403 `tenant-limit`).',
  },
  {
    name: 'TLS_CERT_FILE',
    default: 'unset',
    meaning: 'PEM certificate: both listeners serve HTTPS (with TLS_KEY_FILE).',
  },
  { name: 'TLS_KEY_FILE', default: 'unset', meaning: 'PEM private key for TLS_CERT_FILE.' },
  {
    name: 'PG_ENV',
    default: 'unset',
    meaning: '`production` refuses to start unless both the API and ingest are authenticated.',
  },
  {
    name: 'AUDIT_LOG_PATH',
    default: 'unset (no audit log)',
    meaning: 'File of the hash-chained audit log; `pathgate verify-audit <file>` checks it.',
  },
  {
    name: 'AUDIT_RETENTION',
    default: 'unset (keep everything)',
    meaning:
      'How long audit records are kept (e.g. 2160h): older ones are pruned from the file chain and from the database chain (PostgreSQL) every sixth of the window (between 1h and 1d) and at start, an anchor (`<AUDIT_LOG_PATH>.anchor`, the `audit_anchor` table) keeping each chain verifiable; counted in `service_audit_pruned_records_total`.',
  },
  {
    name: 'STORE_ENCRYPTION_KEY',
    default: 'unset',
    meaning:
      '32-byte key (64 hex digits or base64) sealing the audit log and the governance stores (suppressions, validations, tickets, history) with AES-256-GCM. Also `STORE_ENCRYPTION_KEY_FILE`.',
  },
  {
    name: 'EXFIL_ALERT_THRESHOLD',
    default: 'unset (off)',
    meaning: 'Distinct attack paths one principal may read in an hour before an `exfil.alert` audit record.',
  },
  {
    name: 'PR_ATTRIBUTION',
    default: 'report',
    meaning:
      'How the merge gate attributes routes: `report` (what the PR report opens or worsens) or `commit` (every route through an asset stamped with the commit).',
  },
  {
    name: 'WEBHOOK_SECRET',
    default: 'unset (no GitHub app)',
    meaning:
      "Secret of the GitHub App's webhooks: turns the app on (docs/github-app.md). Also `WEBHOOK_SECRET_FILE`.",
  },
  {
    name: 'APP_ID',
    default: 'unset',
    meaning: "The GitHub App's id; without it (and PRIVATE_KEY) the app runs dry.",
  },
  {
    name: 'PRIVATE_KEY',
    default: 'unset',
    meaning: "The GitHub App's private key (PEM). Also `PRIVATE_KEY_FILE`.",
  },
  {
    name: 'FORGE_TOKEN',
    default: 'unset',
    meaning:
      'Token mode for teams that do not install the App: a token (fine-grained, or a PAT) with pull requests, issues and statuses write; verdicts for a pull request are posted with it. Also `FORGE_TOKEN_FILE`. Excludes APP_ID.',
  },
  {
    name: 'FORGE_API_URL',
    default: 'https://api.github.com',
    meaning: "GitHub's REST API; for GitHub Enterprise Server `https://<host>/api/v3` (or set GHE_HOST).",
  },
  {
    name: 'GHE_HOST',
    default: 'unset (github.com)',
    meaning:
      'GitHub Enterprise Server host, as Probot reads it: `ghe.example.com` means the API `https://ghe.example.com/api/v3` and registering the App there. Refused when FORGE_API_URL names another server.',
  },
  {
    name: 'WEBHOOK_PROXY_URL',
    default: 'unset',
    meaning:
      "Local development: a smee.io channel (as Probot uses it) whose webhooks are forwarded to this service's `/api/github/webhooks`. Needs WEBHOOK_SECRET.",
  },
  {
    name: 'REPO_ALLOWLIST',
    default: 'unset (no writes)',
    meaning:
      "Each tenant's repositories, the only ones the app may write to for it: `owner/repo` and `owner/*` (default tenant), `<tenant>:owner/repo` and `<tenant>:owner/*`, comma separated; a repository belongs to one tenant.",
  },
  {
    name: 'PUBLIC_URL',
    default: 'unset',
    meaning: 'Where people open pathgate: links in comments and statuses.',
  },
  {
    name: 'TICKET_WEBHOOK_URL',
    default: 'unset',
    meaning:
      "The default tenant's tickets, opened and closed, are POSTed here (`{event, tenant, ticket}`); other tenants' go to TICKET_WEBHOOK_URLS. No redirect is followed.",
  },
  {
    name: 'GOVERNANCE_BACKEND',
    default: 'file',
    meaning:
      'Where suppressions, validations, tickets and history live: `file` (under DATA_DIR, one replica) or `postgres` (in DB_DSN, which it requires; shared by every replica: a suppression made on one holds on all, docs/deployment.md). The `*_PATH` settings apply to `file` only.',
  },
  {
    name: 'SUPPRESSIONS_PATH',
    default: 'unset (DATA_DIR/governance/<tenant>/suppressions.json)',
    meaning:
      "File of the default tenant's suppressions (another tenant's sits beside it as `<name>.<tenant>.json`). Written whole, atomically.",
  },
  {
    name: 'VALIDATIONS_PATH',
    default: 'unset (DATA_DIR/governance/<tenant>/validations.json)',
    meaning: 'File of the validation verdicts (red team, BAS), as SUPPRESSIONS_PATH.',
  },
  {
    name: 'TICKETS_PATH',
    default: 'unset (DATA_DIR/governance/<tenant>/tickets.json)',
    meaning: 'File of the tickets, as SUPPRESSIONS_PATH.',
  },
  {
    name: 'HISTORY_PATH',
    default: 'unset (DATA_DIR/governance/<tenant>/history.json)',
    meaning:
      'File of the posture trend, the one trend store: a point whenever an analyzer pass changed the critical or open paths, their suppressions or the risk; GraphQL `history.trend` serves it. As SUPPRESSIONS_PATH.',
  },
  {
    name: 'EXPORT_SIGNING_KEY',
    default: 'unset (a key made and kept in DATA_DIR/keys/export-ed25519.pem)',
    meaning:
      'Ed25519 key signing exports (`X-Service-Signature`): PEM PKCS#8, or the 32-byte seed as 64 hex digits or base64. Also `EXPORT_SIGNING_KEY_FILE`.',
  },
  {
    name: 'DRIFT_WEBHOOK_URL',
    default: 'unset',
    meaning:
      'The default tenant\'s posture drift is POSTed here after an analyzer pass that changed its critical paths (`{event: "posture.drift", ...}`, docs/governance.md); other tenants\' go to DRIFT_WEBHOOK_URLS. No redirect is followed.',
  },
  {
    name: 'YAML_MAX_BYTES',
    default: '8MiB',
    meaning:
      'Largest YAML body taken (`/ingest/k8s` with `content-type: application/yaml`), in bytes or with `KiB`/`MiB`, at most 32MiB; larger is refused with 413. YAML is parsed on worker threads, about 1 MiB a second; send large reports as JSON.',
  },
  {
    name: 'OPENSEARCH_URL',
    default: 'unset (the search index in process)',
    meaning:
      'OpenSearch for the search index, `https://user:password@host:9200`: an index per tenant (`pathgate-search-<tenant>`), written in bulk after each analyzer pass and rebuilt from the graph at start (docs/search.md). A user:password in it is never logged.',
  },
  {
    name: 'BUS_URL',
    default: 'unset (the embedded journal)',
    meaning:
      'NATS JetStream as the bus, `nats://host:4222` (several comma separated): scale-out, docs/deployment.md. A user:password in it is never logged.',
  },
  {
    name: 'BUS_SUBJECT_PREFIX',
    default: 'service',
    meaning:
      'Subjects `<prefix>.events.<tenant>` (stream `<PREFIX>_EVENTS`) and `<prefix>.deadletter.<tenant>` (stream `<PREFIX>_DEADLETTER`).',
  },
  {
    name: 'BUS_MAX_AGE',
    default: '168h',
    meaning: 'How long the streams keep events, handled or not, and dead letters.',
  },
  {
    name: 'BUS_MAX_DELIVER',
    default: '5',
    meaning: 'Deliveries of an event that keeps failing before it moves to the dead-letter stream.',
  },
  {
    name: 'BUS_CONSUMER',
    default: 'unset: pathgate-<hostname>',
    meaning:
      "This replica's durable JetStream consumer; give each replica its own (each holds every tenant graph).",
  },
  {
    name: 'BUS_USER',
    default: 'unset',
    meaning: 'NATS user, with `BUS_PASSWORD` (also `BUS_PASSWORD_FILE`).',
  },
  {
    name: 'BUS_PASSWORD',
    default: 'unset',
    meaning: 'NATS password for `BUS_USER` (also `BUS_PASSWORD_FILE`); never logged.',
  },
  {
    name: 'BUS_TLS_CERT',
    default: 'unset',
    meaning: 'PEM client certificate presented to NATS, with `BUS_TLS_KEY`.',
  },
  {
    name: 'BUS_TLS_KEY',
    default: 'unset',
    meaning: 'PEM key of `BUS_TLS_CERT`.',
  },
  {
    name: 'BUS_TLS_CA',
    default: 'unset',
    meaning:
      'PEM file of the CA NATS is verified against; `BUS_TLS_CERT` and `BUS_TLS_KEY` present a client certificate.',
  },
  {
    name: 'DB_DSN',
    default: 'unset',
    meaning:
      "PostgreSQL, `postgres://user@host:5432/db` (also `DB_DSN_FILE`): leadership among replicas (a session advisory lock), shared snapshots, the leader's path records and gate verdicts, work followers hand to the leader, and governance with `GOVERNANCE_BACKEND=postgres`. Required with BUS_URL.",
  },
  {
    name: 'DB_SSLMODE',
    default: 'unset (as the DSN says)',
    meaning: '`disable`, `require` or `verify-full` for the PostgreSQL connection.',
  },
  {
    name: 'LEADER_POLL_INTERVAL',
    default: '2s',
    meaning:
      'How often a follower tries to take leadership, and the leader checks it still holds it: a dead leader is replaced within about twice this. The leader also takes the work followers hand it at this interval.',
  },
  {
    name: 'DEMO_DATA',
    default: 'true under npm start, false under pathgate serve',
    meaning: 'Load the demo estate when the graph is empty.',
  },
  ...SECURITY_SETTINGS_DOC,
  ...CONNECTOR_SETTINGS_DOC,
  ...AI_SETTINGS_DOC,
];

/** The settings table as Markdown, from SETTINGS_DOC (docs/configuration.md holds it, prettier-aligned). */
export function renderSettingsTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| variable | default | meaning |',
    '| --- | --- | --- |',
    ...SETTINGS_DOC.map((d) => `| \`${d.name}\` | ${cell(d.default)} | ${cell(d.meaning)} |`),
  ].join('\n');
}
