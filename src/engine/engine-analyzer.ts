// The engine's side of the analyzer: when passes run (every interval, or at the quiet moment after a burst of
// reports), in turns with snapshots, and each pass's path lifecycle changes made durable and shared. Split
// from engine.ts, which builds it and tells it of ingest requests and applied backlogs.
import type { PathFinder } from '../analysis/path-finder.js';
import type { Delivery } from '../bus/bus.js';
import type { DbPathFinder } from '../db/db-path-finder.js';
import type { Log } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PathLog } from '../paths/path-log.js';
import type { SearchService } from '../search/search-service.js';
import { runPass, type AnalyzerConfig } from './analyzer.js';
import type { IngestWorkers } from './ingest-workers.js';
import { afterPendingIo } from './io-turn.js';
import type { PathSharing } from './path-sharing.js';
import type { IngestActivity, TenantState } from './tenant.js';

export interface EngineAnalyzerDeps {
  tenants: ReadonlyMap<string, TenantState>;
  config: AnalyzerConfig & { analyzerIntervalMs: number };
  now: () => number;
  finder: PathFinder;
  /** ANALYZER_DB_PATHS: each pass's search run in PostgreSQL (src/db/db-path-finder.ts) */
  dbPaths?: DbPathFinder;
  pathLog: Pick<PathLog, 'append'>;
  pathSharing: Pick<PathSharing, 'sync' | 'passChanged'>;
  ingestWorkers: Pick<IngestWorkers, 'beforePass' | 'warm'>;
  search: Pick<SearchService, 'afterPass' | 'invalidate'>;
  /** The action layer on a tenant's pass (engine.ts): critical path events, commits re-judged. */
  afterPass: (state: TenantState) => void;
  /** the bus's newest record number: whether an applied record was the last of the backlog */
  bus: { lastSeq(): number };
  /** Whether the engine runs (between start and close): only then are passes scheduled. */
  running: () => boolean;
  metrics: Metrics;
  log: Log;
}

export type EngineAnalyzer = ReturnType<typeof createEngineAnalyzer>;

export function createEngineAnalyzer(deps: EngineAnalyzerDeps) {
  const { tenants, config, now, finder, dbPaths, pathLog, pathSharing, ingestWorkers, search, afterPass } =
    deps;
  const { bus, running, metrics, log } = deps;

  // Analyzer passes and snapshots both read whole tenants across awaits: they take turns.
  let turn: Promise<unknown> = Promise.resolve();
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  }

  // The analyzer: every interval, only for tenants whose graph changed. A scheduled pass waits for a quiet
  // moment in the tenant's writes (at most ten intervals); an explicit call runs every stale tenant.
  const quietMs = Math.min(1000, config.analyzerIntervalMs);
  const ingestActivity: IngestActivity = { receiving: 0, lastAt: 0 };
  // Ten intervals, and never less than a minute: a pass on a half-written large estate is wasted work.
  const maxWaitMs = Math.max(10 * config.analyzerIntervalMs, 60_000);
  function analyzeAll(options: { force?: boolean; scheduled?: boolean } = {}): Promise<void> {
    return exclusive(async () => {
      // Scale-out: the leader's path lifecycle first (a follower keeps up; a new leader takes it over).
      const shared = await pathSharing.sync();
      if (shared === 'wait') return;
      // A replica that has just taken the lifecycle over analyses every tenant from it now.
      const every = options.force || shared === 'took-over';
      for (const state of tenants.values()) {
        // An edge true only until a date that has passed is retracted: the tenant is stale again and the
        // pass re-judges its paths (DECISIONS "Time conditions", src/graph/truth-expiry.ts).
        state.writer.expireTimed(now());
        if (!every && !state.stale) continue;
        if (
          options.scheduled &&
          !every &&
          !state.due(now(), quietMs, maxWaitMs, ingestActivity, {
            everyMs: config.analyzerIntervalMs,
            seedIamUsers: config.seedIamUsers,
          })
        )
          continue;
        // An idle ingest worker gives its heap back before the pass needs the memory (report-pool.ts). Its
        // thread tears the heap down while the pass compiles: waiting for that put about 50 ms between a
        // burst's last write and its paths (docs/perf.md, "The wait after a burst's last write").
        void ingestWorkers.beforePass().catch((error: unknown) => {
          log.warn({ err: error }, 'could not stop an idle ingest worker before a pass');
        });
        try {
          const consumed = await runPass(state, { finder, metrics, config, now, dbPaths });
          await logPathChanges(state);
          afterPass(state);
          await search.afterPass(state, consumed);
        } catch (error) {
          // The changes the pass took are lost to the search index too: it is rebuilt next time.
          search.invalidate(state.name);
          log.error({ tenant: state.name, err: error }, 'analyzer pass failed');
        }
      }
      if (options.scheduled) armQuietCheck();
      // A fresh ingest worker warms up for the next large report, in place of one the pass released.
      if (running()) void ingestWorkers.warm();
    });
  }

  // Between interval ticks, one more check is armed for the moment a stale tenant's writes will have
  // paused, so paths are ready as soon as a burst of reports is in rather than up to an interval later.
  // It never brings a tenant's passes closer together than the interval.
  let quietCheck: NodeJS.Timeout | undefined;
  function armQuietCheck(): void {
    if (!running() || ingestActivity.receiving) return;
    let wake = Infinity;
    for (const state of tenants.values()) {
      if (!state.stale) continue;
      const quietAt = Math.max(state.lastWriteAt, ingestActivity.lastAt) + quietMs;
      wake = Math.min(wake, Math.max(quietAt, (state.lastPass?.at ?? 0) + config.analyzerIntervalMs));
    }
    if (wake === Infinity) return;
    clearTimeout(quietCheck);
    quietCheck = setTimeout(() => void analyzeAll({ scheduled: true }), Math.max(10, wake - now())).unref();
  }

  /** Makes a pass's path lifecycle changes durable before its events go out. */
  async function logPathChanges(state: TenantState): Promise<void> {
    // The pass's paths are in the store already: requests that waited behind the pass (a status poll, a
    // query) are answered first, not after the changes are copied out of the live arrays (20-70 ms for
    // 2,000 new paths; their lines are then written in pieces, path-log.ts). Nothing but a pass, and this
    // is its turn, changes the records or the arrays their routes point into meanwhile.
    if (state.paths.hasChanges()) await afterPendingIo();
    const changes = state.paths.takeChanges();
    try {
      await pathLog.append(state.name, changes);
    } catch (error) {
      log.error(
        { tenant: state.name, err: error },
        'could not log path lifecycle changes; the next snapshot keeps them',
      );
    }
    await pathSharing.passChanged(state, changes);
  }

  return {
    /** Runs `work` once the turn before it (a pass or a snapshot) is over. */
    exclusive,
    analyzeAll,
    /** The ingest listener calls this when a request starts (true) and when its answer is sent (false). */
    receiving(started: boolean): void {
      ingestActivity.receiving = Math.max(0, ingestActivity.receiving + (started ? 1 : -1));
      ingestActivity.lastAt = now();
      if (!started) armQuietCheck();
    },
    /**
     * The embedded journal's backlog is applied up to `d`, at `appliedAt`. The quiet wait before a
     * scheduled pass is about reports arriving, not about applying them: the last write counts from when
     * its report came in (a large report's records are applied well after its 202, and another quiet period
     * after that apply was dead time before paths were ready). Only after the event loop has polled once
     * more (setImmediate): a next request waiting behind the apply is seen arriving first.
     */
    backlogApplied(state: TenantState, d: Pick<Delivery, 'seq' | 'receivedAt'>, appliedAt: number): void {
      setImmediate(() => {
        if (state.lastWriteAt !== appliedAt || bus.lastSeq() !== d.seq || ingestActivity.receiving) return;
        state.lastWriteAt = Math.min(appliedAt, d.receivedAt);
        armQuietCheck();
      });
    },
    /** At close: no quiet check any more; resolves once the turn in progress is over. */
    stop(): Promise<unknown> {
      clearTimeout(quietCheck);
      return turn;
    },
  };
}
