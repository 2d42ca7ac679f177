// The engine: tenants' graphs fed by the bus, the analyzer loop, and durable state (snapshot + journal).
// Start-up restores the last snapshot, replays the journal after it, then runs a first pass, so a
// restart loses nothing that ingest acknowledged.
import path from 'node:path';
import type { Bus, Delivery } from '../bus/bus.js';
import { createEmbeddedBus } from '../bus/memory.js';
import { writeSnapshot } from '../bus/snapshot-file.js';
import { openStore } from '../bus/store.js';
import { createPathFinder, type PathFinder } from '../analysis/path-finder.js';
import type { DbPathFinder } from '../db/db-path-finder.js';
import { warmUp } from '../analysis/warm-up.js';
import { warmUpIngest } from '../ingest/warm-up.js';
import { ProblemError } from '../http/problems.js';
import { BatchTracker } from '../ingest/batches.js';
import { createSources } from '../ingest/sources/index.js';
import type { IngestSource } from '../ingest/sources/source.js';
import type { Log } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { PathLog } from '../paths/path-log.js';
import type { PriorityThresholds } from '../paths/path-store.js';
import type { AnalyzerConfig } from './analyzer.js';
import {
  createIngestPipeline,
  sourceNamed,
  type IngestReceipt,
  type IngestRequest,
} from './ingest-pipeline.js';
import { checkStateFormat, restoreState, serializeState, STATE_FORMAT } from './state-snapshot.js';
import { TENANT_NAME, TenantState } from './tenant.js';
import { VerdictStore } from '../gate/verdicts.js';
import type { SharedPaths } from '../db/path-records.js';
import { isCritical, routeNodes, type PathRecord, type SuppressionNote } from '../paths/path-store.js';
import { SINGLE_PROCESS_LEADER, type Leadership } from './leadership.js';
import { createPathSharing } from './path-sharing.js';
import { createIngestWorkers, pendingWrites } from './ingest-workers.js';
import { createEngineGate, type HandedVerdict } from './engine-gate.js';
import { readBrokerSnapshot, type SharedSnapshots } from './broker-snapshot.js';
import { createEngineAnalyzer } from './engine-analyzer.js';

export type { DecidedGate, HandedVerdict } from './engine-gate.js';
export type { SharedSnapshots } from './broker-snapshot.js';
import { Health } from './health.js';
import { createIntelHook } from '../intel/engine-intel.js';
import type { IntelSettings } from '../intel/threat-intel.js';
import { loadSignatureTrust, type SignatureTrustSettings } from '../ingest/signatures/trust.js';
import { EmbeddedSearchIndex } from '../search/embedded-index.js';
import type { SearchIndex } from '../search/search-index.js';
import { SearchService } from '../search/search-service.js';

export interface EngineConfig extends AnalyzerConfig {
  dataDir: string;
  analyzerIntervalMs: number;
  analyzerThreads: number;
  scrubIngest: boolean;
  parkedTtlMs: number;
  snapshotIntervalMs: number;
  thresholds: PriorityThresholds;
  /** THREATINTEL*: KEV and EPSS applied to CVEs (src/intel/) */
  threatIntel?: IntelSettings;
  /** Start even when acknowledged records are known lost, keeping copies aside (`verify-store -repair`). */
  storeRepair?: boolean;
  /** GRAPH_SWEEP: complete snapshots retract what they omit (default true). */
  graphSweep?: boolean;
  /** SIGSTORE_TRUSTED_ROOT, ATTESTATION_PUBLIC_KEYS: what provenance signatures verify against */
  signatures?: SignatureTrustSettings;
  /** INGEST_THREADS: worker threads preparing large report bodies; 0 or unset: none */
  ingestThreads?: number;
  /** Every large body to a worker, graph writes pending or not (tests of the worker's path). */
  ingestWorkersAlways?: boolean;
}

export interface EngineDeps {
  config: EngineConfig;
  log: Log;
  metrics: Metrics;
  now?: () => number;
  sources?: ReadonlyMap<string, IngestSource>;
  /** Whether this replica runs the action layer (comments, statuses, events); default: always. */
  leadership?: Leadership;
  /** The suppression that holds for a path at an instant (src/governance/suppressions.ts), if any. */
  suppression?: (tenant: string, pathId: string, at: number) => SuppressionNote | undefined;
  /**
   * A broker bus instead of the embedded journal (scale-out: src/bus/jetstream.ts), opened to deliver the
   * records after `afterSeq`, the restored snapshot's stream sequence. The snapshot is read from
   * DATA_DIR/state alone; the broker keeps the records.
   */
  bus?: (afterSeq: number) => Promise<ScaleOutBus>;
  /**
   * Snapshots shared by the replicas (PostgreSQL, src/db/snapshots.ts): the start takes the newest of it
   * and the local one; the leader writes one beside each local snapshot.
   */
  sharedSnapshots?: SharedSnapshots;
  /**
   * Path records and gate verdicts shared by the replicas (PostgreSQL, src/db/path-records.ts): the leader
   * writes its path lifecycle changes and gate reports; followers read them, and one that takes over
   * continues from them.
   */
  sharedPaths?: SharedPaths;
  /** On a follower: hands a gate verdict for a pull request to the leader (src/db/leader-inbox.ts). */
  handOff?: (handed: HandedVerdict) => Promise<void>;
  /**
   * ANALYZER_DB_PATHS: the graph kept in PostgreSQL and each pass's search run there (src/db/db-path-finder.ts),
   * made from the engine's in-process finder, which it falls back to.
   */
  dbPaths?: (fallback: PathFinder) => DbPathFinder;
  /** The reduced modes `/healthz` reports (src/engine/health.ts); one is made when not given. */
  health?: Health;
  /** Where search documents live (OPENSEARCH_URL: src/search/opensearch-index.ts); in process by default. */
  searchIndex?: SearchIndex;
}

/** What the engine needs of a broker bus beyond the Bus contract. */
export type ScaleOutBus = Bus & {
  lastSeq(): number;
  compact(uptoSeq: number): Promise<void>;
  /** The embedded bus's backlog (EmbeddedBus.backlogBytes); a broker's is not known here. */
  backlogBytes?(): number;
};

export type Engine = Awaited<ReturnType<typeof createEngine>>;

export async function createEngine(deps: EngineDeps) {
  const { config, log, metrics } = deps;
  const now = deps.now ?? Date.now;
  const health = deps.health ?? new Health(now);
  const tenants = new Map<string, TenantState>();
  // Batch progress is kept at least as long as an edge may wait for its endpoint (issue 13, item 11).
  const batches = new BatchTracker({ retainMs: config.parkedTtlMs });
  const finder: PathFinder = createPathFinder({ threads: config.analyzerThreads });
  const dbPaths = deps.dbPaths?.(finder);
  const stateDir = path.join(config.dataDir, 'state');
  // Each tenant's search index, kept after every pass (src/search/search-service.ts).
  const search = new SearchService(
    deps.searchIndex ?? new EmbeddedSearchIndex(),
    (name) => tenants.get(name),
    log,
  );

  const tenant = (name: string): TenantState => {
    let state = tenants.get(name);
    if (!state) {
      state = new TenantState(name, {
        log,
        parkedTtlMs: config.parkedTtlMs,
        thresholds: config.thresholds,
        onDrop: (reason, n) => metrics.graphDropped.inc({ reason }, n),
      });
      // One definition of critical (isCritical) everywhere: the store's pass counts ask the same.
      const suppression = deps.suppression;
      if (suppression) state.paths.suppressed = (id) => suppression(name, id, now()) !== undefined;
      tenants.set(name, state);
    }
    return state;
  };

  // 1. The store: the newest intact snapshot (a damaged one falls back on the previous one or on the
  // journal alone when that suffices) and a journal checked to hold every record after it; known loss
  // stops the start unless the operator asked for a repair (src/bus/store.ts, docs/operations.md).
  const store = deps.bus
    ? { snapshot: await readBrokerSnapshot(stateDir, log, deps.sharedSnapshots), journal: undefined }
    : await openStore({ dataDir: config.dataDir, repair: config.storeRepair, log });
  let snapshotSeq = 0;
  const snapshot = store.snapshot;
  if (snapshot) {
    try {
      checkStateFormat(snapshot.meta.format, stateDir);
      await restoreState(snapshot.lines, tenant, batches);
    } catch (error) {
      // A start that stops here lets go of the journal it opened: a process that goes on may open it again.
      await store.journal?.close();
      throw error;
    }
    snapshotSeq = snapshot.meta.seq;
    log.info({ seq: snapshotSeq, tenants: tenants.size }, 'restored graph snapshot');
  }

  // 1b. Path lifecycle changes since that snapshot, so a crash keeps first_seen and reopens.
  const pathLog = await PathLog.open(
    stateDir,
    typeof snapshot?.meta.paths === 'number' ? snapshot.meta.paths : undefined,
    (entry) => tenant(entry.t).paths.restore(entry.r as Parameters<TenantState['paths']['restore']>[0]),
  );
  if (pathLog.recovery.cutBytes || pathLog.recovery.skipped)
    log.warn(
      { file: pathLog.file, ...pathLog.recovery },
      'path log: cut off a torn final write or skipped unreadable lines',
    );
  else if (pathLog.recovery.replayed)
    log.info({ replayed: pathLog.recovery.replayed }, 'replayed path lifecycle changes');

  // Threat intel: CVEs get KEV and EPSS as they arrive (loaded below, once the graph is restored).
  const intel = createIntelHook({
    settings: config.threatIntel,
    dataDir: config.dataDir,
    log,
    metrics,
    tenants: () => tenants.entries(),
  });

  // 2. The journal after it; then live records. A snapshot in progress holds delivery back.
  const bus: ScaleOutBus = deps.bus
    ? await deps.bus(snapshotSeq)
    : await createEmbeddedBus({
        dir: path.join(config.dataDir, 'journal'),
        journal: store.journal,
        afterSeq: snapshotSeq,
        logger: log,
      });
  let appliedSeq = snapshotSeq;
  let hold: Promise<void> | null = null;
  /** Set once the analyzer runs (start): a backlog applied then arms the quiet-moment check. */
  let analyzing = false;
  // INGEST_THREADS: large report bodies are prepared on workers, which make the default sources (sources a
  // caller made stay on the event loop); graph writes wait while such a body is read.
  const ingestWorkers = createIngestWorkers({
    threads: deps.sources ? 0 : (config.ingestThreads ?? 0),
    seedIamUsers: config.seedIamUsers ?? false,
    always: config.ingestWorkersAlways === true,
    pendingWriteBytes: () => pendingWrites(bus.lastSeq(), appliedSeq, bus.backlogBytes?.bind(bus)),
  });
  bus.consume(async (d: Delivery) => {
    if (hold) await hold;
    const reading = ingestWorkers.holdWrites();
    if (reading) await reading;
    const state = tenant(d.tenant);
    state.writer.apply(d.envelope, d.receivedAt, d.scope);
    intel.applied(d.tenant, state, d.envelope);
    if (d.scope !== undefined && d.chunk === d.chunks - 1) {
      const swept = state.writer.completeScope(d.scope, { retract: config.graphSweep !== false });
      const retracted = swept.nodes + swept.edges + swept.parked;
      metrics.graphSweeps.inc({
        tenant: d.tenant,
        source: d.ingestSource,
        result: config.graphSweep === false ? 'off' : retracted ? 'retracted' : 'unchanged',
      });
      if (swept.nodes) metrics.graphSwept.inc({ tenant: d.tenant, kind: 'node' }, swept.nodes);
      if (swept.edges) metrics.graphSwept.inc({ tenant: d.tenant, kind: 'edge' }, swept.edges);
      if (swept.parked) metrics.graphSwept.inc({ tenant: d.tenant, kind: 'parked' }, swept.parked);
      if (retracted)
        log.info({ tenant: d.tenant, scope: d.scope, ...swept }, 'complete snapshot retracted what it omits');
      else if (swept.kept)
        log.info(
          { tenant: d.tenant, scope: d.scope, kept: swept.kept },
          'complete snapshot omits what its scope held before; kept (GRAPH_SWEEP=false)',
        );
    }
    const appliedAt = now();
    state.lastWriteAt = appliedAt;
    if (!state.firstWriteAt) state.firstWriteAt = appliedAt;
    batches.delivered(d, appliedAt);
    appliedSeq = d.seq;
    // Once the embedded journal's backlog is applied, the quiet wait before a scheduled pass counts from
    // when its report came in (engine-analyzer.ts). On a broker bus (another clock, no backlog known) it
    // counts from the apply.
    if (!deps.bus && analyzing && d.seq >= bus.lastSeq()) analyzer.backlogApplied(state, d, appliedAt);
  });
  await bus.drain();
  if (appliedSeq > snapshotSeq) log.info({ replayedUpTo: appliedSeq }, 'replayed journal');
  // Every record numbered so far is in (numbering may go on past the snapshot's seq, and a repair skips
  // what was lost): the next snapshot covers up to here.
  appliedSeq = Math.max(appliedSeq, bus.lastSeq());

  await intel.start();

  const sources =
    deps.sources ??
    createSources({
      seedIamUsers: config.seedIamUsers,
      signatures: config.signatures && loadSignatureTrust(config.signatures),
    });
  const ingestOne = createIngestPipeline({
    sources,
    bus,
    batches,
    metrics,
    scrub: config.scrubIngest,
    now,
    health,
    workers: ingestWorkers.pool,
  });

  async function ingest(request: IngestRequest): Promise<IngestReceipt> {
    if (!TENANT_NAME.test(request.tenant)) {
      throw new ProblemError(
        'invalid-query',
        `tenant ${JSON.stringify(request.tenant)} is not a valid tenant name`,
        {
          errors: [
            {
              pointer: '/headers/x-tenant',
              value: request.tenant,
              detail: 'lowercase letters, digits, - and _; at most 63',
            },
          ],
        },
      );
    }
    return ingestOne(request);
  }

  function takeSnapshot(): Promise<void> {
    return analyzer.exclusive(snapshotNow);
  }

  async function snapshotNow(): Promise<void> {
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    try {
      // The consumer applies a record synchronously right after checking `hold`, so none is half-applied
      // here; one already released by an earlier hold runs in this microtask turn. From here no record is
      // applied until release. Keep the consumer's apply synchronous, or this stops holding.
      await Promise.resolve();
      const seq = appliedSeq;
      if (seq === snapshotSeq && !pathLog.pending) return;
      const pathEpoch = pathLog.epoch;
      const { previousSeq } = await writeSnapshot(
        stateDir,
        { seq, format: STATE_FORMAT, writtenAt: new Date(now()).toISOString(), paths: pathEpoch },
        serializeState(tenants, { tracker: batches, now: now() }),
      );
      snapshotSeq = seq;
      // The leader shares it (PostgreSQL); a failure there costs new replicas a longer read of the stream.
      if (deps.sharedSnapshots && leadership.isLeader())
        await deps.sharedSnapshots
          .write(
            { seq, format: STATE_FORMAT, writtenAt: new Date(now()).toISOString() },
            serializeState(tenants, { tracker: batches, now: now() }),
          )
          .catch((error: unknown) => log.error({ err: error }, 'could not share the graph snapshot'));
      await pathLog.compact(pathEpoch);
      // Segments stay until the previous snapshot covers them, so a damaged snapshot can fall back on it.
      await bus.compact(previousSeq ?? 0);
      log.info({ seq }, 'wrote graph snapshot and compacted the journal');
    } finally {
      hold = null;
      release();
    }
  }

  const timers: NodeJS.Timeout[] = [];
  let running = false;
  function start(): void {
    running = true;
    analyzing = true;
    // The ingest worker boots and warms up now, beside this thread's warm-up (ingestWorkersReady).
    void ingestWorkers.warm();
    // In the background: a pass that starts meanwhile simply queues behind it on the workers.
    warmUp(finder).catch((error: unknown) => log.warn({ err: error }, 'analyzer warm-up failed'));
    // Before the start is reported: the first real report then runs optimized code (src/ingest/warm-up.ts).
    try {
      log.debug({ ms: Math.round(warmUpIngest(sources)) }, 'ingest path warmed up');
    } catch (error) {
      log.warn({ err: error }, 'ingest warm-up failed');
    }
    timers.push(
      setInterval(() => void analyzer.analyzeAll({ scheduled: true }), config.analyzerIntervalMs).unref(),
    );
    timers.push(
      setInterval(() => {
        takeSnapshot().catch((error: unknown) =>
          log.error({ err: error }, 'snapshot failed; the journal still holds everything'),
        );
      }, config.snapshotIntervalMs).unref(),
    );
  }

  function refreshGauges(): void {
    for (const state of tenants.values()) {
      const labels = { tenant: state.name };
      metrics.graphNodes.set(labels, state.graph.order);
      metrics.graphEdges.set(labels, state.graph.size);
      metrics.graphPendingEdges.set(labels, state.writer.pendingEdges);
      // A suppression made or expired since the last pass changes the count without a pass.
      let critical = 0;
      for (const record of state.paths.open()) if (isCritical(record, state.paths.suppressed)) critical++;
      metrics.analyzerCriticalPaths.set(labels, critical);
    }
  }

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    running = false;
    for (const t of timers) clearInterval(t);
    await analyzer.stop();
    await bus.drain();
    try {
      await takeSnapshot();
    } catch (error) {
      log.error({ err: error }, 'final snapshot failed; the journal still holds everything');
    }
    await bus.close();
    await pathLog.close();
    await finder.close();
    await ingestWorkers.close();
    await dbPaths?.settle();
    await search.close();
  }

  const verdicts = new VerdictStore(config.dataDir);
  // The action layer on analyzer passes (leader-only): a Critical Attack Path event for each new critical
  // route, and commits attributed by their stamped assets re-judged when the paths changed, so the pull
  // request's comments and status follow (the GitHub app listens to verdicts).
  const leadership = deps.leadership ?? SINGLE_PROCESS_LEADER;
  const pathSharing = createPathSharing({
    shared: deps.sharedPaths,
    leadership,
    tenant,
    tenants: () => tenants.values(),
    verdicts,
    log,
  });
  const criticalListeners: ((event: CriticalPathEvent) => void)[] = [];
  const passListeners: ((tenantName: string) => void)[] = [];
  // The gate's side (engine-gate.ts): evaluations, verdicts, commits re-judged after passes.
  const gate = createEngineGate({
    tenants,
    sources,
    finder,
    config,
    now,
    suppression: deps.suppression,
    verdicts,
    leadership,
    pathSharing,
    handOff: deps.handOff,
    metrics,
    log,
  });
  function afterPass(state: TenantState): void {
    const outcome = state.lastPass?.outcome;
    if (!outcome || !leadership.isLeader()) return;
    for (const listener of passListeners) listener(state.name);
    for (const id of [...outcome.fresh, ...outcome.escalated]) {
      const record = state.paths.get(id);
      if (!record || !isCritical(record, state.paths.suppressed)) continue;
      const nodes = routeNodes(record);
      const event: CriticalPathEvent = {
        tenant: state.name,
        pathId: id,
        start: nodes[0].name,
        target: nodes.at(-1)!.name,
        score: record.score,
        reopened: record.reopens > 0,
      };
      metrics.criticalPathEvents.inc({ tenant: state.name });
      log.warn({ event: 'critical_attack_path', ...event }, 'new critical attack path');
      for (const listener of criticalListeners) listener(event);
    }
    if (!outcome.fresh.length && !outcome.escalated.length && !outcome.resolved) return;
    gate.rejudge(state.name);
  }

  // 3. The analyzer (engine-analyzer.ts): every interval, only for tenants whose graph changed, at a quiet
  // moment in their writes; passes and snapshots take turns.
  const analyzer = createEngineAnalyzer({
    tenants,
    config,
    now,
    finder,
    dbPaths,
    pathLog,
    pathSharing,
    ingestWorkers,
    search,
    afterPass,
    bus,
    running: () => running,
    metrics,
    log,
  });

  /** Throws the 404 problem for a source segment no normalizer handles. */
  function assertSource(name: string): void {
    sourceNamed(sources, name);
  }

  return {
    ingest,
    assertSource,
    /** src/engine/ingest-workers.ts: which large bodies the listener leaves unparsed for a worker */
    defersBody: ingestWorkers.defersBody,
    readingBody: ingestWorkers.readingBody,
    /** Resolves once the ingest worker (INGEST_THREADS) is warmed up; at once without one. */
    ingestWorkersReady: ingestWorkers.warm,
    /** Threat intel by hand (`pathgate intel`, POST /intel): applied to every tenant's CVEs now. */
    loadIntel: (text: string, source: string) => intel.load(text, source),
    threatIntel: intel,
    gateImpact: gate.gateImpact,
    /** A commit's gate result over all its reports (the worst verdict; routes from every report's view). */
    latestGate: (tenantName: string, sha: string) => verdicts.view(tenantName, sha),
    forgetPullRequest: gate.forgetPullRequest,
    /** On the leader: a gate verdict a follower handed over (src/db/leader-inbox.ts). */
    receiveHandedVerdict: gate.receiveHandedVerdict,
    onVerdict: gate.onVerdict,
    /** Called after each analyzer pass of a tenant (leader only): the drift webhook and posture history. */
    onPass(listener: (tenantName: string) => void): void {
      passListeners.push(listener);
    },
    /** Whether this replica runs the action layer now (always, unless scale-out: src/engine/leadership.ts). */
    isLeader: () => leadership.isLeader(),
    /** Called for every new critical route an analyzer pass finds (leader only). */
    onCriticalPath(listener: (event: CriticalPathEvent) => void): void {
      criticalListeners.push(listener);
    },
    prVerdict: (tenantName: string, sha: string) => verdicts.get(tenantName, sha),
    /** Every commit's verdict in the tenant, newest first (GraphQL gateVerdicts). */
    gateVerdicts: (tenantName: string) => verdicts.list(tenantName),
    /** The ingest listener calls this when a request starts (true) and when its answer is sent (false). */
    receiving: analyzer.receiving,
    tenant: (name: string) => tenants.get(name),
    tenants: () => tenants.values(),
    /** Search over each tenant's nodes, findings and paths (`search.search(tenant, query, options)`). */
    search,
    /** The reduced modes the engine serves in now (`/healthz`, GraphQL `status.reduced`). */
    health,
    /** DECISIONS.md "critical": P1 and not suppressed now (the one definition, `isCritical`). */
    isCritical: (tenantName: string, record: PathRecord) =>
      isCritical(record, tenants.get(tenantName)?.paths.suppressed),
    /** The suppression holding for a path now, if any. */
    suppressionOf: (tenantName: string, pathId: string) => deps.suppression?.(tenantName, pathId, now()),
    batches,
    analyzeAll: analyzer.analyzeAll,
    drain: () => bus.drain(),
    takeSnapshot,
    refreshGauges,
    start,
    close,
  };
}

/** A new critical route (spec "Events": Critical Attack Path event). */
export interface CriticalPathEvent {
  tenant: string;
  pathId: string;
  start: string;
  target: string;
  score: number;
  reopened: boolean;
}
