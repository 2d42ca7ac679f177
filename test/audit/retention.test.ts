// Audit retention (AUDIT_RETENTION) on the file chain: old records go, an anchor keeps the rest
// verifiable, the prune is itself recorded; removing a record after the anchor is still caught; a prune
// interrupted between its two writes verifies; the service prunes on start and counts what it pruned.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/audit-log.js';
import {
  anchorFile,
  pruneAuditLog,
  pruneIntervalMs,
  startAuditRetention,
} from '../../src/audit/retention.js';
import { verifyAuditFile } from '../../src/audit/verify.js';
import { makeService, tempDir } from '../helpers/service.js';

const HOUR = 3_600_000;
const KEY = Buffer.alloc(32, 7);

async function logWith(times: number[], key?: Buffer) {
  const file = path.join(await tempDir('pathgate-retention-'), 'audit.log');
  let clock = times[0];
  const log = new AuditLog(file, key, () => clock);
  for (const t of times) {
    clock = t;
    log.append('request', { subject: 'token:a', fields: { at: t } });
  }
  return { file, log, setClock: (t: number) => (clock = t) };
}

describe('audit retention', () => {
  it('prunes records older than the window; the rest and the audit.pruned record verify from the anchor', async () => {
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const { file, log, setClock } = await logWith([t0, t0 + HOUR, t0 + 2 * HOUR, t0 + 10 * HOUR]);
    setClock(t0 + 11 * HOUR);
    expect(pruneAuditLog(log, file, undefined, 5 * HOUR, t0 + 11 * HOUR)).toBe(3);
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => [r.seq, r.event])).toEqual([
      [4, 'request'],
      [5, 'audit.pruned'],
    ]);
    expect(records[1].fields).toMatchObject({ pruned: 3, through_seq: 3 });
    expect(JSON.parse(readFileSync(anchorFile(file), 'utf8'))).toMatchObject({ seq: 3, prunedTotal: 3 });
    expect(verifyAuditFile(file)).toEqual({ ok: true, records: 2, prunedThrough: 3 });
    // Nothing older than the window: nothing happens.
    expect(pruneAuditLog(log, file, undefined, 5 * HOUR, t0 + 11 * HOUR)).toBe(0);
  });

  it('a record removed right after the anchor is still caught', async () => {
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const { file, log } = await logWith([t0, t0 + 9 * HOUR, t0 + 10 * HOUR]);
    pruneAuditLog(log, file, undefined, 5 * HOUR, t0 + 11 * HOUR);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, `${lines.slice(1).join('\n')}\n`);
    const verdict = verifyAuditFile(file);
    expect(verdict).toMatchObject({ ok: false, line: 1, seq: 3 });
  });

  it('a prune interrupted after its anchor (the whole log still there) verifies', async () => {
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const { file, log } = await logWith([t0, t0 + HOUR, t0 + 10 * HOUR]);
    const whole = readFileSync(file, 'utf8');
    pruneAuditLog(log, file, undefined, 5 * HOUR, t0 + 11 * HOUR);
    const pruned = readFileSync(file, 'utf8');
    // The log as it was before the rewrite, with the prune's own record appended after.
    writeFileSync(file, whole + pruned.split('\n').slice(-2).join('\n'));
    expect(verifyAuditFile(file)).toMatchObject({ ok: true, prunedThrough: 2 });
  });

  it('works on an encrypted log', async () => {
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const { file, log } = await logWith([t0, t0 + 10 * HOUR], KEY);
    expect(pruneAuditLog(log, file, KEY, 5 * HOUR, t0 + 11 * HOUR)).toBe(1);
    expect(readFileSync(file, 'utf8').startsWith('enc1:')).toBe(true);
    expect(verifyAuditFile(file, KEY)).toMatchObject({ ok: true, records: 2 });
  });

  it('runs every sixth of the window, between an hour and a day; counts what it pruned', async () => {
    expect(pruneIntervalMs(2160 * HOUR)).toBe(24 * HOUR);
    expect(pruneIntervalMs(12 * HOUR)).toBe(2 * HOUR);
    expect(pruneIntervalMs(2 * HOUR)).toBe(HOUR);
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const { file, log } = await logWith([t0, t0 + HOUR, t0 + 10 * HOUR]);
    const registry = new Registry();
    const retention = startAuditRetention({
      log,
      file,
      retentionMs: 5 * HOUR,
      registry,
      now: () => t0 + 11 * HOUR,
      onError: (error) => {
        throw error;
      },
    });
    // The prune started at once is the one in flight: awaiting it waits for its count.
    await retention.prune();
    retention.stop();
    expect(await registry.metrics()).toContain('service_audit_pruned_records_total 2');
  });

  it('the service prunes on start with AUDIT_RETENTION and serves the count on /metrics', async () => {
    const dir = await tempDir('pathgate-retention-svc-');
    const file = path.join(dir, 'audit.log');
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const first = await makeService({ AUDIT_LOG_PATH: file }, { dataDir: dir, now: () => clock });
    await first.apiApp.inject({ method: 'GET', url: '/auth/me' });
    await first.apiApp.inject({ method: 'GET', url: '/healthz' });
    await first.dispose({ keepData: true });
    const before = readFileSync(file, 'utf8').trim().split('\n').length;
    clock += 48 * HOUR;
    const second = await makeService(
      { AUDIT_LOG_PATH: file, AUDIT_RETENTION: '24h' },
      { dataDir: dir, now: () => clock },
    );
    try {
      const metrics = await second.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toContain(`service_audit_pruned_records_total ${before}`);
      expect(verifyAuditFile(file)).toMatchObject({ ok: true, prunedThrough: before });
    } finally {
      await second.dispose();
    }
  });
});
