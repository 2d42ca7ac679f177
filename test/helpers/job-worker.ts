// A worker for test/workers/job-pool.test.ts: echoes a job, answers one in parts, throws, or exits, as the
// job asks; announces itself ready when asked to (workerData.announce), after `delayMs`.
import { parentPort, threadId, workerData } from 'node:worker_threads';

const data = workerData as { announce?: boolean; delayMs?: number; warm?: boolean };
const port = parentPort!;
port.on('message', (job: { id: number; mode: string; value?: unknown }) => {
  if (job.mode === 'echo')
    port.postMessage({ id: job.id, value: job.value, warm: data.warm === true, threadId });
  else if (job.mode === 'parts') {
    port.postMessage({ id: job.id, part: 1 });
    port.postMessage({ id: job.id, part: 2 });
    port.postMessage({ id: job.id, value: 'done' });
  } else if (job.mode === 'throw') throw new Error('the job asked to fail');
  else if (job.mode === 'exit') process.exit(3);
});
if (data.announce) setTimeout(() => port.postMessage({ id: 0 }), data.delayMs ?? 0);
