// The 100k estate's ingest path phase by phase, in one process (issue 38): the bench's request bodies
// (bench/estate.ts: the shared generator's estate in envelopes of at most 30 MiB) through what the service
// does with each before its 202: decode and parse with the body guard, the `events` source's validation,
// scrubbing, chunking into bus messages and the journal (append + fdatasync). The graph write is left out:
// it is timed by bench/k8s-phases.ts and the estate suite. Best of N rounds per phase; main-thread CPU of the
// median round.
//   npm run build && node build/bench/estate-phases.js [--rounds 5] [--nodes 100000] [--serialize]
// (--serialize: chunks serialized from the parsed items, as before chunks were cut from the request's text)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal } from '../src/bus/journal.js';
import { recordPieces } from '../src/bus/memory.js';
import { chunkEnvelope } from '../src/ingest/chunk.js';
import { envelopeJsonOf } from '../src/ingest/envelope-json.js';
import { chunkRawEnvelope } from '../src/ingest/chunk-raw.js';
import { parseJsonBody } from '../src/ingest/json-body.js';
import { scrubEnvelope } from '../src/ingest/scrub.js';
import { createEventsSource } from '../src/ingest/sources/events.js';
import { estateRequests, generateEstate } from './estate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const rounds = flag('--rounds', 5);
const serialize = process.argv.includes('--serialize');
const nodes = flag('--nodes', 100_000);
const outDir = path.resolve(root, process.env.BENCH_DIR ?? 'bench-out');
const file = generateEstate(nodes, { outDir, starts: 64, targets: 32 });
// The bodies as bytes, as they arrive: the service decodes each before parsing it.
const bodies: Buffer[] = [];
for await (const body of estateRequests(file)) bodies.push(Buffer.from(body));
console.log(
  `estate ${nodes} nodes: ${bodies.length} requests, ${(bodies.reduce((n, b) => n + b.length, 0) / 1048576).toFixed(0)} MiB`,
);

const mainCpu = () => {
  const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const events = createEventsSource();
const best: Record<string, number> = {};
const cpus: number[] = [];
for (let round = 0; round < rounds; round++) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'estate-phases-'));
  const journal = await Journal.open(dir, {});
  const took: Record<string, number> = {};
  const add = (name: string, ms: number) => (took[name] = (took[name] ?? 0) + ms);
  const cpu0 = mainCpu();
  for (const [i, bytes] of bodies.entries()) {
    let t = performance.now();
    const body = parseJsonBody(bytes.toString('utf8'), { keepText: true });
    add('parse', performance.now() - t);
    t = performance.now();
    const { envelopes, raw } = events.normalize({ body, query: {}, receivedAt: new Date().toISOString() });
    add('validate', performance.now() - t);
    t = performance.now();
    for (const e of envelopes) scrubEnvelope(e);
    add('scrub', performance.now() - t);
    t = performance.now();
    const chunks = envelopes.flatMap((e, at) => {
      const text = raw?.[at];
      return text && !serialize ? chunkRawEnvelope(e, text) : chunkEnvelope(e);
    });
    add('chunk', performance.now() - t);
    t = performance.now();
    const lines = chunks.map((cut, chunk) =>
      recordPieces({
        tenant: 'default',
        ingestSource: 'events',
        batchId: `b-${round}-${i}`,
        chunk,
        chunks: chunks.length,
        receivedAt: Date.now(),
        envelope: cut.envelope,
        envelopeJson: envelopeJsonOf(cut),
      }),
    );
    await journal.appendSerialized(lines, { stringified: true });
    add('journal', performance.now() - t);
  }
  cpus.push(mainCpu() - cpu0);
  await journal.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `round ${round + 1}: ${Object.entries(took)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ')}; main-thread cpu ${cpus[cpus.length - 1]} ms`,
  );
  for (const [k, v] of Object.entries(took)) best[k] = Math.min(best[k] ?? Infinity, v);
}
const total = Object.values(best).reduce((s, v) => s + v, 0);
cpus.sort((a, b) => a - b);
console.log(
  `best of ${rounds}: ${Object.entries(best)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(
      ', ',
    )}; sum ${total.toFixed(0)} ms; main-thread cpu (median round) ${cpus[Math.floor(cpus.length / 2)]} ms`,
);
