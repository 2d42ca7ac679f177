// Audit retention (AUDIT_RETENTION): records older than the window are pruned from the file chain and from
// the shared chain in PostgreSQL (src/db/audit-chain.ts `pruneAuditTable`, its anchor in a table), every
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

/** The shared chain in PostgreSQL, for retention: prune it and record the prune in it (src/db/audit-chain.ts). */
export interface PrunableTable {
  prune(
    retentionMs: number,
    now: number,
  ): Promise<{ pruned: number; throughSeq?: number; throughHash?: string }>;
  record(fields: Record<string, unknown>): void;
}

/**
 * Starts pruning on its schedule; returns a stop function. Prunes the file chain (AUDIT_LOG_PATH) and the
 * shared chain in PostgreSQL (the spec: "database chain only" is where retention must hold; the file chain
 * is pruned the same way so a replica's file does not grow without bound either).
 */
export function startAuditRetention(options: {
  log?: AuditLog;
  file?: string;
  table?: PrunableTable;
  key?: Buffer;
  retentionMs: number;
  registry: Registry;
  now: () => number;
  onError: (error: unknown) => void;
}): { prune(): Promise<number>; stop(): void } {
  const pruned = new Counter({
    name: 'service_audit_pruned_records_total',
    help: 'Audit records pruned because they were older than AUDIT_RETENTION (file and database chains).',
    registers: [options.registry],
  });
  const pruneFile = (): number => {
    if (!options.log || options.file === undefined) return 0;
    try {
      return pruneAuditLog(options.log, options.file, options.key, options.retentionMs, options.now());
    } catch (error) {
      options.onError(error);
      return 0;
    }
  };
  const pruneTable = async (): Promise<number> => {
    if (!options.table) return 0;
    try {
      const done = await options.table.prune(options.retentionMs, options.now());
      if (done.pruned)
        options.table.record({
          pruned: done.pruned,
          through_seq: done.throughSeq,
          through_hash: done.throughHash,
          retention_ms: options.retentionMs,
        });
      return done.pruned;
    } catch (error) {
      options.onError(error);
      return 0;
    }
  };
  let running: Promise<number> | undefined;
  const prune = (): Promise<number> => {
    // One prune at a time: a slow database prune is not started again under itself.
    running ??= (async () => {
      const n = pruneFile() + (await pruneTable());
      if (n) pruned.inc(n);
      return n;
    })().finally(() => (running = undefined));
    return running;
  };
  void prune();
  const timer = setInterval(() => void prune(), pruneIntervalMs(options.retentionMs)).unref();
  return { prune, stop: () => clearInterval(timer) };
}
