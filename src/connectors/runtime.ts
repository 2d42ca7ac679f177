// The connector runtime: every CONNECTOR_INTERVAL, on the leader only, each enabled connector's source is
// pulled and every report it yields goes through the same ingest pipeline a pushed report takes (normalizer,
// scrubbing, chunks, bus), as a complete snapshot of its scope. An account the source reports as failed
// publishes nothing, so its previous snapshot stays (nothing is retracted); a report the pipeline refuses (an
// empty snapshot, a malformed body) is that account's error. A pull still running when the next tick comes
// makes that tick skip (counted), so two pulls of one connector never overlap. stop() aborts a running pull
// and waits for it.
import type { ConnectorSource } from './connector.js';
import { ConnectorHealthBook, type ConnectorHealth, type RunResult } from './health.js';
import type { ConnectorMetrics } from '../metrics/connector-metrics.js';
import type { IngestReceipt, IngestRequest } from '../engine/ingest-pipeline.js';
import { ProblemError } from '../http/problems.js';

/** Connectors write into the default tenant (docs/connectors.md, "Tenant"). */
export const CONNECTOR_TENANT = 'default';

export interface ConnectorRuntimeDeps {
  sources: ConnectorSource[];
  intervalMs: number;
  ingest: (request: IngestRequest) => Promise<IngestReceipt>;
  isLeader: () => boolean;
  metrics: ConnectorMetrics;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  now?: () => number;
}

export interface ConnectorsStatus {
  leader: boolean;
  tenant: string;
  connectors: ConnectorHealth[];
}

/** The account a scope names, when it is an AWS-style 12-digit id (`aws:123456789012/us-east-1`). */
function accountOfScope(scope: string): string | undefined {
  return /^[a-z][a-z0-9-]*:(\d{12})\//.exec(scope)?.[1];
}

function errorText(error: unknown): string {
  if (error instanceof ProblemError) return error.message;
  return (error as Error)?.message ?? String(error);
}

export class ConnectorRuntime {
  private readonly book: ConnectorHealthBook;
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly deps: ConnectorRuntimeDeps) {
    this.now = deps.now ?? Date.now;
    this.book = new ConnectorHealthBook(deps.sources, deps.intervalMs);
  }

  get enabled(): boolean {
    return this.deps.sources.length > 0;
  }

  /** Pulls now (when leading), then every interval. */
  start(): void {
    if (!this.enabled || this.stopped || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  /**
   * One scheduled tick: each connector not already pulling is pulled; one still pulling is skipped. A
   * follower does nothing. Resolves when the pulls this tick started have ended.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const next = new Date(this.now() + this.deps.intervalMs).toISOString();
    if (!this.deps.isLeader()) {
      for (const source of this.deps.sources) this.book.get(source.name).nextRunAt = next;
      return;
    }
    const started: Promise<void>[] = [];
    for (const source of this.deps.sources) {
      const health = this.book.get(source.name);
      health.nextRunAt = next;
      if (this.running.has(source.name)) {
        health.skipped++;
        this.deps.metrics.runs.inc({ connector: source.name, result: 'skipped' });
        this.deps.log.warn(
          { connector: source.name },
          'connector: the previous pull is still running; this one is skipped',
        );
        continue;
      }
      const run = this.run(source).finally(() => this.running.delete(source.name));
      this.running.set(source.name, run);
      started.push(run);
    }
    await Promise.all(started);
  }

  private async run(source: ConnectorSource): Promise<void> {
    const { metrics, log } = this.deps;
    const health = this.book.get(source.name);
    const startedAt = this.now();
    const at = new Date(startedAt).toISOString();
    health.running = true;
    health.lastRunAt = at;
    let result: RunResult = 'ok';
    let published = 0;
    try {
      const pull = await source.pull(this.abort.signal);
      for (const failure of pull.failures) {
        const record = this.book.account(source.name, failure.account);
        Object.assign(record, { lastRunAt: at, lastError: failure.error, events: 0, reports: 0 });
        result = 'partial';
        log.warn(
          { connector: source.name, account: failure.account, error: failure.error },
          'connector: account failed; its previous snapshot stays',
        );
      }
      for (const account of pull.accounts) {
        const record = this.book.account(source.name, account.account);
        let events = 0;
        let reports = 0;
        const errors: string[] = [];
        for (const report of account.reports) {
          if (this.abort.signal.aborted) break;
          const query: Record<string, string> = { snapshot: report.scope };
          const id = accountOfScope(report.scope);
          if (id !== undefined) query.account = id;
          try {
            const receipt = await this.deps.ingest({
              tenant: CONNECTOR_TENANT,
              source: report.source,
              body: report.body,
              query,
            });
            events += receipt.nodes + receipt.edges;
            reports++;
          } catch (error) {
            errors.push(`${report.source} ${report.scope}: ${errorText(error)}`);
          }
        }
        Object.assign(record, {
          lastRunAt: at,
          lastError: errors.length ? errors.join('; ') : null,
          events,
          reports,
          calls: account.calls ?? null,
        });
        if (!errors.length) record.lastSuccessAt = at;
        else {
          result = 'partial';
          log.warn(
            { connector: source.name, account: account.account, errors },
            'connector: reports refused',
          );
        }
        published += events;
      }
      if (result === 'partial' && published === 0) result = 'error';
      // No account at all (an empty fixtures folder, credentials that see none) is a misconfiguration, not a
      // success: the operator is told, and nothing was retracted.
      if (!pull.accounts.length && !pull.failures.length) {
        result = 'error';
        health.lastError = 'the pull yielded no account';
      } else health.lastError = null;
    } catch (error) {
      result = 'error';
      health.lastError = this.abort.signal.aborted
        ? 'stopped: the service is shutting down'
        : errorText(error);
      log.warn(
        { connector: source.name, err: error },
        'connector: pull failed; every previous snapshot stays',
      );
    } finally {
      const endedAt = this.now();
      health.running = false;
      health.runs++;
      health.lastDurationMs = endedAt - startedAt;
      health.lastResult = result;
      health.events += published;
      metrics.runs.inc({ connector: source.name, result });
      if (published) metrics.events.inc({ connector: source.name }, published);
      if (result === 'ok') {
        health.lastSuccessAt = at;
        metrics.lastSuccess.set({ connector: source.name }, endedAt / 1000);
      }
    }
    log.info(
      { connector: source.name, result, events: published, ms: health.lastDurationMs },
      'connector: pull done',
    );
  }

  status(): ConnectorsStatus {
    return { leader: this.deps.isLeader(), tenant: CONNECTOR_TENANT, connectors: this.book.list() };
  }

  /** Stops the timer, aborts a running pull and waits for it to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.abort.abort();
    await Promise.allSettled([...this.running.values()]);
  }
}
