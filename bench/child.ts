// The service the benchmarks measure, in a child process of its own (bench/serve.ts) with a fresh data
// directory: its URLs and pid once it listens, and a stop that kills it and removes its data.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface BenchService {
  ingestUrl: string;
  apiUrl: string;
  pid: number;
  stop(): void;
}

export async function startBenchService(root: string, dataDir: string): Promise<BenchService> {
  rmSync(dataDir, { recursive: true, force: true });
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=3584', '--max-semi-space-size=64', path.join(root, 'build', 'bench', 'serve.js')],
    {
      env: {
        ...process.env,
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
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    return { ...(JSON.parse(line) as { ingestUrl: string; apiUrl: string; pid: number }), stop };
  } catch (error) {
    stop();
    throw error;
  }
}
