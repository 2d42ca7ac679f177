// The audit log (AUDIT_LOG_PATH): one JSON record per line, SHA-256 hash-chained, append-only. Each
// record's `hash` is SHA-256 over the previous record's hash, a newline, and the record's JSON without
// `hash`; so removing, reordering or editing any record breaks the chain from there (`pathgate
// verify-audit`). With STORE_ENCRYPTION_KEY every line is sealed with AES-256-GCM (src/audit/cipher.ts).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { open, seal } from './cipher.js';

export const GENESIS = '0'.repeat(64);

/** The export formats whose reads are audited as `export.<format>` (spec: Events). */
export type ExportFormat = 'oscal' | 'ndjson' | 'graph';

/** Every event the audit log records; docs/security.md lists the same. */
export const AUDIT_EVENTS = [
  'request',
  'auth.deny',
  'auth.lockout.alert',
  'ingest.accepted',
  'view.attack_paths',
  'view.graph',
  'export.oscal',
  'export.ndjson',
  'export.graph',
  'exfil.alert',
  'audit.pruned',
  'forge.refused',
  'ai.ask',
] as const;

export type AuditEvent = (typeof AUDIT_EVENTS)[number];

export interface AuditRecord {
  seq: number;
  ts: string;
  event: AuditEvent;
  subject: string;
  tenant: string | null;
  fields: Record<string, unknown>;
  prev: string;
  hash: string;
}

export function recordHash(prev: string, body: Omit<AuditRecord, 'hash'>): string {
  return createHash('sha256')
    .update(`${prev}\n${JSON.stringify(body)}`)
    .digest('hex');
}

export class AuditLog {
  private seq = 0;
  private prev = GENESIS;

  constructor(
    private readonly file: string,
    private readonly key: Buffer | undefined,
    private readonly now: () => number,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    if (existsSync(file)) this.resume();
  }

  append(
    event: AuditEvent,
    entry: { subject: string; tenant?: string | null; fields?: Record<string, unknown> },
  ): void {
    const body: Omit<AuditRecord, 'hash'> = {
      seq: this.seq + 1,
      ts: new Date(this.now()).toISOString(),
      event,
      subject: entry.subject,
      tenant: entry.tenant ?? null,
      fields: entry.fields ?? {},
      prev: this.prev,
    };
    const hash = recordHash(this.prev, body);
    const line = JSON.stringify({ ...body, hash });
    // Synchronous: records land in the order events happened, and a crash loses at most the one in flight.
    appendFileSync(this.file, `${this.key ? seal(this.key, line) : line}\n`);
    this.seq = body.seq;
    this.prev = hash;
  }

  /** Continues the chain of an existing file from its last record. */
  private resume(): void {
    const lines = readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
    const last = lines.at(-1);
    if (!last) return;
    const record = JSON.parse(this.key ? open(this.key, last) : last) as AuditRecord;
    this.seq = record.seq;
    this.prev = record.hash;
  }
}

/** Flags a principal that reads unusually many attack paths in an hour (EXFIL_ALERT_THRESHOLD). */
export class ExfilWatch {
  private readonly seen = new Map<string, { since: number; paths: Set<string>; alerted: boolean }>();

  constructor(
    private readonly threshold: number,
    private readonly windowMs = 3_600_000,
  ) {}

  /** Records paths read by `subject`; true the first time in a window that they exceed the threshold. */
  read(subject: string, pathIds: readonly string[], nowMs: number): boolean {
    let entry = this.seen.get(subject);
    if (!entry || nowMs - entry.since > this.windowMs) {
      entry = { since: nowMs, paths: new Set(), alerted: false };
      this.seen.set(subject, entry);
    }
    for (const id of pathIds) entry.paths.add(id);
    if (entry.alerted || entry.paths.size <= this.threshold) return false;
    entry.alerted = true;
    return true;
  }
}
