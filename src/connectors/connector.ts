// The contract between a connector's source (what it pulls: AWS through its SDK, fixtures on disk) and the
// connector runtime (when it pulls, on which replica, and how the result reaches the bus). A source knows
// nothing of scheduling or ingest; the runtime knows nothing of clouds.

/** One report a pull yields: sent through the ingest pipeline like a pushed one, as a complete snapshot. */
export interface PulledReport {
  /** The ingest source whose normalizer reads `body` (`cloudnet`, `iam`, `custodian`, ...). */
  source: string;
  /** The snapshot scope, as `?snapshot=` takes it (`aws:<account_id>/<region>`). */
  scope: string;
  body: unknown;
}

/** What one account (or one fixtures directory) yielded. */
export interface AccountPull {
  account: string;
  reports: PulledReport[];
  /** API calls made for this account (for `GET /connectors` and the benchmark). */
  calls?: number;
}

/** An account whose role or calls failed: its previous snapshot stays, nothing is retracted. */
export interface AccountFailure {
  account: string;
  /** A message safe to show an operator: no credentials, no signed URLs. */
  error: string;
}

export interface PullResult {
  accounts: AccountPull[];
  failures: AccountFailure[];
}

/** A connector's source in one mode (`clouda` in `sdk` or `fixtures` mode, `cloudb` in `fixtures`). */
export interface ConnectorSource {
  /** The connector's name as `CONNECTORS_ENABLED` lists it. */
  readonly name: string;
  readonly mode: 'sdk' | 'fixtures';
  /** One pull of every account; per-account failures are reported, not thrown. */
  pull(signal: AbortSignal): Promise<PullResult>;
}
