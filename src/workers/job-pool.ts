// A few worker threads running one module, each taking one job at a time; the others wait their turn in
// order. Workers never keep the process alive while idle, and one that dies is replaced by the next job.
// The YAML parsing pool (src/ingest/yaml-pool.ts) and the report preparing pool (src/ingest/report-pool.ts)
// are made of it.
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from './module-worker.js';

export interface JobPoolOptions<R extends { id: number }> {
  /** the worker module's `.js` URL, and the caller's `import.meta.url` (spawnModuleWorker) */
  entry: URL;
  caller: string;
  workerData: Record<string, unknown>;
  /** at most this many jobs run at once (default 1) */
  threads?: number;
  /** what a job's reply means: its value, or the error to reject it with */
  settle(reply: R): { value: unknown } | { error: Error };
  /** the error for a job whose worker failed (`ERR_WORKER_OUT_OF_MEMORY` among them) */
  failed(error: Error & { code?: string }): Error;
  /** what a pool's name is in its own errors (`ingest/yaml-pool`) */
  name: string;
}

export interface JobPool<J extends { id: number }> {
  /** Runs a job on the next free worker; `transfer` lists what the message hands over instead of copying. */
  run<T>(job: Omit<J, 'id'>, transfer?: ArrayBuffer[]): Promise<T>;
  /** Starts a worker now if none runs, so that a job known to be coming does not wait for its start. */
  prestart(): void;
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
    entry.job = undefined;
    entry.worker.unref();
    const outcome = options.settle(reply);
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.value);
    dispatch();
  };

  const retire = (entry: Pooled, error: Error) => {
    const index = workers.indexOf(entry);
    if (index >= 0) workers.splice(index, 1);
    const job = entry.job;
    entry.job = undefined;
    job?.reject(error);
    dispatch();
  };

  const start = (): Pooled => {
    const entry: Pooled = {
      worker: spawnModuleWorker(options.entry, { workerData: options.workerData, caller: options.caller }),
    };
    const { worker } = entry;
    worker.unref();
    worker.on('message', (reply: R) => settle(entry, reply));
    worker.on('error', (error: Error & { code?: string }) => retire(entry, options.failed(error)));
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
      entry.job = job;
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
    prestart() {
      if (!closed && workers.length === 0) start();
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(closedError());
      await Promise.all(workers.map((entry) => entry.worker.terminate()));
    },
  };
}
