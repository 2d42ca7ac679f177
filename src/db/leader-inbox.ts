// Work a follower hands to the leader through PostgreSQL (the leader alone writes to GitHub): the gate
// verdicts a follower gives, so the pull request's comment and status follow them, and the GitHub webhooks a
// follower receives. No replica needs another's address: a follower inserts a row; the leader takes the
// oldest rows every poll, each under a row lock (`for update skip locked`), handles it and deletes it in the
// same transaction. A leader that dies mid-way leaves the row to the next leader: at least once, which the
// pull-request updates absorb (comments are upserted by their marker, statuses replaced). Each row carries a
// MAC (src/db/inbox-mac.ts) under the key the replicas share: a row without one, or with a wrong one (written
// straight into PostgreSQL), is refused: logged, counted and deleted, never handled (issue 31).
import type { Log } from '../log/logger.js';
import type pg from 'pg';
import { inboxMac, inboxMacValid } from './inbox-mac.js';
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
  /** rows refused for a missing or wrong MAC since start */
  refused = 0;

  constructor(
    private readonly db: Db,
    private readonly holder: string,
    private readonly log: Pick<Log, 'warn' | 'error'>,
    /** the MAC key every replica shares (src/db/inbox-mac.ts) */
    private readonly key: Buffer,
  ) {}

  /** Hands work to the leader; rejects when PostgreSQL cannot take it (the caller says so). */
  async put(kind: InboxKind, body: unknown): Promise<void> {
    await this.db.query({
      text: 'insert into leader_inbox (kind, body, handed_by, mac) values ($1, $2, $3, $4)',
      // The MAC is over the body as PostgreSQL will give it back (JSON, undefined fields dropped).
      values: [
        kind,
        JSON.stringify(body),
        this.holder,
        inboxMac(this.key, kind, this.holder, JSON.parse(JSON.stringify(body))),
      ],
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
        const { rows } = await client.query<{
          id: string;
          kind: InboxKind;
          body: unknown;
          handed_by: string;
          mac: string | null;
        }>(
          'select id, kind, body, handed_by, mac from leader_inbox order by id limit $1 for update skip locked',
          [BATCH],
        );
        for (const row of rows) {
          if (!(row.kind in handlers) || !inboxMacValid(this.key, row)) {
            this.refused++;
            this.log.error(
              { id: row.id, kind: row.kind, handedBy: row.handed_by, mac: row.mac ? 'wrong' : 'missing' },
              'leader inbox: row refused, its MAC does not match the replicas’ key (not written by a replica); deleted',
            );
            await client.query('delete from leader_inbox where id = $1', [row.id]);
            taken++;
            continue;
          }
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
