// GOVERNANCE_BACKEND=postgres: suppressions, validation verdicts, tickets and the posture history in
// PostgreSQL (DB_DSN), shared by every replica (src/db/migrations/002_governance.sql).
//
// Each replica holds every tenant's records in memory, as the file backend does, so the analyzer's
// question "is this path suppressed?" never waits on the database. The copy is kept current three ways:
// - its own writes: a write is made in PostgreSQL first and reaches the copy only once committed;
// - other replicas' writes: each write bumps the (tenant, kind) revision and sends a NOTIFY, on which the
//   replicas listening reload that tenant and kind (milliseconds);
// - a poll of the revisions every few seconds, for notifications missed while a listener reconnected;
// and the REST reads of the boards (`refresh`) compare the revision first, so a board read on any replica
// shows a write acknowledged on another one.
//
// No lost update: a write locks its (tenant, kind) revision row, reads the records as stored, applies the
// change to them (not to the replica's copy, which may be a moment old) and commits; a second replica's
// write waits for the lock and sees the first one's records. Rules like "one open ticket per path" are
// checked inside that lock. A database that cannot be reached fails the write with GovernanceUnavailable
// (HTTP 503): nothing is written anywhere, nothing is queued to be written later.
import pg from 'pg';
import { isSealed, open, seal } from '../audit/cipher.js';
import { pgClientConfig } from '../engine/leadership.js';
import type { Log } from '../log/logger.js';
import {
  GOVERNANCE_KINDS,
  GovernanceUnavailable,
  type Change,
  type DocumentStore,
  type GovernanceBackend,
  type GovernanceKind,
} from './store.js';

/** The NOTIFY channel; the payload names the schema, so deployments sharing a database ignore each other. */
export const GOVERNANCE_CHANNEL = 'pathgate_governance';
/** How often the revisions are compared, besides notifications. */
export const DEFAULT_GOVERNANCE_POLL_MS = 5_000;

export interface PgBackendOptions {
  dsn: string;
  sslmode?: 'disable' | 'require' | 'verify-full';
  /** STORE_ENCRYPTION_KEY: each record sealed with AES-256-GCM, as in the file backend */
  key?: Buffer;
  log: Pick<Log, 'info' | 'warn' | 'error'>;
  pollMs?: number;
}

interface Held {
  revision: number;
  /** grows with every change of `items` */
  version: number;
  items: unknown[];
}

/** A record's key in its kind: the one thing two versions of it share. */
function keyOf(kind: GovernanceKind, item: unknown): string {
  const record = item as Record<string, unknown>;
  const key = kind === 'suppressions' ? record.pathId : kind === 'history' ? record.at : record.id;
  if (typeof key !== 'string' || !key) throw new Error(`a ${kind} record without its key`);
  return key;
}

function unavailable(error: unknown, doing: string): GovernanceUnavailable {
  if (error instanceof GovernanceUnavailable) return error;
  return new GovernanceUnavailable(
    `the governance store (PostgreSQL, DB_DSN) could not ${doing}: ${(error as Error).message}`,
    { cause: error },
  );
}

/** A connection lost while a client is checked out is reported by the query that fails, not as a crash. */
function ignoreLoss(): void {}

/** A pool client with the loss of its connection reported through its queries only. */
async function checkout(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  client.on('error', ignoreLoss);
  return client;
}

function checkin(client: pg.PoolClient, broken?: Error): void {
  client.off('error', ignoreLoss);
  client.release(broken);
}

export async function openPgGovernanceBackend(options: PgBackendOptions): Promise<GovernanceBackend> {
  const config = pgClientConfig(options.dsn, options.sslmode);
  // Its own small pool with timeouts: a write waits seconds for a lost database, not minutes, then answers 503.
  const pool = new pg.Pool({
    ...config,
    max: 3,
    connectionTimeoutMillis: 5_000,
    query_timeout: 10_000,
    application_name: 'pathgate-governance',
  });
  pool.on('error', () => undefined);
  const held = new Map<string, Held>();
  const slot = (kind: GovernanceKind, tenant: string) => `${kind}\u0000${tenant}`;
  let schema: string;
  try {
    schema = (await pool.query<{ s: string }>('select current_schema() as s')).rows[0].s;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(
      `GOVERNANCE_BACKEND=postgres: cannot reach PostgreSQL (DB_DSN): ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }

  const decode = (kind: GovernanceKind, tenant: string, doc: string): unknown => {
    let json = doc;
    if (isSealed(doc)) {
      if (!options.key)
        throw new Error(
          `governance ${kind} of tenant ${tenant} in PostgreSQL are encrypted and STORE_ENCRYPTION_KEY is not set`,
        );
      try {
        json = open(options.key, doc);
      } catch {
        throw new Error(
          `governance ${kind} of tenant ${tenant} in PostgreSQL could not be decrypted with STORE_ENCRYPTION_KEY (another key, or altered)`,
        );
      }
    }
    return JSON.parse(json);
  };
  const encode = (json: string): string => (options.key ? seal(options.key, json) : json);

  const install = (kind: GovernanceKind, tenant: string, revision: number, items: unknown[]) => {
    const was = held.get(slot(kind, tenant));
    held.set(slot(kind, tenant), { revision, version: (was?.version ?? 0) + 1, items });
  };

  /** Every tenant's records of every kind, as one consistent read (start-up). */
  const loadAll = async (): Promise<void> => {
    const client = await checkout(pool);
    try {
      await client.query('begin isolation level repeatable read read only');
      const revisions = await client.query<{ tenant: string; kind: GovernanceKind; revision: string }>(
        'select tenant, kind, revision from governance_revisions',
      );
      const rows = await client.query<{ tenant: string; kind: GovernanceKind; doc: string }>(
        'select tenant, kind, doc from governance_records order by tenant, kind, position',
      );
      await client.query('commit');
      const items = new Map<string, unknown[]>();
      for (const row of rows.rows) {
        const key = slot(row.kind, row.tenant);
        let list = items.get(key);
        if (!list) items.set(key, (list = []));
        list.push(decode(row.kind, row.tenant, row.doc));
      }
      for (const r of revisions.rows)
        install(r.kind, r.tenant, Number(r.revision), items.get(slot(r.kind, r.tenant)) ?? []);
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      checkin(client);
    }
  };

  /** One tenant and kind read again, when its revision moved past the copy's. */
  const reload = async (kind: GovernanceKind, tenant: string): Promise<void> => {
    const client = await checkout(pool);
    try {
      await client.query('begin isolation level repeatable read read only');
      const revision = await client.query<{ revision: string }>(
        'select revision from governance_revisions where tenant = $1 and kind = $2',
        [tenant, kind],
      );
      const rows = await client.query<{ doc: string }>(
        'select doc from governance_records where tenant = $1 and kind = $2 order by position',
        [tenant, kind],
      );
      await client.query('commit');
      const stored = Number(revision.rows[0]?.revision ?? 0);
      // A write of this replica's may have landed meanwhile: never go back to an older revision.
      if (stored > (held.get(slot(kind, tenant))?.revision ?? 0))
        install(
          kind,
          tenant,
          stored,
          rows.rows.map((r) => decode(kind, tenant, r.doc)),
        );
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      checkin(client);
    }
  };

  const stale = (kind: GovernanceKind, tenant: string, revision: number) =>
    revision > (held.get(slot(kind, tenant))?.revision ?? 0);

  try {
    await loadAll();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(
      `GOVERNANCE_BACKEND=postgres: cannot read the governance records: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }

  // Other replicas' writes: LISTEN on a connection of its own, reconnected by the poll when it is lost.
  let listener: pg.Client | undefined;
  let closed = false;
  const listen = async (): Promise<void> => {
    const client = new pg.Client({
      ...config,
      connectionTimeoutMillis: 5_000,
      application_name: 'pathgate-governance-listen',
    });
    client.on('error', () => {
      if (listener === client) listener = undefined;
      void client.end().catch(() => undefined);
    });
    client.on('end', () => {
      if (listener === client) listener = undefined;
    });
    client.on('notification', (message) => {
      try {
        const note = JSON.parse(message.payload ?? '') as {
          s: string;
          t: string;
          k: GovernanceKind;
          r: number;
        };
        if (note.s !== schema || !GOVERNANCE_KINDS.includes(note.k) || !stale(note.k, note.t, note.r)) return;
        reload(note.k, note.t).catch((error: unknown) =>
          options.log.warn({ err: error, tenant: note.t, kind: note.k }, 'governance: could not reload'),
        );
      } catch {
        // Not one of ours.
      }
    });
    await client.connect();
    await client.query(`listen ${GOVERNANCE_CHANNEL}`);
    if (closed) await client.end();
    else listener = client;
  };
  const poll = async (): Promise<void> => {
    if (!listener) await listen();
    const { rows } = await pool.query<{ tenant: string; kind: GovernanceKind; revision: string }>(
      'select tenant, kind, revision from governance_revisions',
    );
    for (const r of rows) if (stale(r.kind, r.tenant, Number(r.revision))) await reload(r.kind, r.tenant);
  };
  await listen().catch((error: unknown) =>
    options.log.warn({ err: error }, 'governance: cannot listen for other replicas’ writes yet; polling'),
  );
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    poll()
      .catch((error: unknown) =>
        options.log.warn(
          { err: (error as Error).message },
          'governance: PostgreSQL unreachable; keeping the copy held',
        ),
      )
      .finally(() => (polling = false));
  }, options.pollMs ?? DEFAULT_GOVERNANCE_POLL_MS).unref();

  const documentsOf = <T>(kind: GovernanceKind): DocumentStore<T> => ({
    load: (tenant) => (held.get(slot(kind, tenant))?.items ?? []) as T[],
    version: (tenant) => held.get(slot(kind, tenant))?.version ?? 0,
    async refresh(tenant) {
      try {
        const { rows } = await pool.query<{ revision: string }>(
          'select revision from governance_revisions where tenant = $1 and kind = $2',
          [tenant, kind],
        );
        if (stale(kind, tenant, Number(rows[0]?.revision ?? 0))) await reload(kind, tenant);
      } catch (error) {
        throw unavailable(error, `be read`);
      }
    },
    async mutate<R>(tenant: string, change: Change<T, R>) {
      let client: pg.PoolClient;
      try {
        client = await checkout(pool);
      } catch (error) {
        throw unavailable(error, 'be reached; nothing was written');
      }
      let changeFailed = false;
      let broken: Error | undefined;
      try {
        await client.query('begin');
        await client.query(
          'insert into governance_revisions (tenant, kind) values ($1, $2) on conflict do nothing',
          [tenant, kind],
        );
        const locked = await client.query<{ revision: string }>(
          'select revision from governance_revisions where tenant = $1 and kind = $2 for update',
          [tenant, kind],
        );
        let revision = Number(locked.rows[0].revision);
        const rows = await client.query<{ key: string; doc: string }>(
          'select key, doc from governance_records where tenant = $1 and kind = $2 order by position',
          [tenant, kind],
        );
        const storedJson = new Map<string, string>();
        const current: T[] = rows.rows.map((r) => {
          const item = decode(kind, tenant, r.doc) as T;
          storedJson.set(r.key, JSON.stringify(item));
          return item;
        });
        let outcome: { next: readonly T[]; result: R };
        try {
          outcome = change(current);
        } catch (error) {
          changeFailed = true;
          throw error;
        }
        const next = new Map<string, T>();
        for (const item of outcome.next) next.set(keyOf(kind, item), item);
        let changed = false;
        for (const key of storedJson.keys()) {
          if (next.has(key)) continue;
          await client.query('delete from governance_records where tenant = $1 and kind = $2 and key = $3', [
            tenant,
            kind,
            key,
          ]);
          changed = true;
        }
        for (const [key, item] of next) {
          const json = JSON.stringify(item);
          if (storedJson.get(key) === json) continue;
          await client.query(
            `insert into governance_records (tenant, kind, key, doc) values ($1, $2, $3, $4)
             on conflict (tenant, kind, key) do update set doc = excluded.doc`,
            [tenant, kind, key, encode(json)],
          );
          changed = true;
        }
        if (changed) {
          revision = Number(
            (
              await client.query<{ revision: string }>(
                'update governance_revisions set revision = revision + 1 where tenant = $1 and kind = $2 returning revision',
                [tenant, kind],
              )
            ).rows[0].revision,
          );
          await client.query('select pg_notify($1, $2)', [
            GOVERNANCE_CHANNEL,
            JSON.stringify({ s: schema, t: tenant, k: kind, r: revision }),
          ]);
        }
        await client.query('commit');
        // The stored order: records kept where they were, new ones after them.
        const items = [...next.values()];
        const order = new Map([...storedJson.keys()].map((k, i) => [k, i]));
        items.sort(
          (a, b) => (order.get(keyOf(kind, a)) ?? Infinity) - (order.get(keyOf(kind, b)) ?? Infinity),
        );
        if (changed || stale(kind, tenant, revision)) install(kind, tenant, revision, items);
        return { items: (held.get(slot(kind, tenant))?.items ?? []) as T[], result: outcome.result };
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        if (changeFailed) throw error;
        // A connection that failed is not handed out again.
        broken = error as Error;
        throw unavailable(error, 'store the change; nothing was written');
      } finally {
        checkin(client, broken);
      }
    },
  });

  const stores = new Map<GovernanceKind, DocumentStore<unknown>>();
  return {
    name: 'postgres',
    locate: (kind, tenant) => `postgres:governance_records (tenant ${tenant}, kind ${kind})`,
    documents<T>(kind: GovernanceKind): DocumentStore<T> {
      let store = stores.get(kind);
      if (!store) stores.set(kind, (store = documentsOf<unknown>(kind)));
      return store as DocumentStore<T>;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await listener?.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
