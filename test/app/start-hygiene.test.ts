// Start-up as `npm start` runs it (app/main.ts, the demo estate), in real processes: a second process on a
// DATA_DIR in use refuses, naming the holder's pid, and changes nothing in the folder; a taken address
// names its setting; the banner's example carries a token placeholder when auth is on, never the token;
// a lock left by a killed process is taken over.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/service.js';

const main = new URL('../../app/main.ts', import.meta.url).pathname;
const TOKEN = 'start-hygiene-token-0123456789abcdef';
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function start(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      INGEST_ADDR: '127.0.0.1:0',
      API_ADDR: '127.0.0.1:0',
      ANALYZER_THREADS: '1',
      ANALYZER_INTERVAL: '1h',
      SNAPSHOT_INTERVAL: '1h',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** The banner, once the service is up. */
async function banner(child: ChildProcess): Promise<string> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line);
    if (line.startsWith('    -d ')) return lines.join('\n');
  }
  throw new Error(`exited before its banner: ${lines.join('\n')}`);
}

async function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Every file under dir, by relative path, with the SHA-256 of its bytes. */
async function snapshotOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  }
  return out;
}

describe('npm start on a DATA_DIR in use', () => {
  it('refuses, naming the holder’s pid, and changes nothing in the folder; a killed holder’s lock is taken over', async () => {
    const dataDir = await tempDir('pathgate-start-');
    dirs.push(dataDir);
    const first = start({ DATA_DIR: dataDir, API_TOKENS: `${TOKEN}:viewer` });
    const text = await banner(first);
    // The banner's example with auth on: a placeholder for the token, never the token.
    expect(text).toContain("-H 'authorization: Bearer <token>'");
    expect(text).not.toContain(TOKEN);
    const apiPort = /API\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(text)![1];

    const before = await snapshotOf(dataDir);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['LOCK']));
    const second = await exited(start({ DATA_DIR: dataDir }));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`DATA_DIR ${dataDir} is in use by pid ${first.pid}`);
    expect(second.stdout).not.toContain('is running');
    expect(await snapshotOf(dataDir)).toEqual(before);

    // A taken address names the setting that gave it (here on a DATA_DIR of its own).
    const otherDir = await tempDir('pathgate-start-');
    dirs.push(otherDir);
    const busy = await exited(start({ DATA_DIR: otherDir, API_ADDR: `127.0.0.1:${apiPort}` }));
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`cannot listen on API_ADDR=127.0.0.1:${apiPort} (EADDRINUSE)`);

    // Killed, it leaves its lock behind: the next start takes it over, and a clean stop removes it.
    first.kill('SIGKILL');
    await once(first, 'exit');
    const third = start({ DATA_DIR: dataDir });
    expect(await banner(third)).toContain('demo');
    third.kill('SIGTERM');
    expect((await exited(third)).code).toBe(0);
    expect(await readdir(dataDir)).not.toContain('LOCK');
  });
});
