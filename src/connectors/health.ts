// What `GET /connectors` answers: per connector, its last pull (when, how long, the result, the error) and
// when the next is due; per account, its last pull, its last success, its error and what it published.
// Kept in memory by the replica that pulls (the leader); a follower answers with `leader: false` and the
// runs it made while it led, if any.

export type RunResult = 'ok' | 'partial' | 'error' | 'skipped';

export interface AccountHealth {
  account: string;
  lastRunAt: string;
  /** the last pull whose reports were all accepted */
  lastSuccessAt: string | null;
  /** null when the last pull of this account published everything */
  lastError: string | null;
  /** nodes and edges its reports put on the bus at its last pull */
  events: number;
  /** reports (snapshots) accepted at its last pull */
  reports: number;
  /** API calls the source made for it (sdk mode) */
  calls: number | null;
}

export interface ConnectorHealth {
  name: string;
  mode: 'sdk' | 'fixtures';
  intervalSeconds: number;
  running: boolean;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  lastResult: RunResult | null;
  /** a pull that failed as a whole (the source threw); per-account errors are under `accounts` */
  lastError: string | null;
  lastSuccessAt: string | null;
  nextRunAt: string | null;
  runs: number;
  /** ticks skipped because the previous pull was still running */
  skipped: number;
  /** nodes and edges published since the start */
  events: number;
  accounts: AccountHealth[];
}

export class ConnectorHealthBook {
  private readonly byName = new Map<string, ConnectorHealth>();

  constructor(connectors: { name: string; mode: 'sdk' | 'fixtures' }[], intervalMs: number) {
    for (const c of connectors)
      this.byName.set(c.name, {
        name: c.name,
        mode: c.mode,
        intervalSeconds: intervalMs / 1000,
        running: false,
        lastRunAt: null,
        lastDurationMs: null,
        lastResult: null,
        lastError: null,
        lastSuccessAt: null,
        nextRunAt: null,
        runs: 0,
        skipped: 0,
        events: 0,
        accounts: [],
      });
  }

  get(name: string): ConnectorHealth {
    const health = this.byName.get(name);
    if (!health) throw new Error(`no connector ${name}`);
    return health;
  }

  /** The account's record, made on its first pull; accounts stay listed once seen. */
  account(name: string, account: string): AccountHealth {
    const health = this.get(name);
    let record = health.accounts.find((a) => a.account === account);
    if (!record) {
      record = {
        account,
        lastRunAt: '',
        lastSuccessAt: null,
        lastError: null,
        events: 0,
        reports: 0,
        calls: null,
      };
      health.accounts.push(record);
      health.accounts.sort((a, b) => a.account.localeCompare(b.account));
    }
    return record;
  }

  list(): ConnectorHealth[] {
    return [...this.byName.values()].map((h) => ({ ...h, accounts: h.accounts.map((a) => ({ ...a })) }));
  }
}
