// YAML bodies are parsed on worker threads, so a large or hostile document costs a worker its time, not
// the listeners theirs: /healthz, GraphQL and JSON ingest keep answering while it is read. Workers start
// on first use, take one body at a time, and never keep the process alive while idle.
import { ProblemError } from '../http/problems.js';
import { createJobPool } from '../workers/job-pool.js';
import type { KubernetesList } from './yaml.js';
import { YAML_WORKER_ROLE, type YamlJob, type YamlReply } from './yaml-worker.js';

export interface YamlPool {
  /** The body as one Kubernetes List; rejects with the parse's problem (yaml.ts). */
  parse(bytes: Uint8Array): Promise<KubernetesList>;
  /** Stops the workers; parses still running reject. */
  close(): Promise<void>;
}

/** At most `threads` YAML bodies are parsed at once (default 2); the others wait their turn. */
export function createYamlPool(options: { threads?: number } = {}): YamlPool {
  const pool = createJobPool<YamlJob, YamlReply>({
    name: 'ingest/yaml-pool',
    entry: new URL('./yaml-worker.js', import.meta.url),
    caller: import.meta.url,
    workerData: { role: YAML_WORKER_ROLE },
    threads: options.threads ?? 2,
    settle: (reply) =>
      reply.ok
        ? { value: reply.list }
        : 'problem' in reply
          ? { error: ProblemError.fromBody(reply.problem) }
          : { error: new Error(`ingest/yaml-pool: parse failed in a worker: ${reply.message}`) },
    // A document that needs more memory than a worker has is refused like an oversized body.
    failed: (error) =>
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new ProblemError(
            'payload-too-large',
            'the YAML body needs more memory to parse than a parsing worker has; split the report or send it as JSON',
          )
        : new Error(`ingest/yaml-pool: worker crashed: ${error.message}`, { cause: error }),
  });
  return {
    parse(bytes) {
      // A copy of its own, transferred to the worker: the request's buffer may be a view into a pool.
      const copy = new Uint8Array(bytes);
      return pool.run<KubernetesList>({ bytes: copy }, [copy.buffer]);
    },
    close: () => pool.close(),
  };
}
