// The NDJSON export (GET /export/ndjson) on a listening service, for issue 19: time to the last byte and the
// process's heap while the answer streams, on
//   1. the 100k-node estate of the shared generator (bench-out/e100000-s64-t32.json), through ingest;
//   2. an estate with 100,000 open paths (1,000 internet-facing load balancers → one service → 100
//      crown-jewel databases), to show memory stays flat with the number of lines.
// The body is read as a stream and discarded; heap and RSS are sampled every 20 ms while it streams.
//   node --expose-gc --import tsx bench/export.ts [bench-out/e100000-s64-t32.json] [--runs 3] [--paths-only]
// GET /export/oscal is measured the same way (its lines are not meaningful: compact JSON).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { buildService, type Service } from '../app/service.js';
import { loadSettings } from '../src/config/settings.js';
import { nodeId } from '../src/graph/ids.js';
import type { EdgeType, NodeLabel } from '../src/graph/vocabulary.js';

const tempDir = (prefix: string) => mkdtemp(path.join(os.tmpdir(), prefix));
const node = (label: NodeLabel, name: string, properties: Record<string, unknown> = {}) => ({
  id: nodeId(label, name),
  label,
  name,
  properties,
});
const edge = (type: EdgeType, from: { id: string }, to: { id: string }, p: number) => ({
  type,
  from: from.id,
  to: to.id,
  exploit_probability: p,
});
const envelope = (nodes: ReturnType<typeof node>[], edges: ReturnType<typeof edge>[]) => ({
  source: 'bench',
  kind: 'asset',
  observed_at: '2026-11-01T00:00:00Z',
  nodes,
  edges,
});

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
const estateFile = process.argv[2]?.endsWith('.json') ? process.argv[2] : 'bench-out/e100000-s64-t32.json';
const MB = 1024 * 1024;

async function serviceWith(body: unknown): Promise<{ service: Service; url: string; dir: string }> {
  const dir = await tempDir('pathgate-bench-export-');
  const settings = loadSettings(
    { DATA_DIR: dir, ANALYZER_THREADS: '2', API_RATE_RPS: '100000' },
    { demoData: false },
  );
  const service = await buildService({ settings, logger: pino({ level: 'silent' }) });
  await service.engine.ingest({ tenant: 'default', source: 'events', body, query: {} });
  await service.engine.drain();
  await service.engine.analyzeAll();
  const url = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  return { service, url, dir };
}

async function measure(url: string, route: string) {
  global.gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const started = performance.now();
  const response = await fetch(`${url}${route}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  global.gc?.();
  const retainedMb = (process.memoryUsage().heapUsed - base.heapUsed) / MB;
  return {
    seconds,
    lines,
    mb: bytes / MB,
    heapGrowthMb: (peakHeap - base.heapUsed) / MB,
    rssGrowthMb: (peakRss - base.rss) / MB,
    retainedMb,
    signed: response.headers.has('x-service-signature'),
  };
}

async function bench(name: string, body: unknown) {
  const { service, url, dir } = await serviceWith(body);
  const open = service.engine.tenant('default')?.paths.open().length ?? 0;
  console.log(`${name}: ${open} open paths`);
  for (const route of ['/export/ndjson', '/export/oscal']) {
    for (let i = 0; i < runs; i++) {
      const r = await measure(url, route);
      console.log(
        `  ${route} run ${i + 1}: ${r.seconds.toFixed(2)} s, ${r.lines} lines, ${r.mb.toFixed(1)} MB, heap +${r.heapGrowthMb.toFixed(1)} MB, rss +${r.rssGrowthMb.toFixed(1)} MB, heap after GC ${r.retainedMb >= 0 ? '+' : ''}${r.retainedMb.toFixed(1)} MB, signed ${r.signed}`,
      );
    }
  }
  await service.close();
  await rm(dir, { recursive: true, force: true });
}

function manyPaths(starts: number, targets: number) {
  const hub = node('Service', 'hub');
  const lbs = Array.from({ length: starts }, (_, i) =>
    node('LoadBalancer', `lb-${i}`, { internet_exposed: true }),
  );
  const dbs = Array.from({ length: targets }, (_, i) => node('Database', `db-${i}`, { crown_jewel: true }));
  return envelope(
    [hub, ...lbs, ...dbs],
    [
      ...lbs.map((lb, i) => edge('ROUTES_TO', lb, hub, 0.5 + (i % 50) / 100)),
      ...dbs.map((db) => edge('CONNECTS_TO', hub, db, 0.9)),
    ],
  );
}

if (!process.argv.includes('--paths-only'))
  await bench(`100k-node estate (${estateFile})`, JSON.parse(await readFile(estateFile, 'utf8')));
await bench('100,000 paths (1,000 starts × 100 targets)', manyPaths(1000, 100));
