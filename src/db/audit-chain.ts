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
    try {
      await client.query('begin');
      await client.query("select pg_advisory_xact_lock(hashtext('pathgate-audit-chain'))");
      const { rows } = await client.query<{ seq: string; hash: string }>(
        'select seq, hash from audit_chain order by seq desc limit 1',
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
      client.release();
    }
  }
}

/** Walks the chain in seq order; names the first record that breaks it (as verifyAuditFile does). */
export async function verifyAuditTable(db: Db, key?: Buffer): Promise<AuditVerdict> {
  const { rows } = await db.query<{ seq: string; line: string; hash: string }>(
    'select seq, line, hash from audit_chain order by seq',
  );
  let prev = GENESIS;
  let expectedSeq = 1;
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
      return broken(record.seq, 'prev does not match the previous record (removed or reordered)');
    if (recordHash(prev, body) !== hash || row.hash !== hash)
      return broken(record.seq, 'hash does not match its contents (edited)');
    prev = hash;
    expectedSeq++;
    records++;
  }
  return { ok: true, records };
}
