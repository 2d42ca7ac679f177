// A full garbage collection of the calling thread's heap, on demand. An ingest worker (report-worker.ts)
// ends each report holding what the report made, several hundred MB that V8 collects only when the next
// reports' allocations ask for it: at the 1M-node estate the worker's heap stood at 250–530 MB between
// reports, most of it garbage, and the service's peak RSS at 1.5 GiB. Collected after each report, the
// worker starts the next from about 13 MB in use (docs/perf.md, "the ingest worker's heap").
//
// V8 exposes its collector to JavaScript only under --expose-gc, which a worker thread cannot be given
// (it is a V8 option: process-wide). Set at run time, it applies to contexts made afterwards, so a new
// context's `gc` is the collector of the isolate (thread) that made it: jest-leak-detector's way.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A function that runs a full collection of this thread's heap, or undefined where V8 refuses one. */
export function fullCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `handle`, followed by a full collection once the job it ran is answered: on the next turn, so that the
 * job's own message is garbage too. Without a collector (fullCollection refused), `handle` as it is.
 */
export function collectingAfter<T>(handle: (job: T) => void): (job: T) => void {
  const collect = fullCollection();
  if (!collect) return handle;
  return (job) => {
    handle(job);
    setImmediate(collect);
  };
}
