// Issue 31 item 6: leader_inbox rows carry an HMAC under the key the replicas share (src/db/inbox-mac.ts).
// A row written straight into PostgreSQL (no MAC, or one made with another key, or a replica's row whose
// body was changed) is refused by the leader: logged, counted and deleted, never handed to a handler. A
// replica's own row is handled. Real PostgreSQL.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inboxKey, inboxMac } from '../../src/db/inbox-mac.js';
import { LeaderInbox } from '../../src/db/leader-inbox.js';
import { createDb, migrate, type Db } from '../../src/db/postgres.js';
import { describeWithServices, missingServices, schemaDsn } from '../helpers/services.js';

const reason = await missingServices({ postgres: true });

describeWithServices('leader_inbox rows are MACed (real PostgreSQL)', reason, () => {
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  let db: Db;
  const errors: unknown[] = [];
  const log = { warn: () => undefined, error: (o: unknown) => void errors.push(o) };
  const key = inboxKey('inbox-mac-webhook-secret-0123456789');
  const webhook = {
    id: 'forged-delivery',
    name: 'pull_request',
    payload: { action: 'opened', pull_request: { number: 8, head: { sha: 'a'.repeat(40) } } },
  };

  beforeAll(async () => {
    schema = await schemaDsn('mac');
    db = createDb(schema.dsn);
    await migrate(db);
  });
  afterAll(async () => {
    await db.end();
    await schema.drop();
  });

  it('handles a replica’s row and refuses rows written without the key, deleting them', async () => {
    const follower = new LeaderInbox(db, 'replica-b', log, key);
    const leader = new LeaderInbox(db, 'replica-a', log, key);
    await follower.put('webhook', webhook);
    // Written straight into PostgreSQL: no MAC; a MAC under another key; a replica's MAC over another body.
    const insert = (mac: string | null, body: unknown = webhook) =>
      db.query(
        "insert into leader_inbox (kind, body, handed_by, mac) values ('webhook', $1, 'replica-b', $2)",
        [JSON.stringify(body), mac],
      );
    await insert(null);
    await insert(inboxMac(inboxKey('another-secret'), 'webhook', 'replica-b', webhook));
    const changed = { ...webhook, payload: { ...webhook.payload, action: 'synchronize' } };
    await insert(inboxMac(key, 'webhook', 'replica-b', webhook), changed);
    const handled: unknown[] = [];
    const count = await leader.drain({
      gate: async (body) => void handled.push(body),
      webhook: async (body) => void handled.push(body),
    });
    expect(count).toBe(4);
    expect(handled).toEqual([webhook]);
    expect(leader.refused).toBe(3);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ kind: 'webhook', mac: 'missing' });
    expect(errors[1]).toMatchObject({ mac: 'wrong' });
    expect((await db.query('select count(*)::int as n from leader_inbox')).rows[0].n).toBe(0);
  });
});
