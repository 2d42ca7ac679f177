// Work a follower hands to the leader through PostgreSQL (the leader alone writes to GitHub): the gate
// verdicts a follower gives, so the pull request's comment and status follow them, and the GitHub webhooks a
// follower receives. No replica needs another's address: a follower inserts a row; the leader takes the
// oldest rows every poll, each under a row lock (`for update skip locked`), handles it and deletes it in the
// same transaction. A leader that dies mid-way leaves the row to the next leader: at least once, which the
// pull-request updates absorb (comments are upserted by their marker, statuses replaced).
import type { Log } from '../log/logger.js';
import type pg from 'pg';
import type { Db } from './postgres.js';

export type InboxKind = 'gate' | 'webhook';

export interface InboxHandlers {
  gate(body: unknown): Promise<void>;
  webhook(body: unknown): Promise<void>;
}

/** Rows taken per poll. */
const BATCH = 50;

export class LeaderInbox {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly holder: string,
    private readonly log: Pick<Log, 'warn' | 'error'>,
  ) {}

  /** Hands work to the leader; rejects when PostgreSQL cannot take it (the caller says so). */
  async put(kind: InboxKind, body: unknown): Promise<void> {
    await this.db.query({
      text: 'insert into leader_inbox (kind, body, handed_by) values ($1, $2, $3)',
      values: [kind, JSON.stringify(body), this.holder],
      // The caller is waiting (a gate request, a webhook): a slow database is an answer, not a hang.
      query_timeout: 5_000,
    } as pg.QueryConfig);
  }

  /** While `leading()`, takes and handles the rows every `pollMs`. */
  start(pollMs: number, leading: () => boolean, handlers: InboxHandlers): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = (leading() ? this.drain(handlers).then(() => undefined) : Promise.resolve())
        .catch((error: unknown) =>
          this.log.warn({ err: (error as Error).message }, 'leader inbox: could not read; trying again'),
        )
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, pollMs).unref();
        });
    };
    this.timer = setTimeout(tick, pollMs).unref();
  }

  /** Handles every waiting row, oldest first; returns the number handled. */
  async drain(handlers: InboxHandlers): Promise<number> {
    let handled = 0;
    for (;;) {
      const client = await this.db.connect();
      const ignore = () => undefined;
      client.on('error', ignore);
      let taken = 0;
      try {
        await client.query('begin');
        const { rows } = await client.query<{ id: string; kind: InboxKind; body: unknown }>(
          'select id, kind, body from leader_inbox order by id limit $1 for update skip locked',
          [BATCH],
        );
        for (const row of rows) {
          try {
            await handlers[row.kind](row.body);
          } catch (error) {
            // A row its handler refuses would block every later one: logged and dropped.
            this.log.error(
              { err: error, id: row.id, kind: row.kind },
              'leader inbox: could not handle a row',
            );
          }
          await client.query('delete from leader_inbox where id = $1', [row.id]);
          taken++;
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', ignore);
        client.release();
      }
      handled += taken;
      if (taken < BATCH) return handled;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
