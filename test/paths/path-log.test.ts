// The path lifecycle log on disk: appended lines come back in order, a snapshot's epoch hides the lines
// it covers, a torn final line is cut off (and appends continue cleanly after it), an unreadable line
// in the middle is skipped and counted.
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPEND_PIECE, PATH_LOG_FILE, PathLog, type PathLogEntry } from '../../src/paths/path-log.js';
import { tempDir } from '../helpers/service.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function reopen(dir: string, covered?: number) {
  const seen: PathLogEntry[] = [];
  const log = await PathLog.open(dir, covered, (entry) => seen.push(entry));
  return { log, seen };
}

describe('PathLog', () => {
  it('gives back what was appended, minus what a snapshot covers', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const first = await reopen(dir);
    expect(first.log.epoch).toBe(1);
    await first.log.append('acme', [{ id: 'ap-1', reopens: 0 }]);
    expect(first.log.pending).toBe(true);
    const older = first.log.epoch;
    await first.log.compact(older);
    expect(first.log.pending).toBe(false);
    await first.log.append('acme', [{ id: 'ap-1', reopens: 1 }]);
    const newer = first.log.epoch;
    await first.log.compact(newer);
    await first.log.append('acme', [{ id: 'ap-1', reopens: 2 }]);
    await first.log.close();
    const line = (e: number, reopens: number) => ({ e, t: 'acme', r: { id: 'ap-1', reopens } });

    // Restored from the newest snapshot: only what came after it.
    const fromNewest = await reopen(dir, newer);
    expect(fromNewest.seen).toEqual([line(newer + 1, 2)]);
    expect(fromNewest.log.epoch).toBe(newer + 1);
    await fromNewest.log.close();
    // Fallen back on the snapshot before it: the lines set aside at the newest snapshot too.
    const fromPrevious = await reopen(dir, older);
    expect(fromPrevious.seen).toEqual([line(newer, 1), line(newer + 1, 2)]);
    await fromPrevious.log.close();
  });

  it('writes a large append in pieces, and undoes every piece of one that fails part-way', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const first = await reopen(dir);
    await first.log.append('acme', [{ id: 'ap-0' }]);
    const file = path.join(dir, PATH_LOG_FILE);
    const before = await readFile(file);
    // Records of ~100 kB each: 40 of them span several pieces of APPEND_PIECE characters.
    const route = 'x'.repeat(100_000);
    const records = Array.from({ length: 40 }, (_, i) => ({ id: `ap-${i + 1}`, route }));
    expect(40 * route.length).toBeGreaterThan(3 * APPEND_PIECE);
    // The 35th record cannot be serialized: the pieces written before it are taken back.
    const broken = [...records.slice(0, 34), { id: 'ap-bad', big: 1n }, ...records.slice(34)];
    await expect(first.log.append('acme', broken)).rejects.toThrow(/BigInt/);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect(await first.log.append('acme', records)).toBe(40);
    await first.log.close();

    const second = await reopen(dir);
    expect(second.seen.map((e) => (e.r as { id: string }).id)).toEqual(['ap-0', ...records.map((r) => r.id)]);
    expect(second.seen.every((e, i) => i === 0 || (e.r as { route: string }).route === route)).toBe(true);
    expect(second.log.recovery).toEqual({ replayed: 41, cutBytes: 0, skipped: 0 });
    await second.log.close();
  });

  it('cuts off a torn final line and appends cleanly after it', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const first = await reopen(dir);
    await first.log.append('acme', [{ id: 'ap-1' }, { id: 'ap-2' }]);
    await first.log.close();
    const file = path.join(dir, 'paths.ndjson');
    const whole = await readFile(file);
    await appendFile(file, '{"e":1,"t":"acme","r":{"id":"ap-');

    const second = await reopen(dir);
    expect(second.log.recovery).toEqual({ replayed: 2, cutBytes: 32, skipped: 0 });
    expect((await readFile(file)).equals(whole)).toBe(true);
    await second.log.append('acme', [{ id: 'ap-3' }]);
    await second.log.close();
    const third = await reopen(dir);
    expect(third.seen.map((e) => (e.r as { id: string }).id)).toEqual(['ap-1', 'ap-2', 'ap-3']);
    expect(third.log.recovery.cutBytes).toBe(0);
    await third.log.close();
  });

  it('skips an unreadable line in the middle and says so', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    await writeFile(
      path.join(dir, PATH_LOG_FILE),
      '{"e":1,"t":"acme","r":{"id":"ap-1"}}\nnot json\n{"e":1,"t":"acme","r":{"id":"ap-2"}}\n',
    );
    const { log, seen } = await reopen(dir);
    expect(seen.map((e) => (e.r as { id: string }).id)).toEqual(['ap-1', 'ap-2']);
    expect(log.recovery).toEqual({ replayed: 2, cutBytes: 0, skipped: 1 });
    await log.close();
  });
});
