// Audit retention (AUDIT_RETENTION): records older than the window are pruned from the file chain, every
// one sixth of the window (clamped between one hour and one day) and once at start. The chain stays
// verifiable: before the log is rewritten, an anchor (`<log>.anchor`: the seq and hash of the last pruned
// record) is written, so `verify-audit` starts from it; the first record kept names that hash as its
// `prev`. The prune itself is then recorded in the chain (`audit.pruned`). Both writes are atomic
// (temporary file, fsync, rename), anchor first: a crash between them leaves the whole log and an anchor
// inside it, which verify-audit accepts (records up to the anchor are skipped, the rest must chain on).
// The prune reads and rewrites the log synchronously, between appends, which are synchronous too.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { Counter, type Registry } from 'prom-client';
import type { AuditLog, AuditRecord } from './audit-log.js';
import { open } from './cipher.js';

export interface AuditAnchor {
  /** the last pruned record */
  seq: number;
  hash: string;
  ts: string;
  prunedAt: string;
  /** records pruned by this prune and every earlier one */
  prunedTotal: number;
}

export const anchorFile = (logFile: string) => `${logFile}.anchor`;

export function readAnchor(logFile: string): AuditAnchor | undefined {
  const file = anchorFile(logFile);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as AuditAnchor) : undefined;
}

/** How often a prune runs: a sixth of the window, at least an hour, at most a day. */
export function pruneIntervalMs(retentionMs: number): number {
  return Math.min(86_400_000, Math.max(3_600_000, Math.floor(retentionMs / 6)));
}

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Prunes records older than `now - retentionMs`; returns how many went. */
export function pruneAuditLog(
  log: AuditLog,
  file: string,
  key: Buffer | undefined,
  retentionMs: number,
  now: number,
): number {
  if (!existsSync(file)) return 0;
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const cutoff = new Date(now - retentionMs).toISOString();
  let drop = 0;
  let last: AuditRecord | undefined;
  for (const line of lines) {
    const record = JSON.parse(key ? open(key, line) : line) as AuditRecord;
    if (record.ts >= cutoff) break;
    last = record;
    drop++;
  }
  if (!drop || !last) return 0;
  const previous = readAnchor(file);
  const anchor: AuditAnchor = {
    seq: last.seq,
    hash: last.hash,
    ts: last.ts,
    prunedAt: new Date(now).toISOString(),
    prunedTotal: (previous?.prunedTotal ?? 0) + drop,
  };
  atomicWrite(anchorFile(file), `${JSON.stringify(anchor)}\n`);
  const kept = lines.slice(drop);
  atomicWrite(file, kept.length ? `${kept.join('\n')}\n` : '');
  log.append('audit.pruned', {
    subject: 'service',
    fields: { pruned: drop, through_seq: last.seq, through_hash: last.hash, retention_ms: retentionMs },
  });
  return drop;
}

/** Starts pruning on its schedule; returns a stop function. */
export function startAuditRetention(options: {
  log: AuditLog;
  file: string;
  key?: Buffer;
  retentionMs: number;
  registry: Registry;
  now: () => number;
  onError: (error: unknown) => void;
}): { prune(): number; stop(): void } {
  const pruned = new Counter({
    name: 'service_audit_pruned_records_total',
    help: 'Audit records pruned because they were older than AUDIT_RETENTION.',
    registers: [options.registry],
  });
  const prune = () => {
    try {
      const n = pruneAuditLog(options.log, options.file, options.key, options.retentionMs, options.now());
      if (n) pruned.inc(n);
      return n;
    } catch (error) {
      options.onError(error);
      return 0;
    }
  };
  prune();
  const timer = setInterval(prune, pruneIntervalMs(options.retentionMs)).unref();
  return { prune, stop: () => clearInterval(timer) };
}
