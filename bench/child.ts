// The service the benchmarks measure, in a child process of its own (bench/serve.ts) with a fresh data
// directory: its URLs and pid once it listens, and a stop that kills it and removes its data.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { postBytes } from './post-bytes.js';

export interface BenchService {
  ingestUrl: string;
  apiUrl: string;
  pid: number;
  stop(): void;
}

export async function startBenchService(
  root: string,
  dataDir: string,
  /** settings on top of the bench's own (the scale-out suite's bus and database) */
  extraEnv: Record<string, string> = {},
): Promise<BenchService> {
  rmSync(dataDir, { recursive: true, force: true });
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=3584',
      '--max-semi-space-size=64',
      // As `npm start` runs the service (docs/perf.md, "Settings that matter").
      '--initial-old-space-size=512',
      '--heap-growing-percent=15',
      // BENCH_NODE_ARGS: more V8/Node flags for the service (experiments with heap settings).
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      path.join(root, 'build', 'bench', 'serve.js'),
    ],
    {
      env: {
        ...process.env,
        // As `npm start` runs the service (docs/perf.md, "Settings that matter"); BENCH_GLIBC_TUNABLES='' runs
        // it without.
        GLIBC_TUNABLES: process.env.BENCH_GLIBC_TUNABLES ?? 'glibc.malloc.hugetlb=1',
        ...extraEnv,
        DATA_DIR: dataDir,
        INGEST_ADDR: '127.0.0.1:0',
        API_ADDR: '127.0.0.1:0',
        ANALYZER_INTERVAL: process.env.BENCH_ANALYZER_INTERVAL ?? '250ms',
        SNAPSHOT_INTERVAL: '24h',
        DEMO_DATA: 'false',
        // The bench is one client sending as fast as it can, polling status every 20 ms.
        INGEST_RATE_RPS: '100000',
        API_RATE_RPS: '100000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = () => {
    // A profiled service (BENCH_NODE_ARGS='--cpu-prof ...'; NODE_OPTIONS does not take --cpu-prof) exits on
    // SIGTERM so that node writes its profile (bench/serve.ts).
    child.kill(process.env.BENCH_NODE_ARGS?.includes('--cpu-prof') ? 'SIGTERM' : 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The first JSON line is the service's address; anything else the service prints on stdout (V8's
    // --trace-gc through BENCH_NODE_ARGS) goes on to stderr.
    const lines = createInterface({ input: child.stdout! });
    const address = new Promise<{ ingestUrl: string; apiUrl: string; pid: number }>((resolve, reject) => {
      let found = false;
      lines.on('line', (line) => {
        if (!found && line.startsWith('{"ingestUrl"')) {
          found = true;
          resolve(JSON.parse(line) as { ingestUrl: string; apiUrl: string; pid: number });
        } else process.stderr.write(`${line}\n`);
      });
      lines.on('close', () => {
        if (!found) reject(new Error('bench: the service exited before it listened'));
      });
    });
    return { ...(await address), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/**
 * CPU time (user + system, ms) of a process's main thread so far, from /proc (10 ms ticks). Wall time on this
 * shared 2-core host moves by ±20 % from run to run; the main thread's CPU time, which is what ingest and
 * analysis are bound by, moves much less, so the bench prints both.
 */
export function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * When every chunk of an ingest batch was in the tenant's graph (GraphQL `ingestBatch.completedAt`, epoch
 * ms), or null while it is not.
 */
async function batchCompletedAt(
  service: BenchService,
  tenant: string,
  batchId: string,
): Promise<number | null> {
  const s = await fetch(`${service.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant': tenant },
    body: JSON.stringify({
      query: 'query($id: ID!) { ingestBatch(id: $id) { completedAt } }',
      variables: { id: batchId },
    }),
  });
  const { data } = (await s.json()) as { data: { ingestBatch: { completedAt: string | null } | null } };
  if (!data.ingestBatch) throw new Error(`bench: batch ${batchId} unknown to tenant ${tenant}`);
  return data.ingestBatch.completedAt === null ? null : Date.parse(data.ingestBatch.completedAt);
}

/**
 * How often the bench asks whether a batch is complete. Each question is a GraphQL request the service
 * answers between slices of the very apply being timed: asked every 5 ms, they took 20-50 ms of it
 * (docs/perf.md, "Tenth session"). The time reported is the batch's own completedAt, so asking less often
 * loses nothing.
 */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 25);

/**
 * One report through a fresh bench service: prints how long until it was acknowledged (durable) and until
 * every chunk of it was in the graph. With `again`, the same report then goes to a second tenant of the same
 * process, which shows what the first one paid for a cold process.
 */
export async function timeOneReport(
  root: string,
  dataDir: string,
  source: string,
  body: string,
  options: { again?: boolean } = {},
): Promise<void> {
  const service = await startBenchService(root, dataDir);
  // The report as bytes, as a client sends a file: encoding an 18 MiB string is the bench's own work.
  const bytes = Buffer.from(body);
  try {
    for (const [tenant, what] of [
      ['default', 'through the service'],
      ...(options.again ? [['second', 'again, into a second tenant of the same process']] : []),
    ] as const) {
      const cpu = mainThreadCpuMs(service.pid);
      const began = performance.now();
      // The service stamps completedAt with Date.now(): same host, same clock.
      const sentAt = Date.now();
      const r = await postBytes(`${service.ingestUrl}/ingest/${source}`, bytes, { 'x-tenant': tenant });
      if (r.status !== 202) throw new Error(`bench: ${source} ingest answered ${r.status}: ${r.text}`);
      const { batchId } = JSON.parse(r.text) as { batchId: string };
      const acknowledged = performance.now();
      // Every chunk applied, edges included (the node count alone is reached with the first chunks).
      let completedAt: number | null;
      while ((completedAt = await batchCompletedAt(service, tenant, batchId)) === null)
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const seen = performance.now() - began;
      console.log(
        `  ${what}: acknowledged in ${(acknowledged - began).toFixed(0)} ms, in the graph in ${completedAt - sentAt} ms (seen complete at ${seen.toFixed(0)} ms; service main thread: ${mainThreadCpuMs(service.pid) - cpu} ms CPU)`,
      );
    }
  } finally {
    service.stop();
  }
}
