// An exclusive lock on DATA_DIR, taken before any store work: two processes on one journal would tear it
// (a second start once snapshotted and compacted the live store before failing on the busy port).
// `DATA_DIR/LOCK` names the holder (pid, host, its start time); it is created whole or not at all (written
// aside, then hard-linked into place, which fails when the name exists). A process that finds a live
// holder refuses without writing anything. A lock whose holder is gone is taken over under a second,
// short-lived lock, so that two starts never both take over the same stale lock.
import { readFileSync } from 'node:fs';
import { link, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const LOCK_FILE = 'LOCK';
const TAKEOVER_FILE = 'LOCK.takeover';
/** The holder touches its lock this often, so that another host can tell a live lock from a dead one. */
export const LOCK_REFRESH_MS = 10_000;
/** A lock from another host (whose pids cannot be checked) untouched this long is stale. */
export const LOCK_STALE_MS = 60_000;

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  /** The holder's start time as the kernel counts it (Linux): tells a reused pid from the holder. */
  procStart?: string;
}

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by pid ${holder.pid} on ${holder.host} (since ${holder.startedAt}); stop that process or give this one another DATA_DIR (the lock is ${path.join(dataDir, LOCK_FILE)})`,
    );
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  readonly holder: LockHolder;
  release(): Promise<void>;
}

/** Locks held by this process, by resolved path: a second open in the same process is refused too. */
const heldHere = new Map<string, LockHolder>();

function procStart(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); fields are counted after the parenthesised command name, which may hold spaces.
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

async function readLock(file: string): Promise<{ holder: LockHolder; mtimeMs: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    const holder = JSON.parse(text) as Partial<LockHolder>;
    if (typeof holder.pid !== 'number' || typeof holder.host !== 'string') return undefined;
    return {
      holder: {
        pid: holder.pid,
        host: holder.host,
        startedAt: String(holder.startedAt),
        ...(holder.procStart && { procStart: String(holder.procStart) }),
      },
      mtimeMs: info.mtimeMs,
    };
  } catch {
    return undefined;
  }
}

/** Whether the process a lock names still runs (as far as this host can tell). */
export function holderAlive(
  dataDir: string,
  lock: { holder: LockHolder; mtimeMs: number },
  now = Date.now(),
): boolean {
  const { holder } = lock;
  if (holder.host !== hostname()) return now - lock.mtimeMs < LOCK_STALE_MS;
  // Our own pid: held by this process, or left by an earlier life of it (a container restarted as pid 1).
  if (holder.pid === process.pid) return heldHere.has(path.resolve(dataDir));
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // The pid runs; when the kernel says it started at another time, it is another process with a reused pid.
  const start = holder.procStart && procStart(holder.pid);
  return !(start && start !== holder.procStart);
}

/** Which other live process holds DATA_DIR's lock, if any: what `verify-store` reports as "in use". */
export async function lockHolder(dataDir: string): Promise<LockHolder | undefined> {
  const lock = await readLock(path.join(dataDir, LOCK_FILE));
  if (!lock || (lock.holder.pid === process.pid && lock.holder.host === hostname())) return undefined;
  return holderAlive(dataDir, lock) ? lock.holder : undefined;
}

const sameHolder = (a: LockHolder, b: LockHolder) =>
  a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt;

/** Takes DATA_DIR's lock, or throws DataDirLocked naming the live holder (having changed nothing). */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  const key = path.resolve(dataDir);
  const me: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    ...(procStart(process.pid) && { procStart: procStart(process.pid) }),
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    const current = await readLock(file);
    if (current && holderAlive(dataDir, current)) throw new DataDirLocked(dataDir, current.holder);
    if (current) {
      await takeOver(dataDir, current.holder);
    } else if (await stat(file).catch(() => undefined)) {
      // There but unreadable: a lock from an older version, or damaged. Whole locks are linked into place,
      // so this is no holder mid-write: set it aside under the takeover lock.
      await takeOver(dataDir, undefined);
    }
    await mkdir(dataDir, { recursive: true });
    const aside = path.join(dataDir, `${LOCK_FILE}.${process.pid}.${Date.now()}`);
    await writeFile(aside, `${JSON.stringify(me)}\n`);
    try {
      await link(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      continue; // another process took it first: read who
    } finally {
      await rm(aside, { force: true });
    }
    heldHere.set(key, me);
    const refresh = setInterval(() => {
      const now = new Date();
      utimes(file, now, now).catch(() => undefined);
    }, LOCK_REFRESH_MS).unref();
    let released = false;
    return {
      dataDir,
      holder: me,
      async release() {
        if (released) return;
        released = true;
        clearInterval(refresh);
        heldHere.delete(key);
        const still = await readLock(file);
        if (still && sameHolder(still.holder, me)) await rm(file, { force: true });
      },
    };
  }
  throw new Error(`DATA_DIR ${dataDir}: the lock changed hands 20 times while this process tried to take it`);
}

/** Removes a stale lock, under a short-lived second lock, re-checking that it is still the stale one. */
async function takeOver(dataDir: string, stale: LockHolder | undefined): Promise<void> {
  const file = path.join(dataDir, LOCK_FILE);
  const mutex = path.join(dataDir, TAKEOVER_FILE);
  try {
    await writeFile(mutex, `${process.pid}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is taking over; one left behind by a crash mid-takeover is removed after 10 s.
    const info = await stat(mutex).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 10_000) await rm(mutex, { force: true });
    await sleep(50);
    return;
  }
  try {
    const again = await readLock(file);
    if (stale ? again && sameHolder(again.holder, stale) && !holderAlive(dataDir, again) : !again)
      await rm(file, { force: true });
  } finally {
    await rm(mutex, { force: true });
  }
}
