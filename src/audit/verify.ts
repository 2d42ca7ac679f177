// `pathgate verify-audit <file>`: walks the chain and names the first record that breaks it.
import { readFileSync } from 'node:fs';
import { GENESIS, recordHash, type AuditRecord } from './audit-log.js';
import { isSealed, open } from './cipher.js';

export type AuditVerdict =
  | { ok: true; records: number }
  | { ok: false; records: number; line: number; seq: number | null; problem: string };

export function verifyAuditFile(file: string, key?: Buffer): AuditVerdict {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  let prev = GENESIS;
  let expectedSeq = 1;
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const broken = (seq: number | null, problem: string): AuditVerdict => ({
      ok: false,
      records: index,
      line,
      seq,
      problem,
    });
    let text = raw;
    if (isSealed(raw)) {
      if (!key) return broken(null, 'the record is encrypted; set STORE_ENCRYPTION_KEY');
      try {
        text = open(key, raw);
      } catch {
        return broken(null, 'cannot be decrypted with this key (altered, or another key)');
      }
    } else if (key) return broken(null, 'not encrypted, in an encrypted log');
    let record: AuditRecord;
    try {
      record = JSON.parse(text) as AuditRecord;
    } catch {
      return broken(null, 'not JSON');
    }
    const { hash, ...body } = record;
    if (record.seq !== expectedSeq)
      return broken(record.seq ?? null, `sequence ${record.seq}, expected ${expectedSeq}`);
    if (record.prev !== prev)
      return broken(record.seq, 'prev does not match the previous record (removed or reordered)');
    if (recordHash(prev, body) !== hash)
      return broken(record.seq, 'hash does not match its contents (edited)');
    prev = hash;
    expectedSeq++;
  }
  return { ok: true, records: lines.length };
}
