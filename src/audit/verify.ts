// `pathgate verify-audit <file>`: walks the chain and names the first record that breaks it. A log pruned
// by AUDIT_RETENTION starts after its anchor (`<file>.anchor`, src/audit/retention.ts): the chain is
// checked from the anchor's hash and seq; records at or before the anchor (a prune interrupted between its
// two writes leaves them) are skipped.
import { readFileSync } from 'node:fs';
import { GENESIS, recordHash, type AuditRecord } from './audit-log.js';
import { isSealed, open } from './cipher.js';
import { readAnchor } from './retention.js';

export type AuditVerdict =
  | { ok: true; records: number; prunedThrough?: number }
  | { ok: false; records: number; line: number; seq: number | null; problem: string };

export function verifyAuditFile(file: string, key?: Buffer): AuditVerdict {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const anchor = readAnchor(file);
  let prev = anchor?.hash ?? GENESIS;
  let expectedSeq = (anchor?.seq ?? 0) + 1;
  let records = 0;
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const broken = (seq: number | null, problem: string): AuditVerdict => ({
      ok: false,
      records,
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
    if (anchor && records === 0 && typeof record.seq === 'number' && record.seq <= anchor.seq) continue;
    const { hash, ...body } = record;
    if (record.seq !== expectedSeq)
      return broken(record.seq ?? null, `sequence ${record.seq}, expected ${expectedSeq}`);
    if (record.prev !== prev)
      return broken(
        record.seq,
        records === 0 && anchor
          ? 'prev does not match the anchor of the pruned records (records removed after the anchor)'
          : 'prev does not match the previous record (removed or reordered)',
      );
    if (recordHash(prev, body) !== hash)
      return broken(record.seq, 'hash does not match its contents (edited)');
    prev = hash;
    expectedSeq++;
    records++;
  }
  return anchor ? { ok: true, records, prunedThrough: anchor.seq } : { ok: true, records };
}
