// Reading the audit chain back (GET /audit, app/routes/audit.ts): the records of the file log
// (AUDIT_LOG_PATH) or of the shared chain in PostgreSQL (src/db/audit-chain.ts), opened with
// STORE_ENCRYPTION_KEY when sealed, and the chain's verification (`pathgate verify-audit`'s walk).
import { existsSync, readFileSync } from 'node:fs';
import { verifyAuditTable } from '../db/audit-chain.js';
import type { Db } from '../db/postgres.js';
import type { AuditRecord } from './audit-log.js';
import { isSealed, open } from './cipher.js';
import { verifyAuditFile, type AuditVerdict } from './verify.js';

export interface AuditReader {
  /** Which chain: `file` or `postgres`. */
  readonly backend: 'file' | 'postgres';
  /** Every readable record, oldest first; a record that cannot be read is left out (verify() names it). */
  records(): Promise<AuditRecord[]>;
  /** The whole chain walked from its anchor: intact, or the first record that breaks it. */
  verify(): Promise<AuditVerdict>;
}

function parse(line: string, key: Buffer | undefined): AuditRecord | undefined {
  try {
    return JSON.parse(key && isSealed(line) ? open(key, line) : line) as AuditRecord;
  } catch {
    return undefined;
  }
}

export function fileAuditReader(file: string, key: Buffer | undefined): AuditReader {
  return {
    backend: 'file',
    async records() {
      if (!existsSync(file)) return [];
      const out: AuditRecord[] = [];
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        const record = parse(line, key);
        if (record) out.push(record);
      }
      return out;
    },
    async verify() {
      return existsSync(file) ? verifyAuditFile(file, key) : { ok: true, records: 0 };
    },
  };
}

export function pgAuditReader(
  db: Db,
  key: Buffer | undefined,
  /** resolves once the records this process appended are written (PgAuditChain.flush) */
  flush: () => Promise<void> = async () => undefined,
): AuditReader {
  return {
    backend: 'postgres',
    async records() {
      await flush();
      const { rows } = await db.query<{ line: string }>('select line from audit_chain order by seq');
      const out: AuditRecord[] = [];
      for (const row of rows) {
        const record = parse(row.line, key);
        if (record) out.push(record);
      }
      return out;
    },
    async verify() {
      await flush();
      return verifyAuditTable(db, key);
    },
  };
}
