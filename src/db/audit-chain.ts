// The audit chain in PostgreSQL (DB_DSN), shared by the replicas: the same records, hashes and sealing as
// the file log (src/audit/audit-log.ts), one row each. Appends from every replica are serialized by a
// transaction-scoped advisory lock, so the chain has one order and no fork. `pathgate verify-audit
// -postgres` walks it as `verify-audit <file>` walks a file.
import { GENESIS, recordHash, type AuditEvent, type AuditRecord } from '../audit/audit-log.js';
import { isSealed, open, seal } from '../audit/cipher.js';
import type { AuditVerdict } from '../audit/verify.js';
import type { Db } from './postgres.js';

export interface AuditEntry {
  subject: string;
  tenant?: string | null;
  fields?: Record<string, unknown>;
}

export class PgAuditChain {
  private chain: Promise<void> = Promise.resolve();
  private failures = 0;

  constructor(
    private readonly db: Db,
    private readonly key: Buffer | undefined,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Queues the record; records of this process land in the order they were appended. */
  append(event: AuditEvent, entry: AuditEntry): void {
    const at = this.now();
    this.chain = this.chain
      .then(() => this.write(event, entry, at))
      .catch((error: unknown) => {
        this.failures++;
        this.onError(error);
      });
  }

  /** Resolves once every record appended so far is written (or failed, and was reported). */
  async flush(): Promise<void> {
    await this.chain;
  }

  get failed(): number {
    return this.failures;
  }

  private async write(event: AuditEvent, entry: AuditEntry, at: number): Promise<void> {
    const client = await this.db.connect();
    // A connection lost between two queries is an 'error' event on the client, not a rejected query:
    // without a listener it would take the process down; the next query rejects and is reported.
    const lost = () => undefined;
    client.on('error', lost);
    try {
      await client.query('begin');
      await client.query("select pg_advisory_xact_lock(hashtext('pathgate-audit-chain'))");
      // The chain goes on from its last record or, when retention pruned every one, from the anchor.
      const { rows } = await client.query<{ seq: string; hash: string }>(
        `select seq, hash from audit_chain
         union all select seq, hash from audit_anchor where id
         order by seq desc limit 1`,
      );
      const prev = rows[0]?.hash ?? GENESIS;
      const body: Omit<AuditRecord, 'hash'> = {
        seq: rows[0] ? Number(rows[0].seq) + 1 : 1,
        ts: new Date(at).toISOString(),
        event,
        subject: entry.subject,
        tenant: entry.tenant ?? null,
        fields: entry.fields ?? {},
        prev,
      };
      const hash = recordHash(prev, body);
      const line = JSON.stringify({ ...body, hash });
      await client.query('insert into audit_chain (seq, ts, line, hash) values ($1, $2, $3, $4)', [
        body.seq,
        body.ts,
        this.key ? seal(this.key, line) : line,
        hash,
      ]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', lost);
      client.release();
    }
  }
}

/**
 * AUDIT_RETENTION on the shared chain: removes the records older than `now - retentionMs` under the chain's
 * lock, in the same transaction as the anchor (the last removed record's seq and hash) the chain left is
 * verified from; returns how many went. The prune is then recorded in the chain (`audit.pruned`) by the
 * caller's auditor, as the file chain's is.
 */
export async function pruneAuditTable(
  db: Db,
  key: Buffer | undefined,
  retentionMs: number,
  now: number,
): Promise<{ pruned: number; throughSeq?: number; throughHash?: string }> {
  const client = await db.connect();
  const lost = () => undefined; // as in PgAuditChain.write
  client.on('error', lost);
  try {
    await client.query('begin');
    await client.query("select pg_advisory_xact_lock(hashtext('pathgate-audit-chain'))");
    const cutoff = new Date(now - retentionMs).toISOString();
    const { rows } = await client.query<{ seq: string; line: string; hash: string; ts: Date; n: string }>(
      `select seq, line, hash, ts, (select count(*) from audit_chain where ts < $1) as n
         from audit_chain where ts < $1 order by seq desc limit 1`,
      [cutoff],
    );
    const last = rows[0];
    if (!last) {
      await client.query('commit');
      return { pruned: 0 };
    }
    // The record must read back (an encrypted chain needs its key) before anything is removed.
    const record = JSON.parse(key && isSealed(last.line) ? open(key, last.line) : last.line) as AuditRecord;
    if (record.hash !== last.hash) throw new Error(`audit chain record ${last.seq} does not match its hash`);
    const pruned = Number(last.n);
    await client.query(
      `insert into audit_anchor (id, seq, hash, ts, pruned_at, pruned_total) values (true, $1, $2, $3, $4, $5)
       on conflict (id) do update set seq = excluded.seq, hash = excluded.hash, ts = excluded.ts,
         pruned_at = excluded.pruned_at, pruned_total = audit_anchor.pruned_total + excluded.pruned_total`,
      [last.seq, last.hash, last.ts, new Date(now).toISOString(), pruned],
    );
    await client.query('delete from audit_chain where seq <= $1', [last.seq]);
    await client.query('commit');
    return { pruned, throughSeq: Number(last.seq), throughHash: last.hash };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', lost);
    client.release();
  }
}

/** Walks the chain in seq order, from the retention anchor if any; names the first record that breaks it. */
export async function verifyAuditTable(db: Db, key?: Buffer): Promise<AuditVerdict> {
  const { rows } = await db.query<{ seq: string; line: string; hash: string }>(
    'select seq, line, hash from audit_chain order by seq',
  );
  const anchor = (
    await db.query<{ seq: string; hash: string }>('select seq, hash from audit_anchor where id')
  ).rows[0];
  let prev = anchor?.hash ?? GENESIS;
  let expectedSeq = anchor ? Number(anchor.seq) + 1 : 1;
  let records = 0;
  for (const [index, row] of rows.entries()) {
    const broken = (seq: number | null, problem: string): AuditVerdict => ({
      ok: false,
      records,
      line: index + 1,
      seq,
      problem,
    });
    let text = row.line;
    if (isSealed(text)) {
      if (!key) return broken(Number(row.seq), 'the record is encrypted; set STORE_ENCRYPTION_KEY');
      try {
        text = open(key, text);
      } catch {
        return broken(Number(row.seq), 'cannot be decrypted with this key (altered, or another key)');
      }
    } else if (key) return broken(Number(row.seq), 'not encrypted, in an encrypted chain');
    let record: AuditRecord;
    try {
      record = JSON.parse(text) as AuditRecord;
    } catch {
      return broken(Number(row.seq), 'not JSON');
    }
    const { hash, ...body } = record;
    if (record.seq !== Number(row.seq) || record.seq !== expectedSeq)
      return broken(Number(row.seq), `sequence ${record.seq}, expected ${expectedSeq}`);
    if (record.prev !== prev)
      return broken(
        record.seq,
        records === 0 && anchor
          ? 'prev does not match the anchor of the pruned records (records removed after the anchor)'
          : 'prev does not match the previous record (removed or reordered)',
      );
    if (recordHash(prev, body) !== hash || row.hash !== hash)
      return broken(record.seq, 'hash does not match its contents (edited)');
    prev = hash;
    expectedSeq++;
    records++;
  }
  return anchor ? { ok: true, records, prunedThrough: Number(anchor.seq) } : { ok: true, records };
}
