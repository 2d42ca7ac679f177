// The synthetic estates the benchmarks use: ../shared/bench/gen_estate.mjs (seeded) into BENCH_DIR, and
// their records streamed into ingest request bodies of at most 30 MiB, nodes first.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// BENCH_SHARED: the shared bench folder when this tree is not next to it (a worktree elsewhere).
const shared = process.env.BENCH_SHARED ?? path.resolve(root, '..', 'shared', 'bench');
// BENCH_REQUEST_MIB: the largest request, 1 to 31 MiB (default 30, under the 32 MiB body limit). The goals are
// measured at 30; smaller requests show what a client gains by sending an estate in more, smaller reports.
const REQUEST_MIB = Number(process.env.BENCH_REQUEST_MIB ?? 30);
if (!Number.isInteger(REQUEST_MIB) || REQUEST_MIB < 1 || REQUEST_MIB > 31)
  throw new Error(
    `bench: BENCH_REQUEST_MIB must be a whole number from 1 to 31, got ${process.env.BENCH_REQUEST_MIB}`,
  );
const REQUEST_BYTES = REQUEST_MIB * 1024 * 1024;

/** The shared generator's layered estate of `nodes` nodes (seeded), generated once into outDir. */
export function generateEstate(
  nodes: number,
  o: { outDir: string; starts: number; targets: number },
): string {
  const { outDir, starts, targets } = o;
  const file = path.join(outDir, `e${nodes}-s${starts}-t${targets}.json`);
  if (!existsSync(file)) {
    execFileSync(
      process.execPath,
      [
        path.join(shared, 'gen_estate.mjs'),
        '--nodes',
        String(nodes),
        '--starts',
        String(starts),
        '--targets',
        String(targets),
        '--seed',
        '1',
        '--out',
        file,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return file;
}

/** Streams the generator's one-record-per-line file into envelopes of at most REQUEST_BYTES, nodes first. */
export async function* estateRequests(file: string): AsyncGenerator<string> {
  const head = '{"source":"bench","kind":"asset","observed_at":"2025-01-01T00:00:00.000Z",';
  let section: 'nodes' | 'edges' | null = null;
  let items: string[] = [];
  let bytes = 0;
  const flush = () => {
    const body = `${head}"nodes":[${section === 'nodes' ? items.join(',') : ''}],"edges":[${section === 'edges' ? items.join(',') : ''}]}`;
    items = [];
    bytes = 0;
    return body;
  };
  for await (const raw of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const line = raw.trim().replace(/,$/, '');
    if (line.endsWith('"nodes":[')) section = 'nodes';
    else if (line.endsWith('"edges":[')) {
      if (items.length) yield flush();
      section = 'edges';
    } else if (line.startsWith('{"id"') || line.startsWith('{"type"')) {
      if (bytes + line.length > REQUEST_BYTES) yield flush();
      items.push(line);
      bytes += line.length + 1;
    }
  }
  if (items.length) yield flush();
}

type IngestApp = { inject(request: object): Promise<{ statusCode: number }> };

/** Posts one `events` body to a service built in the bench's process (inject); it must be answered 202. */
export async function postEvents(ingestApp: IngestApp, body: string | object): Promise<void> {
  const response = await ingestApp.inject({
    method: 'POST',
    url: '/ingest/events',
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (response.statusCode !== 202) throw new Error(`bench: ingest answered ${response.statusCode}`);
}

/** Posts the estate's requests to a service built in the bench's process, each answered 202. */
export async function ingestEstate(ingestApp: IngestApp, file: string): Promise<void> {
  for await (const body of estateRequests(file)) await postEvents(ingestApp, body);
}
