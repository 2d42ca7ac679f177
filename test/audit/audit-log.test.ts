// The hash-chained audit log: what it writes, what verification catches (an edit, a removal, a reorder,
// a wrong key), sealing with AES-256-GCM, resuming the chain after a restart, and the exfiltration watch.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, ExfilWatch, GENESIS } from '../../src/audit/audit-log.js';
import { parseStoreKey } from '../../src/audit/cipher.js';
import { verifyAuditFile } from '../../src/audit/verify.js';
import { tempDir } from '../helpers/service.js';

const clock = () => Date.parse('2026-11-22T12:00:00Z');

async function logWith(records: number, key?: Buffer): Promise<string> {
  const file = path.join(await tempDir('pathgate-audit-'), 'audit.log');
  const log = new AuditLog(file, key, clock);
  for (let i = 0; i < records; i++)
    log.append(i % 2 ? 'auth.deny' : 'request', {
      subject: `token:${i}`,
      tenant: 'default',
      fields: { request_id: `r${i}` },
    });
  return file;
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('the audit log', () => {
  it('chains each record to the one before, from the genesis hash', async () => {
    const file = await logWith(3);
    const records = lines(file).map((l) => JSON.parse(l));
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(records[0].prev).toBe(GENESIS);
    expect(records[1].prev).toBe(records[0].hash);
    expect(records[2]).toMatchObject({
      event: 'request',
      subject: 'token:2',
      tenant: 'default',
      fields: { request_id: 'r2' },
    });
    expect(verifyAuditFile(file)).toEqual({ ok: true, records: 3 });
  });

  it('names the first record an edit, a removal or a reorder breaks', async () => {
    const file = await logWith(5);
    const original = lines(file);
    const edited = [...original];
    edited[2] = edited[2].replace('token:2', 'token:9');
    writeFileSync(file, edited.join('\n') + '\n');
    expect(verifyAuditFile(file)).toMatchObject({
      ok: false,
      line: 3,
      seq: 3,
      problem: expect.stringMatching(/edited/),
    });
    writeFileSync(file, [original[0], original[2], original[3]].join('\n') + '\n');
    expect(verifyAuditFile(file)).toMatchObject({
      ok: false,
      line: 2,
      problem: expect.stringMatching(/sequence 3, expected 2/),
    });
    writeFileSync(file, [original[1], original[0]].join('\n') + '\n');
    expect(verifyAuditFile(file)).toMatchObject({ ok: false, line: 1 });
    writeFileSync(file, [original[0], 'garbage'].join('\n') + '\n');
    expect(verifyAuditFile(file)).toMatchObject({ ok: false, line: 2, problem: 'not JSON' });
  });

  it('continues the chain of an existing file after a restart', async () => {
    const file = await logWith(2);
    new AuditLog(file, undefined, clock).append('request', { subject: 'open' });
    expect(verifyAuditFile(file)).toEqual({ ok: true, records: 3 });
  });

  it('seals every line with AES-256-GCM under STORE_ENCRYPTION_KEY', async () => {
    const key = randomBytes(32);
    const file = await logWith(3, key);
    expect(lines(file).every((l) => l.startsWith('enc1:'))).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain('token:');
    expect(verifyAuditFile(file, key)).toEqual({ ok: true, records: 3 });
    expect(verifyAuditFile(file)).toMatchObject({
      ok: false,
      line: 1,
      problem: expect.stringMatching(/STORE_ENCRYPTION_KEY/),
    });
    expect(verifyAuditFile(file, randomBytes(32))).toMatchObject({
      ok: false,
      line: 1,
      problem: expect.stringMatching(/decrypted/),
    });
    new AuditLog(file, key, clock).append('request', { subject: 'open' });
    expect(verifyAuditFile(file, key)).toEqual({ ok: true, records: 4 });
  });

  it('reads the key as 64 hex digits or base64, and nothing else', () => {
    const key = randomBytes(32);
    expect(parseStoreKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseStoreKey(key.toString('base64')).equals(key)).toBe(true);
    expect(() => parseStoreKey('too-short')).toThrow(/32-byte/);
  });
});

describe('the exfiltration watch', () => {
  it('alerts once per hour when one principal reads more distinct paths than the threshold', () => {
    const watch = new ExfilWatch(3);
    const t = 1_000_000;
    expect(watch.read('jwt:alice', ['a', 'b'], t)).toBe(false);
    expect(watch.read('jwt:alice', ['a', 'b', 'c'], t + 10)).toBe(false);
    expect(watch.read('jwt:bob', ['x', 'y', 'z'], t + 20)).toBe(false);
    expect(watch.read('jwt:alice', ['d'], t + 30)).toBe(true);
    expect(watch.read('jwt:alice', ['e'], t + 40)).toBe(false);
    expect(watch.read('jwt:alice', ['a', 'b', 'c', 'd', 'e'], t + 3_600_001 + 30)).toBe(true);
  });
});
