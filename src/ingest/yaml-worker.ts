// A YAML parsing worker thread (started by yaml-pool.ts): the `yaml` package reads about a megabyte a
// second, which on the event loop would stall every listener. Each job is one body's bytes; the answer is
// the List, or the problem the parse raised (as a plain body), or an unexpected error's message.
import { parentPort, workerData } from 'node:worker_threads';
import { collectingAfter } from '../workers/full-collection.js';
import { ProblemError, type Problem } from '../http/problems.js';
import { yamlToList, type KubernetesList } from './yaml.js';

/** workerData marking a thread started by yaml-pool.ts (a module importing this one stays inert). */
export const YAML_WORKER_ROLE = 'pathgate/yaml-worker';

export interface YamlJob {
  id: number;
  bytes: Uint8Array;
}

export type YamlReply =
  | { id: number; ok: true; list: KubernetesList }
  | { id: number; ok: false; problem: Problem }
  | { id: number; ok: false; message: string };

const decoder = new TextDecoder('utf-8');

export function runYamlJob(job: YamlJob): YamlReply {
  try {
    return { id: job.id, ok: true, list: yamlToList(decoder.decode(job.bytes)) };
  } catch (error) {
    if (error instanceof ProblemError) return { id: job.id, ok: false, problem: error.problem };
    return { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

if (parentPort && (workerData as { role?: string } | null)?.role === YAML_WORKER_ROLE) {
  const port = parentPort;
  // What a parse made is collected once it is answered, as the report workers do (full-collection.ts).
  port.on(
    'message',
    collectingAfter((job: YamlJob) => port.postMessage(runYamlJob(job))),
  );
}
