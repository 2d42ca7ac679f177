// The analyses on the graph (BENCH_SUITES=analyses), in-process on the 100k estate (the shared generator's
// file, loaded straight into a tenant's graph as bench/paths.ts does, and analyzed by one real pass), on the
// graph the service hands them (analysis-service.ts: a fork of the live compiled graph), side by side with
// the yardstick (../shared/bench/limit.cpp) run on the same file in the same run:
// - the graph for the analyses: the live graph forked, against a compile of the tenant graph
// - Monte Carlo risk, 1,000 worlds (risk-simulation.ts) against the yardstick's mc_bitpar (64 worlds a word)
// - remediationPlan (greedy verified cut over the critical routes)
// - kShortestPaths, k = 10, to several targets
// - whatIf of the plan's first cut (search again and simulate before and after)
// Also runnable alone: npx tsx bench/analyses.ts [estate.json] [--limit path/to/limit]
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { AnalysisService } from '../src/analysis/analysis-service.js';
import { compileGraph, type CompiledGraph } from '../src/analysis/compiled-graph.js';
import { kShortestRoutes } from '../src/analysis/k-shortest.js';
import { LiveGraph } from '../src/analysis/live-graph.js';
import { createPathFinder } from '../src/analysis/path-finder.js';
import { remediationPlan } from '../src/analysis/remediation-plan.js';
import { countWorlds, simulateRisk, withNodeKeys } from '../src/analysis/risk-simulation.js';
import { whatIf } from '../src/analysis/what-if.js';
import { runPass } from '../src/engine/analyzer.js';
import { TenantState } from '../src/engine/tenant.js';
import type { TenantGraph } from '../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../src/graph/vocabulary.js';
import { silentLog } from '../src/log/logger.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { ensureYardstick } from './yardstick.js';

async function load(file: string, graph: TenantGraph): Promise<void> {
  for await (const raw of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    if (line.startsWith('{"id"')) {
      const n = JSON.parse(line) as {
        id: string;
        label: NodeLabel;
        name: string;
        properties: Record<string, unknown>;
      };
      graph.addNode(n.id, { label: n.label, name: n.name, props: n.properties, lastSeen: 0 });
    } else if (line.startsWith('{"type"')) {
      const e = JSON.parse(line) as { type: EdgeType; from: string; to: string; exploit_probability: number };
      graph.addDirectedEdge(e.from, e.to, { type: e.type, p: e.exploit_probability, lastSeen: 0 });
    }
  }
}

function timed<T>(runs: number, work: () => T): { median: number; best: number; result: T } {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = work();
    times.push((performance.now() - t) / 1000);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], best: times[0], result };
}

/** The yardstick's mc_bitpar line (1,000 worlds), or null when it cannot be built or run. */
function yardstickMonteCarlo(
  file: string,
  binary: string,
  source: string,
): { seconds: number; mean: number } | null {
  try {
    ensureYardstick(binary, source);
    const out = execFileSync(binary, [file, '--iters', '1000'], { encoding: 'utf8' });
    const line = out.split('\n').find((l) => l.startsWith('mc_bitpar:'))!;
    const field = (k: string) => Number(new RegExp(`${k}=([-\\d.e]+)`).exec(line)![1]);
    return { seconds: field('time_s'), mean: field('mean_target_p') };
  } catch (error) {
    console.log(`  yardstick unavailable: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
}

export async function runAnalysesBench(
  estateFile: string,
  yardstick: { binary: string; source: string },
): Promise<void> {
  console.log(
    `\n== analyses on ${path.basename(estateFile)} (machine: ${os.availableParallelism()} cores, shared) ==`,
  );
  // A tenant whose graph holds the estate (loaded past the writer: its changes say "everything", so the
  // pass compiles the live graph afresh), analyzed by one real pass.
  const tenant = new TenantState('bench', {
    log: silentLog(),
    parkedTtlMs: 1e12,
    thresholds: { p1: 0.5, p2: 0.1 },
  });
  await load(estateFile, tenant.graph);
  const finder = createPathFinder({ threads: 1 });
  await runPass(tenant, {
    finder,
    metrics: createMetrics(),
    config: { seedIamUsers: false, graphTtlMs: null },
    now: () => Date.now(),
  });
  await finder.close();
  // The graph the analyses read: what the service hands them (a fork of the live graph), timed against the
  // compile it replaced; each service instance forks once (it keeps the fork until the graph changes).
  const fork = timed(3, () => new AnalysisService({ seedIamUsers: false, workers: false }).compiled(tenant));
  const compile = timed(3, () => withNodeKeys(compileGraph(tenant.graph, { seedIamUsers: false })));
  const g: CompiledGraph = fork.result;
  if (!(g instanceof LiveGraph)) throw new Error('bench: the analyses did not get the live graph');
  console.log(
    `  graph: ${g.nodeCount} nodes, ${g.edgeCount} edges, ${g.starts.length} starts, ${g.targets.length} targets`,
  );
  console.log(
    `  graph for the analyses: live graph forked ${fork.median.toFixed(3)} s (median of 3), compiled afresh ` +
      `${compile.median.toFixed(3)} s (before issue 18's last change)`,
  );

  // Ours and the yardstick's take turns, three rounds, medians compared: the machine is shared, and its
  // load moves between minutes.
  const ours: number[] = [];
  const theirs: number[] = [];
  let limit: { seconds: number; mean: number } | null = null;
  for (let round = 0; round < 3; round++) {
    ours.push(timed(1, () => countWorlds(g, 1000, 1)).median);
    limit = yardstickMonteCarlo(estateFile, yardstick.binary, yardstick.source);
    if (limit) theirs.push(limit.seconds);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mc = timed(3, () => countWorlds(g, 1000, 1));
  const meanTarget =
    Array.from(mc.result.targetHits).reduce((a, b) => a + b, 0) / 1000 / Math.max(1, g.targets.length);
  // The worlds are keyed on node ids: a compile of the same graph must count exactly the same.
  const same =
    JSON.stringify(countWorlds(compile.result, 1000, 1)) === JSON.stringify(mc.result)
      ? 'the same counts on a fresh compile'
      : 'DIFFERENT COUNTS ON A FRESH COMPILE';
  const full = timed(3, () => simulateRisk(g, { iterations: 1000, seed: 1 }));
  console.log(
    `  monte carlo 1000 worlds: median ${mc.median.toFixed(3)} s (best ${mc.best.toFixed(3)} s), mean target p ${meanTarget.toFixed(4)}, ` +
      `${mc.result.searched} nodes searched (those that reach a target), ${same}; with CIs and profiles ${full.median.toFixed(3)} s`,
  );
  if (limit)
    console.log(
      `  yardstick mc_bitpar 1000 worlds: median ${median(theirs).toFixed(3)} s (${theirs.map((x) => x.toFixed(3)).join(', ')}), ` +
        `mean target p ${limit.mean.toFixed(4)}; ours in the same rounds ${ours.map((x) => x.toFixed(3)).join(', ')}: ` +
        `ratio of medians ${(median(ours) / median(theirs)).toFixed(2)}x`,
    );

  const plan = timed(3, () => remediationPlan(g, { p1: 0.5 }));
  const items = plan.result.items;
  console.log(
    `  remediationPlan: median ${plan.median.toFixed(3)} s; ${plan.result.criticalBefore} critical routes, ${items.length} items, ` +
      `${plan.result.criticalAfter} left, coverage ${items.at(-1)?.coveragePct.toFixed(1) ?? 0} %`,
  );

  const targets = Array.from(g.targets).slice(0, 8);
  const k = timed(3, () => targets.map((t) => kShortestRoutes(g, t, 10)));
  const found = k.result.map((r) => r.length);
  console.log(
    `  kShortestPaths k=10: ${targets.length} targets, median ${(k.median / targets.length).toFixed(4)} s per target ` +
      `(worst batch ${k.median.toFixed(3)} s); routes found ${found.join(',')}`,
  );

  const firstCut = items.find((i) => i.kind === 'cut-edge');
  if (firstCut) {
    const w = timed(3, () => whatIf(g, [{ edge: firstCut.edge, p: 0 }], { iterations: 1000, seed: 1 }));
    console.log(
      `  whatIf (plan's first cut, 1000 worlds before and after): median ${w.median.toFixed(3)} s; risk reduction ` +
        `${w.result.riskReduction.toFixed(4)}, expected reduction ${w.result.expectedReduction.toFixed(4)}`,
    );
  }
}

if (process.argv[1]?.endsWith('bench/analyses.ts')) {
  const file = process.argv[2] ?? 'bench-out/e100000-s64-t32.json';
  const at = process.argv.indexOf('--limit');
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  await runAnalysesBench(file, {
    binary: at > 0 ? process.argv[at + 1] : path.join(root, 'bench-out', 'limit'),
    source: path.resolve(root, '..', 'shared', 'bench', 'limit.cpp'),
  });
}
