// YAML bodies are parsed on worker threads, so a large or hostile document costs a worker its time, not
// the listeners theirs: /healthz, GraphQL and JSON ingest keep answering while it is read. Workers start
// on first use, take one body at a time, and never keep the process alive while idle.
import type { Worker } from 'node:worker_threads';
import { ProblemError } from '../http/problems.js';
import { spawnModuleWorker } from '../workers/module-worker.js';
import type { KubernetesList } from './yaml.js';
import { YAML_WORKER_ROLE, type YamlJob, type YamlReply } from './yaml-worker.js';

export interface YamlPool {
  /** The body as one Kubernetes List; rejects with the parse's problem (yaml.ts). */
  parse(bytes: Uint8Array): Promise<KubernetesList>;
  /** Stops the workers; parses still running reject. */
  close(): Promise<void>;
}

interface Job {
  id: number;
  bytes: Uint8Array;
  resolve: (list: KubernetesList) => void;
  reject: (error: Error) => void;
}

interface PooledWorker {
  worker: Worker;
  job?: Job;
}

/** At most `threads` YAML bodies are parsed at once (default 2); the others wait their turn. */
export function createYamlPool(options: { threads?: number } = {}): YamlPool {
  const threads = Math.max(1, Math.floor(options.threads ?? 2));
  const workers: PooledWorker[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;
  const closedError = () => new Error('ingest/yaml-pool: closed');

  const settle = (entry: PooledWorker, reply: YamlReply) => {
    const job = entry.job;
    if (!job || job.id !== reply.id) return;
    entry.job = undefined;
    entry.worker.unref();
    if (reply.ok) job.resolve(reply.list);
    else if ('problem' in reply) job.reject(ProblemError.fromBody(reply.problem));
    else job.reject(new Error(`ingest/yaml-pool: parse failed in a worker: ${reply.message}`));
    dispatch();
  };

  const retire = (entry: PooledWorker, error: Error) => {
    const index = workers.indexOf(entry);
    if (index >= 0) workers.splice(index, 1);
    const job = entry.job;
    entry.job = undefined;
    job?.reject(error);
    dispatch();
  };

  const start = (): PooledWorker => {
    const entry: PooledWorker = {
      worker: spawnModuleWorker(new URL('./yaml-worker.js', import.meta.url), {
        workerData: { role: YAML_WORKER_ROLE },
        caller: import.meta.url,
      }),
    };
    const { worker } = entry;
    worker.unref();
    worker.on('message', (reply: YamlReply) => settle(entry, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      // A document that needs more memory than a worker has is refused like an oversized body.
      retire(
        entry,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ProblemError(
              'payload-too-large',
              'the YAML body needs more memory to parse than a parsing worker has; split the report or send it as JSON',
            )
          : new Error(`ingest/yaml-pool: worker crashed: ${error.message}`, { cause: error }),
      );
    });
    worker.on('exit', (code) => {
      retire(entry, closed ? closedError() : new Error(`ingest/yaml-pool: worker exited with code ${code}`));
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
      // Held only while a body is parsed, so an idle pool never keeps the process alive.
      entry.worker.ref();
      const message: YamlJob = { id: job.id, bytes: job.bytes };
      entry.worker.postMessage(message, [job.bytes.buffer as ArrayBuffer]);
    }
  };

  return {
    parse(bytes) {
      if (closed) return Promise.reject(closedError());
      // A copy of its own, transferred to the worker: the request's buffer may be a view into a pool.
      const copy = new Uint8Array(bytes);
      return new Promise<KubernetesList>((resolve, reject) => {
        queue.push({ id: nextId++, bytes: copy, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(closedError());
      await Promise.all(workers.map((entry) => entry.worker.terminate()));
    },
  };
}
