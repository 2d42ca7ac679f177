// The Kubernetes ingest path phase by phase, in one process (issue 14 budget): parse, normalize, scrub,
// chunk, journal (append + fsync), apply to a fresh tenant graph and complete the scope. Best of N rounds.
//   npm run build && node build/bench/k8s-phases.js [--rounds 5] [--warm]
// (tsx adds its own helpers to every function: build first for figures comparable with the service's)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordPieces } from '../src/bus/memory.js';
import { Journal } from '../src/bus/journal.js';
import { createTenantGraph } from '../src/graph/model.js';
import { GraphWriter } from '../src/graph/writer.js';
import { chunkEnvelope } from '../src/ingest/chunk.js';
import { envelopeJsonOf } from '../src/ingest/envelope-json.js';
import { scrubEnvelope } from '../src/ingest/scrub.js';
import { createSources } from '../src/ingest/sources/index.js';
import { createK8sSource } from '../src/ingest/sources/k8s.js';
import { warmUpIngest } from '../src/ingest/warm-up.js';
import { silentLog } from '../src/log/logger.js';
import { syntheticClusterDump } from './k8s.js';

/** The main thread's CPU time in ms (utime + stime of its task, 10 ms ticks): steadier than wall time on a busy host. */
const mainCpu = () => {
  const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const at = process.argv.indexOf('--rounds');
const rounds = at > 0 ? Number(process.argv[at + 1]) : 5;
const text = JSON.stringify(syntheticClusterDump());
const k8s = createK8sSource();
// --warm: the service's start-up warm-up first (src/ingest/warm-up.ts), as a started service has run it.
if (process.argv.includes('--warm')) console.log(`warm-up ${warmUpIngest(createSources()).toFixed(0)} ms`);
const best: Record<string, number> = {};
const last: [string, number][] = [];
const keep = (name: string, ms: number) => {
  last.push([name, ms]);
  best[name] = Math.min(best[name] ?? Infinity, ms);
};
for (let round = 0; round < rounds; round++) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'k8s-phases-'));
  const cpu0 = mainCpu();
  let t = performance.now();
  const body = JSON.parse(text) as unknown;
  keep('parse', performance.now() - t);
  t = performance.now();
  const out = k8s.normalize({ body, query: {}, receivedAt: new Date().toISOString() });
  keep('normalize', performance.now() - t);
  t = performance.now();
  for (const e of out.envelopes) scrubEnvelope(e);
  keep('scrub', performance.now() - t);
  t = performance.now();
  const chunks = out.envelopes.flatMap((e) => chunkEnvelope(e));
  keep('chunk', performance.now() - t);
  const journal = await Journal.open(dir, {});
  t = performance.now();
  const records = chunks.map((cut, chunk) => ({
    tenant: 'default',
    ingestSource: 'k8s',
    batchId: `b-${round}`,
    chunk,
    chunks: chunks.length,
    receivedAt: Date.now(),
    envelope: cut.envelope,
    envelopeJson: envelopeJsonOf(cut),
    scope: 'k8s:cluster',
  }));
  await journal.appendSerialized(records.map(recordPieces), { stringified: true });
  keep('journal', performance.now() - t);
  await journal.close?.();
  const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
  t = performance.now();
  for (const r of records) writer.apply(r.envelope, r.receivedAt, r.scope);
  keep('apply', performance.now() - t);
  t = performance.now();
  writer.completeScope('k8s:cluster');
  keep('sweep', performance.now() - t);
  console.log(
    `round ${round + 1}: ${chunks.length} chunks, graph ${writer.graph.order} nodes ${writer.graph.size} edges; ${last.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`,
  );
  console.log(`  main-thread cpu ${mainCpu() - cpu0} ms`);
  last.length = 0;
  rmSync(dir, { recursive: true, force: true });
}
const total = Object.values(best).reduce((s, v) => s + v, 0);
console.log(
  Object.entries(best)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(', ') + `; sum ${total.toFixed(0)} ms`,
);
