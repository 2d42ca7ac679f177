// The database path finder (ANALYZER_DB_PATHS, src/db/db-path-finder.ts) against the in-process finder on
// seeded layered estates (BENCH_SUITES=dbpaths; also `npx tsx bench/db-paths.ts`): the full write of the
// graph store, then the median of three searches each way on the same compiled graph, checked equal.
//   BENCH_DBPATHS_SIZES=2000,5000 (nodes)  BENCH_PG_DSN (postgres://postgres@127.0.0.1:5432/test)
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { bestPaths, searchSide } from '../src/analysis/best-paths.js';
import type { CompiledGraph } from '../src/analysis/compiled-graph.js';
import { createPathFinder } from '../src/analysis/path-finder.js';
import { bestPathsQuery, searchInDatabase } from '../src/db/db-path-finder.js';
import { GraphStore } from '../src/db/graph-store.js';
import { createDb, migrate } from '../src/db/postgres.js';
import { runPass } from '../src/engine/analyzer.js';
import { TenantState } from '../src/engine/tenant.js';
import { nodeId } from '../src/graph/ids.js';
import type { NodeLabel } from '../src/graph/vocabulary.js';
import type { EnvelopeEdge, EnvelopeNode } from '../src/ingest/envelope.js';
import { silentLog } from '../src/log/logger.js';
import { createMetrics } from '../src/metrics/metrics.js';

const PG_DSN = process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';
const SIZES = (process.env.BENCH_DBPATHS_SIZES ?? '2000,5000').split(',').map(Number);

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Eight layers: internet-facing load balancers, services, identities, data stores (64 starts, 32 targets). */
function layeredEstate(
  nodes: number,
  random: () => number,
): { nodes: EnvelopeNode[]; edges: EnvelopeEdge[] } {
  const layers = 8;
  const per = Math.floor(nodes / layers);
  const out: EnvelopeNode[] = [];
  const byLayer: string[][] = [];
  for (let l = 0; l < layers; l++) {
    const label: NodeLabel = l === 0 ? 'LoadBalancer' : l === layers - 1 ? 'Database' : 'Service';
    const ids: string[] = [];
    for (let i = 0; i < per; i++) {
      const name = `l${l}-${i}`;
      const id = nodeId(label, name);
      const properties: Record<string, unknown> = {};
      if (l === 0 && i < 64) properties.internet_exposed = true;
      if (l === layers - 1 && i < 32) properties.crown_jewel = true;
      out.push({ id, label, name, properties });
      ids.push(id);
    }
    byLayer.push(ids);
  }
  const edges: EnvelopeEdge[] = [];
  const ps = [0.2, 0.4, 0.5, 0.6, 0.8, 0.9];
  for (let l = 0; l + 1 < layers; l++)
    for (const from of byLayer[l])
      for (let k = 0; k < 4; k++) {
        // Mostly forward, sometimes within the layer (routes of different lengths, cycles).
        const layer = random() < 0.8 ? l + 1 : l;
        const to = byLayer[layer][Math.floor(random() * per)];
        if (to !== from)
          edges.push({
            type: 'CONNECTS_TO',
            from,
            to,
            exploit_probability: ps[Math.floor(random() * ps.length)],
          });
      }
  return { nodes: out, edges };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function runDbPathsBench(): Promise<void> {
  console.log('\n== database path finder (ANALYZER_DB_PATHS) vs in-process ==');
  const schema = `benchdbpaths${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_DSN });
  try {
    await admin.connect();
  } catch (error) {
    console.log(`  PostgreSQL unavailable (${(error as Error).message}); run: bash scripts/services.sh`);
    return;
  }
  await admin.query(`create schema ${schema}`);
  const url = new URL(PG_DSN);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const db = createDb(url.toString());
  const finder = createPathFinder({ threads: 1 });
  try {
    await migrate(db);
    for (const size of SIZES) {
      const tenant = new TenantState(`bench${size}`, {
        log: silentLog(),
        parkedTtlMs: 1e12,
        thresholds: { p1: 0.5, p2: 0.1 },
      });
      const estate = layeredEstate(size, prng(size));
      tenant.writer.apply(
        { source: 'bench', kind: 'asset', observed_at: '2026-11-01T00:00:00Z', ...estate },
        1,
      );
      await runPass(tenant, {
        finder,
        metrics: createMetrics(),
        config: { seedIamUsers: false, graphTtlMs: null },
        now: () => 2,
      });
      const g = tenant.live;
      const store = new GraphStore(db, silentLog());
      let began = performance.now();
      store
        .tenant(tenant.name)
        .capture(g, null, { rebuilt: true, rolesChanged: true, cheaper: [], dearer: [], changes: 0 });
      if (!(await store.tenant(tenant.name).current())) throw new Error('graph store write failed');
      const writeMs = performance.now() - began;
      const options = { timeoutMs: 600_000, rowLimit: 1_000_000_000 };
      const inProcess: number[] = [];
      const inDb: number[] = [];
      let expected = bestPaths(g);
      let found = expected;
      for (let run = 0; run < 3; run++) {
        began = performance.now();
        expected = bestPaths(g);
        inProcess.push(performance.now() - began);
        began = performance.now();
        found = await searchInDatabase(db, tenant.name, g, options);
        inDb.push(performance.now() - began);
      }
      const same =
        found.length === expected.length &&
        found.every(
          (p, i) =>
            p.start === expected[i].start &&
            p.target === expected[i].target &&
            p.score === expected[i].score &&
            p.edges.join() === expected[i].edges.join(),
        );
      // The rows the recursive query makes (what ANALYZER_DB_PATHS_ROW_LIMIT bounds).
      const rows = await searchRows(db, tenant.name, g);
      console.log(
        `  ${g.liveNodes} nodes, ${g.liveEdges} edges, ${g.starts.length} starts, ${g.targets.length} targets, ${expected.length} pairs: ` +
          `store write ${writeMs.toFixed(0)} ms; search in-process ${median(inProcess).toFixed(1)} ms, ` +
          `PostgreSQL ${median(inDb).toFixed(0)} ms (${rows} rows); same answer: ${same}`,
      );
      if (!same) throw new Error('the database path finder disagrees with the in-process finder');
    }
  } finally {
    await finder.close();
    await db.end();
    if (!process.env.BENCH_DBPATHS_KEEP) await admin.query(`drop schema if exists ${schema} cascade`);
    else console.log(`  kept schema ${schema}`);
    await admin.end();
  }
}

async function searchRows(db: pg.Pool, tenant: string, g: CompiledGraph): Promise<number> {
  const side = searchSide(g);
  const roots = Array.from(side === 'targets' ? g.targets : g.starts, (r) => g.nodeIds[r]);
  const result = await db.query<{ total: string }>(`select total from (${bestPathsQuery(side)}) q limit 1`, [
    tenant,
    roots,
    1_000_000_000,
  ]);
  return Number(result.rows[0]?.total ?? 0);
}

if (import.meta.url === `file://${process.argv[1]}`) await runDbPathsBench();
