// A few worker threads running one module, each taking one job at a time; the others wait their turn in
// order. Workers never keep the process alive while idle, and one that dies is replaced by the next job.
// The YAML parsing pool (src/ingest/yaml-pool.ts) and the report preparing pool (src/ingest/report-pool.ts)
// are made of it.
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { spawnModuleWorker } from './module-worker.js';

/**
 * What a message hands over of `buffer` rather than copies: a buffer of its own; shared memory is posted as it
 * is (a transfer list naming it fails the post).
 */
export function handedOver(buffer: ArrayBufferLike): ArrayBuffer[] {
  return buffer instanceof SharedArrayBuffer ? [] : [buffer as ArrayBuffer];
}

export interface JobPoolOptions<R extends { id: number }> {
  /** the worker module's `.js` URL, and the caller's `import.meta.url` (spawnModuleWorker) */
  entry: URL;
  caller: string;
  workerData: Record<string, unknown>;
  /** the workers' heap limits (spawnModuleWorker) */
  resourceLimits?: ResourceLimits;
  /** at most this many jobs run at once (default 1) */
  threads?: number;
  /**
   * What a job's message means: its value, or the error to reject it with, or that more messages of the
   * job follow (a part of its answer, which `settle` keeps).
   */
  settle(reply: R): { value: unknown } | { error: Error } | { more: true };
  /**
   * The worker posts `{ id: 0 }` once it is ready (after a warm-up): prestart's promise waits for that.
   * Jobs sent before wait in the worker's queue.
   */
  announcesReady?: boolean;
  /**
   * A worker idle this long is stopped, giving its heap back (a report worker's holds what the last large
   * report made); the next job or prestart starts another. Only a worker that ran a job idles out: a fresh
   * one holds little. Unset: workers stay.
   */
  idleMs?: number;
  /** the error for the job (`id`, if one ran) whose worker failed (`ERR_WORKER_OUT_OF_MEMORY` among them) */
  failed(error: Error & { code?: string }, id?: number): Error;
  /** what a pool's name is in its own errors (`ingest/yaml-pool`) */
  name: string;
}

export interface JobPool<J extends { id: number }> {
  /** Runs a job on the next free worker; `transfer` lists what the message hands over instead of copying. */
  run<T>(job: Omit<J, 'id'>, transfer?: ArrayBuffer[]): Promise<T>;
  /**
   * Starts a worker now if none runs, so that a job known to be coming does not wait for its start.
   * Resolves once a worker is ready (announcesReady), or at once.
   */
  prestart(options?: { warm?: boolean }): Promise<void>;
  /**
   * Stops the idle workers that ran a job (idleMs without the wait); the next job or prestart starts
   * another.
   */
  release(): Promise<void>;
  /**
   * Posts a message that is not a job to a running worker (the first), handing `transfer` over; false when
   * none runs (the message is dropped).
   */
  give(message: object, transfer: ArrayBuffer[]): boolean;
  /** Stops the workers; jobs still waiting or running reject. */
  close(): Promise<void>;
}

interface Queued {
  id: number;
  job: object;
  transfer: ArrayBuffer[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Pooled {
  worker: Worker;
  job?: Queued;
  /** it ran a job: its heap holds what that made */
  used?: boolean;
  ready: Promise<void>;
  idle?: NodeJS.Timeout;
}

export function createJobPool<J extends { id: number }, R extends { id: number }>(
  options: JobPoolOptions<R>,
): JobPool<J> {
  const threads = Math.max(1, Math.floor(options.threads ?? 1));
  const workers: Pooled[] = [];
  const queue: Queued[] = [];
  let nextId = 1;
  let closed = false;
  const closedError = () => new Error(`${options.name}: closed`);

  const settle = (entry: Pooled, reply: R) => {
    const job = entry.job;
    if (!job || job.id !== reply.id) return;
    const outcome = options.settle(reply);
    if ('more' in outcome) return;
    entry.job = undefined;
    entry.worker.unref();
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.value);
    dispatch();
    if (!entry.job) idle(entry);
  };

  /** Stops an idle worker (its exit rejects nothing: it holds no job). */
  const stop = async (entry: Pooled) => {
    clearTimeout(entry.idle);
    const index = workers.indexOf(entry);
    if (index >= 0) workers.splice(index, 1);
    await entry.worker.terminate();
  };

  /** Stops `entry` once it has been idle `idleMs`, unless a job or a prestart comes first. */
  const idle = (entry: Pooled) => {
    if (options.idleMs === undefined || !entry.used) return;
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      if (!entry.job && !closed) void stop(entry);
    }, options.idleMs);
    entry.idle.unref();
  };

  const retire = (entry: Pooled, error: Error) => {
    const index = workers.indexOf(entry);
    if (index >= 0) workers.splice(index, 1);
    const job = entry.job;
    entry.job = undefined;
    job?.reject(error);
    dispatch();
  };

  const start = (warm = false): Pooled => {
    // `warm`: started ahead of any job (prestart), it may warm up; one a waiting job starts should not.
    const worker = spawnModuleWorker(options.entry, {
      workerData: { ...options.workerData, warm },
      caller: options.caller,
      resourceLimits: options.resourceLimits,
    });
    let ready = () => {};
    const entry: Pooled = {
      worker,
      ready: options.announcesReady ? new Promise<void>((resolve) => (ready = resolve)) : Promise.resolve(),
    };
    worker.unref();
    worker.on('message', (reply: R) => (reply.id === 0 ? ready() : settle(entry, reply)));
    // A worker that dies before it was ready is not waited for.
    worker.on('exit', () => ready());
    worker.on('error', (error: Error & { code?: string }) =>
      retire(entry, options.failed(error, entry.job?.id)),
    );
    worker.on('exit', (code) => {
      retire(entry, closed ? closedError() : new Error(`${options.name}: worker exited with code ${code}`));
    });
    workers.push(entry);
    return entry;
  };

  const dispatch = () => {
    while (queue.length && !closed) {
      const entry = workers.find((w) => !w.job) ?? (workers.length < threads ? start() : undefined);
      if (!entry) return;
      const job = queue.shift()!;
      clearTimeout(entry.idle);
      entry.job = job;
      entry.used = true;
      // Held only while a job runs, so an idle pool never keeps the process alive.
      entry.worker.ref();
      entry.worker.postMessage({ ...job.job, id: job.id }, job.transfer);
    }
  };

  return {
    run<T>(job: Omit<J, 'id'>, transfer: ArrayBuffer[] = []): Promise<T> {
      if (closed) return Promise.reject<T>(closedError());
      return new Promise<T>((resolve, reject) => {
        queue.push({ id: nextId++, job, transfer, resolve: resolve as (value: unknown) => void, reject });
        dispatch();
      });
    },
    async prestart(how: { warm?: boolean } = {}) {
      if (closed) return;
      const entry = workers[0] ?? start(how.warm);
      // Kept for the job on its way (idle again if it does not come).
      if (!entry.job) idle(entry);
      await entry.ready;
    },
    async release() {
      await Promise.all(workers.filter((entry) => entry.used && !entry.job).map(stop));
    },
    give(message, transfer) {
      const entry = workers[0];
      if (!entry || closed) return false;
      entry.worker.postMessage(message, transfer);
      return true;
    },
    async close() {
      closed = true;
      for (const entry of workers) clearTimeout(entry.idle);
      for (const job of queue.splice(0)) job.reject(closedError());
      await Promise.all(workers.map((entry) => entry.worker.terminate()));
    },
  };
}
