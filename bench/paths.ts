// The analyzer's path phase against the yardstick (../shared/bench/limit.cpp) on a gen_estate.mjs file:
//   npx tsx bench/paths.ts /tmp/e100k.json [--runs 5] [--threads 1,2] [--from auto|starts|targets]
//                                          [--limit /tmp/limit]
// Loads the file into a TenantGraph (not timed as analysis), then times compileGraph and find(), and prints
// pairs and checksum_logscore (Σ ln score) to compare with the yardstick's `paths:` line. With --limit the
// yardstick binary runs on the same file afterwards and the ratios are printed.
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { bestPaths, type PairPath, type SearchSide } from '../src/analysis/best-paths.js';
import { compileGraph, type CompiledGraph } from '../src/analysis/compiled-graph.js';
import { createPathFinder } from '../src/analysis/path-finder.js';
import { createTenantGraph, type TenantGraph } from '../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../src/graph/vocabulary.js';

interface NodeLine {
  id: string;
  label: NodeLabel;
  name: string;
  properties: Record<string, unknown>;
}
interface EdgeLine {
  type: EdgeType;
  from: string;
  to: string;
  exploit_probability: number;
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

async function load(file: string): Promise<TenantGraph> {
  const graph = createTenantGraph();
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    if (line.startsWith('{"id"')) {
      const node = JSON.parse(line) as NodeLine;
      graph.addNode(node.id, { label: node.label, name: node.name, props: node.properties, lastSeen: 0 });
    } else if (line.startsWith('{"type"')) {
      const edge = JSON.parse(line) as EdgeLine;
      graph.addDirectedEdge(edge.from, edge.to, {
        type: edge.type,
        p: edge.exploit_probability,
        lastSeen: 0,
      });
    }
  }
  return graph;
}

/** Σ ln(score), summed per hop so that very long routes do not underflow. */
function checksum(g: CompiledGraph, found: PairPath[]): number {
  let sum = 0;
  for (const p of found) for (const e of p.edges) sum += Math.log(g.edgeP[e]);
  return sum;
}

const ms = (from: number) => performance.now() - from;
const fmt = (x: number) => `${(x / 1000).toFixed(3)}s`;
const rss = () => `${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`;

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: npx tsx bench/paths.ts estate.json [--runs 5] [--threads 1,2]');
  const runs = Number(option('runs', '5'));
  const threadCounts = option('threads', '1,2').split(',').map(Number);
  const from = option('from', 'auto');

  let t = performance.now();
  const graph = await load(file);
  console.log(`load:    nodes=${graph.order} edges=${graph.size} time=${fmt(ms(t))} rss=${rss()}`);

  const compileTimes: number[] = [];
  let g!: CompiledGraph;
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    g = compileGraph(graph, { seedIamUsers: false });
    compileTimes.push(ms(t));
  }
  console.log(
    `compile: starts=${g.starts.length} targets=${g.targets.length} first=${fmt(compileTimes[0])} ` +
      `best=${fmt(Math.min(...compileTimes))} rss=${rss()}`,
  );

  if (from !== 'auto') {
    const side = from as SearchSide;
    const times: number[] = [];
    let found: PairPath[] = [];
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      found = bestPaths(g, undefined, side);
      times.push(ms(t));
    }
    report(`bestPaths from=${side}`, g, found, times);
    return;
  }
  const medians: [number, number, string][] = [];
  for (const threads of threadCounts) {
    const finder = createPathFinder({ threads });
    const times: number[] = [];
    let found: PairPath[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        t = performance.now();
        found = await finder.find(g);
        times.push(ms(t));
      }
    } finally {
      await finder.close();
    }
    medians.push([
      threads,
      report(`find threads=${threads}`, g, found, times),
      `${found.length} ${checksum(g, found).toFixed(6)}`,
    ]);
  }
  const limit = option('limit', '');
  if (limit) {
    // Run after ours, never alongside: both phases are memory-bound.
    const line = execFileSync(limit, [file, '--iters', '0'], { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.startsWith('paths:'));
    const field = (k: string) => new RegExp(`${k}=([-\\d.e]+)`).exec(line ?? '')?.[1] ?? '?';
    const seconds = Number(field('time_s'));
    console.log(
      `yardstick: pairs=${field('pairs')} checksum_logscore=${field('checksum_logscore')} time=${seconds}s`,
    );
    for (const [threads, median, answer] of medians) {
      const same = answer === `${field('pairs')} ${field('checksum_logscore')}`;
      console.log(
        `ratio threads=${threads}: ${(median / 1000 / seconds).toFixed(2)}x (median) answer ${same ? 'matches' : 'DIFFERS'}`,
      );
    }
  }
}

/** Prints one line of figures and returns the median time in ms. */
function report(what: string, g: CompiledGraph, found: PairPath[], times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  console.log(
    `${what}: pairs=${found.length} checksum_logscore=${checksum(g, found).toFixed(6)} ` +
      `first=${fmt(times[0])} best=${fmt(sorted[0])} median=${fmt(median)} rss=${rss()}`,
  );
  return median;
}

await main();
