// The worker pool the YAML parsers and the report workers are made of (src/workers/job-pool.ts), on real
// worker threads: answers in parts, a worker that dies replaced by the next job, readiness, idling out and
// release giving workers back.
import { afterEach, describe, expect, it } from 'vitest';
import { createJobPool, type JobPool } from '../../src/workers/job-pool.js';

interface Job {
  id: number;
  mode: 'echo' | 'parts' | 'throw' | 'exit';
  value?: unknown;
}
type Reply = { id: number; value?: unknown; part?: number; warm?: boolean; threadId?: number };

const pools: JobPool<Job>[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(options: { announce?: boolean; delayMs?: number; idleMs?: number } = {}) {
  const parts: number[] = [];
  const made = createJobPool<Job, Reply>({
    name: 'test/job-pool',
    entry: new URL('../helpers/job-worker.js', import.meta.url),
    caller: import.meta.url,
    workerData: { announce: options.announce, delayMs: options.delayMs },
    announcesReady: options.announce,
    idleMs: options.idleMs,
    settle: (reply) => {
      if (reply.part !== undefined) {
        parts.push(reply.part);
        return { more: true };
      }
      return { value: reply };
    },
    failed: (error, id) => new Error(`failed (job ${id}): ${error.message}`),
  });
  pools.push(made);
  return Object.assign(made, { parts });
}

describe('createJobPool', () => {
  it('answers a job, and one answered in parts once its last message comes', async () => {
    const p = pool();
    await expect(p.run<Reply>({ mode: 'echo', value: 42 })).resolves.toMatchObject({ value: 42 });
    await expect(p.run<Reply>({ mode: 'parts' })).resolves.toMatchObject({ value: 'done' });
    expect(p.parts).toEqual([1, 2]);
  });

  it('rejects the job whose worker failed, naming it, and the next job gets a new worker', async () => {
    const p = pool();
    await expect(p.run({ mode: 'throw' })).rejects.toThrow(/failed \(job \d+\): the job asked to fail/);
    await expect(p.run({ mode: 'exit' })).rejects.toThrow(/worker exited with code 3/);
    await expect(p.run<Reply>({ mode: 'echo', value: 'again' })).resolves.toMatchObject({ value: 'again' });
  });

  it('prestart waits for a worker that announces itself ready; warm only when asked', async () => {
    const p = pool({ announce: true, delayMs: 150 });
    const began = Date.now();
    await p.prestart({ warm: true });
    expect(Date.now() - began).toBeGreaterThanOrEqual(100);
    await expect(p.run<Reply>({ mode: 'echo', value: 1 })).resolves.toMatchObject({ warm: true });
  });

  it('a worker that ran a job idles out; a fresh one does not; release stops used idle workers', async () => {
    const p = pool({ idleMs: 50 });
    await p.prestart();
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Fresh (no job yet): kept past the idle time, and started cold.
    await wait(120);
    const first = await p.run<Reply>({ mode: 'echo' });
    expect(first.warm).toBe(false);
    // Used, then idle past idleMs: stopped; the next job runs on another thread.
    const same = await p.run<Reply>({ mode: 'echo' });
    expect(same.threadId).toBe(first.threadId);
    await wait(150);
    const after = await p.run<Reply>({ mode: 'echo' });
    expect(after.threadId).not.toBe(first.threadId);
    // Released at once, without the wait.
    await p.release();
    const released = await p.run<Reply>({ mode: 'echo' });
    expect(released.threadId).not.toBe(after.threadId);
  });

  it('a closed pool refuses jobs', async () => {
    const p = pool();
    await p.close();
    await expect(p.run({ mode: 'echo' })).rejects.toThrow(/closed/);
  });
});
