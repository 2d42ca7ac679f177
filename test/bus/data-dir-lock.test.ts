// DATA_DIR's lock: one holder at a time, a refusal names the holder and writes nothing, a stale lock (a
// dead pid, another host's lock nobody refreshes, an unreadable file) is taken over by exactly one taker.
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLocked, LOCK_FILE, lockDataDir, lockHolder } from '../../src/bus/data-dir-lock.js';
import { tempDir } from '../helpers/service.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function fresh(): Promise<string> {
  const dir = await tempDir('pathgate-lock-');
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('DATA_DIR lock', () => {
  it('a second taker is refused, naming the holder, and finds the folder as it was; release frees it', async () => {
    const dir = await fresh();
    const lock = await lockDataDir(dir);
    const before = await readdir(dir);
    expect(before).toEqual([LOCK_FILE]);
    const text = await readFile(path.join(dir, LOCK_FILE), 'utf8');
    const refused = await lockDataDir(dir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirLocked);
    expect((refused as Error).message).toContain(`in use by pid ${process.pid}`);
    expect(await readdir(dir)).toEqual(before);
    expect(await readFile(path.join(dir, LOCK_FILE), 'utf8')).toBe(text);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    const again = await lockDataDir(dir);
    await again.release();
  });

  it('a lock left by a dead pid on this host is taken over', async () => {
    const dir = await fresh();
    const { hostname } = await import('node:os');
    const pid = deadPid();
    await writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-01T00:00:00.000Z' }),
    );
    expect(await lockHolder(dir)).toBeUndefined();
    const lock = await lockDataDir(dir);
    expect(JSON.parse(await readFile(path.join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('a live pid that is another process than the holder (its start time differs) does not hold it', async () => {
    const dir = await fresh();
    const { hostname } = await import('node:os');
    // pid 1 runs, but it did not start at this (made-up) time: the holder's pid was reused.
    await writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({
        pid: 1,
        host: hostname(),
        startedAt: '2026-11-01T00:00:00.000Z',
        procStart: 'not-a-start-time',
      }),
    );
    const lock = await lockDataDir(dir);
    await lock.release();
  });

  it('another host’s lock holds while refreshed and is taken over once it is not', async () => {
    const dir = await fresh();
    const file = path.join(dir, LOCK_FILE);
    await writeFile(file, JSON.stringify({ pid: 4242, host: 'elsewhere.example', startedAt: 'then' }));
    const refused = await lockDataDir(dir).catch((e: unknown) => e);
    expect((refused as Error).message).toContain('in use by pid 4242 on elsewhere.example');
    expect(await lockHolder(dir)).toMatchObject({ pid: 4242 });
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(file, old, old);
    expect(await lockHolder(dir)).toBeUndefined();
    const lock = await lockDataDir(dir);
    await lock.release();
  });

  it('an unreadable lock file is set aside', async () => {
    const dir = await fresh();
    await writeFile(path.join(dir, LOCK_FILE), 'not json');
    const lock = await lockDataDir(dir);
    await lock.release();
  });

  it('of concurrent takers of one stale lock, exactly one gets it', async () => {
    const dir = await fresh();
    const { hostname } = await import('node:os');
    await writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '2026-11-01T00:00:00.000Z' }),
    );
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => lockDataDir(dir)));
    const taken = outcomes.filter((o) => o.status === 'fulfilled');
    expect(taken).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(DataDirLocked);
    await (taken[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof lockDataDir>>>).value.release();
    expect(await readdir(dir)).toEqual([]);
  });
});
