// Scale-out composition (docs/deployment.md): with BUS_URL, the bus is NATS JetStream and this replica's
// leadership is a PostgreSQL advisory lock (DB_DSN); without, the embedded journal and a single leader.
import type { AuditLog } from '../src/audit/audit-log.js';
import type { Settings } from '../src/config/settings.js';
import { createJetStreamBus, redactUrl, streamNames } from '../src/bus/jetstream.js';
import type { Health } from '../src/engine/health.js';
import type { ScaleOutBus, SharedSnapshots } from '../src/engine/engine.js';
import { createDb, migrate, type Db } from '../src/db/postgres.js';
import { SnapshotTable } from '../src/db/snapshots.js';
import { PathRecordTable, type SharedPaths } from '../src/db/path-records.js';
import { verifyAuditTable } from '../src/db/audit-chain.js';
import type { AuditVerdict } from '../src/audit/verify.js';
import { AdvisoryLockLeadership, SINGLE_PROCESS_LEADER, type Leadership } from '../src/engine/leadership.js';
import type { Log } from '../src/log/logger.js';
import type { Metrics } from '../src/metrics/metrics.js';

export interface ScaleOut {
  leadership: Leadership;
  /** The broker bus factory the engine opens after restoring its snapshot; undefined: embedded. */
  bus?: (afterSeq: number) => Promise<ScaleOutBus>;
  /** Graph snapshots shared through PostgreSQL (DB_DSN). */
  sharedSnapshots?: SharedSnapshots;
  /** Path records and gate verdicts the leader shares through PostgreSQL (DB_DSN with BUS_URL). */
  sharedPaths?: SharedPaths;
  /** The pool, when DB_DSN is set (migrations applied). */
  db?: Db;
  close(): Promise<void>;
}

export async function openScaleOut(
  settings: Settings,
  log: Log,
  metrics: Metrics,
  health?: Health,
  /** The bus stopped for good (src/bus/jetstream.ts `onFatal`): the spec has the process exit. */
  onFatal?: (error: Error) => void,
): Promise<ScaleOut> {
  const scale = settings.scaleOut;
  metrics.brokerConnected.set(1);
  if (!scale) return { leadership: SINGLE_PROCESS_LEADER, close: async () => undefined };
  let leadership: Leadership = SINGLE_PROCESS_LEADER;
  let lock: AdvisoryLockLeadership | undefined;
  let db: Db | undefined;
  if (scale.db) {
    db = createDb(scale.db.dsn, scale.db.sslmode);
    try {
      const applied = await migrate(db);
      if (applied.length) log.info({ applied }, 'applied database migrations');
    } catch (error) {
      await db.end().catch(() => undefined);
      const why = graphStoreStrictness(settings);
      const cause = `DB_DSN=${JSON.stringify(redactUrl(scale.db.dsn))}: PostgreSQL cannot be reached (${(error as Error).message})`;
      if (why) throw new Error(`${cause}; the start is refused because ${why}`, { cause: error });
      // GRAPH_STRICT=false: serve from memory and the local store, in the reduced mode /healthz reports.
      log.error({ err: error }, `${cause}; serving from memory and DATA_DIR (GRAPH_STRICT=false)`);
      health?.reduce(
        'graph-store',
        'the graph store (DB_DSN) was unreachable at start: the graph is served from memory and DATA_DIR; restart once PostgreSQL is back',
      );
      return { leadership: SINGLE_PROCESS_LEADER, close: async () => undefined };
    }
    lock = new AdvisoryLockLeadership({
      dsn: scale.db.dsn,
      sslmode: scale.db.sslmode,
      // Replicas of one deployment share the bus prefix, and so the lock.
      name: scale.bus ? streamNames(scale.bus.subjectPrefix).events : 'embedded',
      pollMs: scale.leaderPollMs,
      holder: scale.bus?.consumer,
      log,
    });
    try {
      await lock.start();
    } catch (error) {
      await db.end().catch(() => undefined);
      throw error;
    }
    leadership = lock;
  }
  const busSettings = scale.bus;
  const bus =
    busSettings &&
    ((afterSeq: number) =>
      createJetStreamBus({
        url: busSettings.url,
        prefix: busSettings.subjectPrefix,
        maxAgeMs: busSettings.maxAgeMs,
        maxDeliver: busSettings.maxDeliver,
        consumer: busSettings.consumer,
        user: busSettings.user,
        password: busSettings.password,
        tls: busSettings.tls,
        afterSeq,
        logger: log,
        onFatal,
        onConnection: (up) => {
          metrics.brokerConnected.set(up ? 1 : 0);
          if (up) health?.restore('bus');
          else
            health?.reduce(
              'bus',
              'the bus (BUS_URL) connection is lost; reconnecting, ingest answers 503 meanwhile',
            );
        },
      }));
  return {
    leadership,
    bus,
    db,
    // Snapshots are shared among replicas of one stream; the embedded journal's stay local.
    sharedSnapshots: db && scale.bus ? new SnapshotTable(db) : undefined,
    // Replicas of one stream hold the same graphs, so they keep one path lifecycle: the leader's.
    sharedPaths: db && scale.bus ? new PathRecordTable(db) : undefined,
    close: async () => {
      await lock?.close();
      await db?.end().catch(() => undefined);
    },
  };
}

/**
 * Why an unreachable graph store must stop the start, or undefined when the process may serve from memory:
 * the spec's strict modes (GRAPH_STRICT=true, PG_ENV=production), and the shapes that cannot run without
 * the database (replicas on a bus need its lock to elect one leader; postgres governance keeps its records
 * there).
 */
export function graphStoreStrictness(settings: Settings): string | undefined {
  if (settings.graphStrict) return 'GRAPH_STRICT=true';
  if (settings.auth.production) return 'PG_ENV=production';
  if (settings.scaleOut?.bus) return 'BUS_URL is set: replicas elect their leader through PostgreSQL';
  if (settings.governance.backend === 'postgres') return 'GOVERNANCE_BACKEND=postgres keeps governance there';
  return undefined;
}

/** One audit record to both chains: this replica's file and the shared one in PostgreSQL. */
export function teeAudit(file: AuditSink, shared: AuditSink): AuditSink {
  return {
    append(event, entry) {
      file.append(event, entry);
      shared.append(event, entry);
    },
  };
}

export type AuditSink = Pick<AuditLog, 'append'>;

/** `pathgate verify-audit -postgres`: the shared chain's verdict, or why it cannot be read. */
export async function verifyPostgresAudit(settings: Settings): Promise<AuditVerdict | string> {
  const db = settings.scaleOut?.db;
  if (!db) return '-postgres needs DB_DSN';
  const pool = createDb(db.dsn, db.sslmode);
  try {
    await migrate(pool);
    return await verifyAuditTable(pool, settings.audit.key);
  } catch (error) {
    return `cannot read the audit chain in PostgreSQL (${(error as Error).message})`;
  } finally {
    await pool.end().catch(() => undefined);
  }
}
