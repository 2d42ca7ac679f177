// Which replica runs the action layer (pull-request comments and statuses, Critical Attack Path events,
// connectors, webhooks): the leader. A single process is its own leader. Among replicas, the leader is
// whoever holds a PostgreSQL session-level advisory lock on a connection of its own (DECISIONS.md,
// "Deployment shapes"): the lock dies with the session, so a killed leader's lock is free at once and a
// follower polling every LEADER_POLL_INTERVAL takes over; a leader that cannot reach PostgreSQL stops
// leading at its next check, before another can have taken the lock for long.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Log } from '../log/logger.js';

export interface Leadership {
  isLeader(): boolean;
}

export const SINGLE_PROCESS_LEADER: Leadership = Object.freeze({ isLeader: () => true });

export interface AdvisoryLockOptions {
  /** postgres:// DSN (DB_DSN) */
  dsn: string;
  /** DB_SSLMODE: overrides what the DSN says */
  sslmode?: 'disable' | 'require' | 'verify-full';
  /** Names the lock; replicas of one deployment share it (the bus subject prefix). */
  name: string;
  /** Who this replica is (its bus consumer): the lock's session is `pathgate-leadership <holder>` in pg_stat_activity. */
  holder?: string;
  /** LEADER_POLL_INTERVAL */
  pollMs: number;
  log: Pick<Log, 'info' | 'warn' | 'error'>;
  /** Told when this replica becomes leader (true) or stops being it (false). */
  onChange?: (leader: boolean) => void;
}

/**
 * The replica holding the lock named `name` (its `holder`), from PostgreSQL's own view: what an operator asks
 * to learn who leads (docs/deployment.md).
 */
export const LEADER_QUERY = `select substr(a.application_name, 21) as holder from pg_locks l join pg_stat_activity a on a.pid = l.pid
  where l.locktype = 'advisory' and l.granted and ((l.classid::bigint << 32) | l.objid::bigint) = $1::bigint`;

/** The advisory lock key for a name: the first 8 bytes of its SHA-256, as PostgreSQL's signed bigint. */
export function lockKey(name: string): string {
  return createHash('sha256').update(`pathgate-leader:${name}`).digest().readBigInt64BE(0).toString();
}

export function pgClientConfig(dsn: string, sslmode?: AdvisoryLockOptions['sslmode']): pg.ClientConfig {
  const ssl =
    sslmode === undefined
      ? undefined
      : sslmode === 'disable'
        ? false
        : { rejectUnauthorized: sslmode === 'verify-full' };
  return { connectionString: dsn, ...(ssl !== undefined && { ssl }), keepAlive: true };
}

export class AdvisoryLockLeadership implements Leadership {
  private client: pg.Client | undefined;
  private leader = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lostAt = 0;
  private checking: Promise<void> = Promise.resolve();
  private readonly key: string;

  constructor(private readonly options: AdvisoryLockOptions) {
    this.key = lockKey(options.name);
  }

  isLeader(): boolean {
    return this.leader;
  }

  /** Tries once now (a failure to reach PostgreSQL rejects: the start is refused), then polls. */
  async start(): Promise<void> {
    await this.check(true);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.checking = this.check(false).finally(() => this.schedule());
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      ...pgClientConfig(this.options.dsn, this.options.sslmode),
      application_name: `pathgate-leadership ${this.options.holder ?? ''}`.trim().slice(0, 63),
      connectionTimeoutMillis: Math.max(1_000, this.options.pollMs),
      query_timeout: Math.max(1_000, this.options.pollMs),
    });
    // A broken session is a lost lock: stop leading now, reconnect at the next poll.
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.step(false, error);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    return client;
  }

  private async check(first: boolean): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.client) {
        const client = await this.connect();
        if (this.closed) {
          await client.end();
          return;
        }
        this.client = client;
      }
      const client = this.client;
      if (this.leader) {
        // Still our session, and still holding it (an operator may have terminated the backend).
        const held = await client.query<{ held: boolean }>(
          "select exists(select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted and ((classid::bigint << 32) | objid::bigint) = $1::bigint) as held",
          [this.key],
        );
        if (!held.rows[0]?.held) this.step(false);
      } else if (Date.now() - this.lostAt >= 2 * this.options.pollMs) {
        // A leader that just lost its session sits out two polls, so a healthy follower takes over
        // rather than the flapping one taking the lock straight back.
        const taken = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [
          this.key,
        ]);
        if (taken.rows[0]?.ok) this.step(true);
      }
    } catch (error) {
      const client = this.client;
      this.client = undefined;
      this.step(false, error as Error);
      client?.end().catch(() => undefined);
      if (first)
        throw new Error(`DB_DSN: cannot reach PostgreSQL for leadership (${(error as Error).message})`, {
          cause: error,
        });
    }
  }

  private step(leader: boolean, error?: Error): void {
    if (leader === this.leader) return;
    this.leader = leader;
    if (!leader) this.lostAt = Date.now();
    if (leader) this.options.log.info({ lock: this.key }, 'leadership: this replica is the leader');
    else
      this.options.log.warn(
        { err: error, lock: this.key },
        'leadership: this replica is no longer the leader (lock or connection lost)',
      );
    this.options.onChange?.(leader);
  }

  /** Releases the lock (closing the session) so another replica takes over at its next poll. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.checking.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.step(false);
    await client?.end().catch(() => undefined);
  }
}
