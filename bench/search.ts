// Search (BENCH_SUITES=search): the 100k estate through the real ingest path of an in-process service and
// one analyzer pass, then, on the documents the search service builds from that graph and its open paths:
// build time and heap of each candidate in-process library (MiniSearch, the default; FlexSearch; Orama),
// and the latency (p50, p95) and recall@20 of four kinds of query drawn from the estate's own names (the
// whole name, a prefix of it, a one-letter typo, one common word); then the service as GraphQL and the MCP
// server call it (`engine.search.search`: index, live checks, snippets), a rebuild as after a restart, and
// the update after a pass that changed one node.
import { rmSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import { Document as FlexDocument } from 'flexsearch';
import { pino } from 'pino';
import { buildService } from '../app/service.js';
import { loadSettings } from '../src/config/settings.js';
import { nodeDoc, pathDoc, type FindingsCache } from '../src/search/documents.js';
import { EmbeddedSearchIndex } from '../src/search/embedded-index.js';
import { tokenize, typoBudget } from '../src/search/query.js';
import type { SearchDoc } from '../src/search/search-index.js';
import { ingestEstate } from './estate.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

interface Candidate {
  name: string;
  build(docs: readonly SearchDoc[]): Promise<void>;
  /** the keys of the best 20 documents matching every word */
  query(terms: string[]): Promise<string[]>;
  /** let go of the index (its heap is measured before) */
  drop(): void;
}

function miniSearch(): Candidate {
  let index: EmbeddedSearchIndex | undefined = new EmbeddedSearchIndex();
  return {
    name: 'MiniSearch 7.2 (default)',
    build: (docs) => index!.replace('bench', docs),
    query: async (terms) =>
      (await index!.query('bench', { terms, offset: 0, limit: 20 })).hits.map((h) => h.doc.key),
    drop: () => (index = undefined),
  };
}

interface FlexLike {
  add(doc: SearchDoc): void;
  search(
    query: string,
    options: object,
  ): { id: string | number }[] | { field: string; result: (string | number)[] }[];
}

function flexSearch(): Candidate {
  let index: FlexLike | undefined;
  return {
    name: 'FlexSearch 0.8 (forward tokenizer, LatinBalance encoder)',
    build: async (docs) => {
      index = new FlexDocument({
        document: { id: 'key', index: ['name', 'label', 'text'] },
        tokenize: 'forward',
        encoder: 'LatinBalance',
      } as never) as unknown as FlexLike;
      for (const doc of docs) index.add(doc);
    },
    query: async (terms) => {
      const results = index!.search(terms.join(' '), { limit: 20, merge: true, suggest: false }) as {
        id: string | number;
      }[];
      return results.slice(0, 20).map((r) => String(r.id));
    },
    drop: () => (index = undefined),
  };
}

/** Orama builds slowly: it is stopped after this long, and its figures are for what it holds then. */
const ORAMA_BUILD_LIMIT_MS = 180_000;

function orama(): Candidate {
  let db: AnyOrama | undefined;
  const candidate: Candidate = {
    name: 'Orama 3.1 (tolerance by word length, all words)',
    build: async (docs) => {
      db = create({
        schema: { key: 'string', name: 'string', label: 'string', text: 'string' } as const,
      }) as AnyOrama;
      const began = performance.now();
      let inserted = 0;
      for (; inserted < docs.length && performance.now() - began < ORAMA_BUILD_LIMIT_MS; inserted += 5_000)
        await insertMultiple(
          db,
          docs
            .slice(inserted, inserted + 5_000)
            .map((d) => ({ id: d.key, key: d.key, name: d.name, label: d.label, text: d.text })),
          5_000,
        );
      if (inserted < docs.length)
        candidate.name += ` [stopped after ${ORAMA_BUILD_LIMIT_MS / 1000} s with ${inserted} of ${docs.length} documents]`;
    },
    query: async (terms) => {
      const result = await oramaSearch(db!, {
        term: terms.join(' '),
        properties: ['name', 'label', 'text'],
        tolerance: Math.max(...terms.map(typoBudget)),
        boost: { name: 3, label: 1.5 },
        threshold: 0,
        limit: 20,
      });
      return result.hits.map((h) => String(h.id));
    },
    drop: () => (db = undefined),
  };
  return candidate;
}

/** A seeded pseudo-random sequence (mulberry32), so every run draws the same queries. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Query {
  kind: 'whole name' | 'prefix' | 'one typo' | 'common word';
  text: string;
  /** the document that must be among the best 20 (none for a common word) */
  expected?: string;
}

/** 200 queries of each kind from the estate's node names (typos only in words of four letters or more). */
function drawQueries(docs: readonly SearchDoc[]): Query[] {
  const random = seeded(36);
  const nodes = docs.filter((d) => d.kind !== 'path');
  const pick = () => nodes[Math.floor(random() * nodes.length)];
  const out: Query[] = [];
  for (let i = 0; i < 200; i++) {
    const whole = pick();
    out.push({ kind: 'whole name', text: whole.name, expected: whole.key });
    const prefixed = pick();
    out.push({ kind: 'prefix', text: prefixed.name.slice(0, -1), expected: prefixed.key });
    let typo: SearchDoc | undefined;
    let words: string[] = [];
    for (let tries = 0; tries < 50 && !typo; tries++) {
      const candidate = pick();
      words = tokenize(candidate.name);
      if (words.some((w) => w.length >= 5 && /[a-z]/.test(w))) typo = candidate;
    }
    if (typo) {
      const at = words.findIndex((w) => w.length >= 5 && /[a-z]/.test(w));
      const word = words[at];
      const position = 1 + Math.floor(random() * (word.length - 2));
      const swapped = word[position] === 'x' ? 'y' : 'x';
      words[at] = `${word.slice(0, position)}${swapped}${word.slice(position + 1)}`;
      out.push({ kind: 'one typo', text: words.join(' '), expected: typo.key });
    }
    out.push({ kind: 'common word', text: ['prod', 'staging', 'api', 'web', 'cve'][i % 5] });
  }
  return out;
}

interface Figures {
  p50: number;
  p95: number;
  /** CPU time of this process (the machine is shared: wall time includes waiting for a core) */
  cpuP50: number;
  cpuP95: number;
  recall: number;
  n: number;
}

const show = (kind: string, f: Figures) =>
  `    ${kind.padEnd(11)} p50 ${f.p50.toFixed(2)} ms (CPU ${f.cpuP50.toFixed(2)} ms), p95 ${f.p95.toFixed(2)} ms (CPU ${f.cpuP95.toFixed(2)} ms), recall@20 ${(100 * f.recall).toFixed(0)} % (${f.n} queries)`;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function measure(
  run: (terms: string[]) => Promise<string[]>,
  queries: readonly Query[],
): Promise<Map<Query['kind'], Figures>> {
  const out = new Map<Query['kind'], Figures>();
  for (const kind of ['whole name', 'prefix', 'one typo', 'common word'] as const) {
    const chosen = queries.filter((q) => q.kind === kind);
    const times: number[] = [];
    const cpu: number[] = [];
    let found = 0;
    // A first query warms the code up; it is not counted.
    await run(tokenize(chosen[0].text));
    for (const q of chosen) {
      const began = performance.now();
      const cpuBefore = process.cpuUsage();
      const keys = await run(tokenize(q.text));
      const used = process.cpuUsage(cpuBefore);
      times.push(performance.now() - began);
      cpu.push((used.user + used.system) / 1000);
      if (!q.expected || keys.includes(q.expected)) found++;
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    out.set(kind, {
      p50: percentile(times, 0.5),
      p95: percentile(times, 0.95),
      cpuP50: percentile(cpu, 0.5),
      cpuP95: percentile(cpu, 0.95),
      recall: found / chosen.length,
      n: chosen.length,
    });
  }
  return out;
}

const heapMiB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

export async function runSearchBench(estateFile: string, nodes: number): Promise<void> {
  console.log('Search (100k estate, in process)');
  const dataDir = 'bench-out/data-search';
  rmSync(dataDir, { recursive: true, force: true });
  const service = await buildService({
    settings: loadSettings({ DATA_DIR: dataDir, ANALYZER_THREADS: '2' }),
    logger: pino({ level: 'silent' }),
  });
  try {
    await ingestEstate(service.ingestApp, estateFile);
    await service.engine.drain();
    const passBegan = performance.now();
    await service.engine.analyzeAll();
    const tenant = service.engine.tenant('default')!;
    console.log(
      `  estate: ${tenant.graph.order} nodes (of ${nodes}), ${tenant.graph.size} edges, ${tenant.paths.open().length} open paths; first pass with the index build ${((performance.now() - passBegan) / 1000).toFixed(2)} s`,
    );

    // The documents, as the service builds them.
    let began = performance.now();
    const docsCpu = process.cpuUsage();
    const docs: SearchDoc[] = [];
    tenant.graph.forEachNode((id, attrs) => docs.push(nodeDoc(tenant.graph, id, attrs)));
    const cache: FindingsCache = new Map();
    for (const record of tenant.paths.open()) docs.push(pathDoc(tenant.graph, record, cache).doc);
    console.log(
      `  documents: ${docs.length} built from the graph and path store in ${(performance.now() - began).toFixed(0)} ms (CPU ${cpuMs(docsCpu).toFixed(0)} ms)`,
    );
    const queries = drawQueries(docs);

    for (const candidate of [miniSearch(), flexSearch(), orama()]) {
      const before = heapMiB();
      began = performance.now();
      const cpu = process.cpuUsage();
      await candidate.build(docs);
      const buildMs = performance.now() - began;
      const buildCpu = cpuMs(cpu);
      const heap = heapMiB() - before;
      const figures = await measure((terms) => candidate.query(terms), queries);
      console.log(
        `  ${candidate.name}: build ${(buildMs / 1000).toFixed(2)} s (CPU ${(buildCpu / 1000).toFixed(2)} s), heap +${heap.toFixed(0)} MiB`,
      );
      for (const [kind, f] of figures) console.log(show(kind, f));
      candidate.drop();
    }

    // The service itself: index, live checks, snippets.
    const serviceFigures = await measure(async (terms) => {
      const page = await service.engine.search.search('default', terms.join(' '), { first: 20 });
      return page.hits.map((h) => `${h.kind}:${h.id}`);
    }, queries);
    console.log('  engine.search.search (MiniSearch, live checks, snippets; first 20):');
    for (const [kind, f] of serviceFigures) console.log(show(kind, f));

    // A rebuild, as the first query after a restart makes it (documents and index).
    service.engine.search.invalidate('default');
    began = performance.now();
    const rebuildCpu = process.cpuUsage();
    await service.engine.search.search('default', 'prod', { first: 1 });
    console.log(
      `  rebuild (documents + index, as after a restart): ${((performance.now() - began) / 1000).toFixed(2)} s (CPU ${(cpuMs(rebuildCpu) / 1000).toFixed(2)} s)`,
    );

    // The update after a pass that changed one node: the node's document, and every open path's route looked at.
    const someNode = docs.find((d) => d.kind === 'node')!.id;
    began = performance.now();
    const updateCpu = process.cpuUsage();
    await service.engine.search.afterPass(tenant, {
      all: false,
      nodes: new Set([someNode]),
      edges: new Set(),
      removedNodes: new Set(),
      removedEdges: new Set(),
    });
    console.log(
      `  update after a pass that changed one node: ${(performance.now() - began).toFixed(1)} ms (CPU ${cpuMs(updateCpu).toFixed(1)} ms)`,
    );
    console.log(
      `  service heap after all: ${heapMiB().toFixed(0)} MiB, RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
    );
  } finally {
    await service.close();
  }
}
