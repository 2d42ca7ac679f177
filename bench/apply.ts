// The graph writer's apply on its own, for the ingest hot path (issue 17): the 100k estate's envelopes
// applied to a fresh tenant graph, timed per phase (nodes, edges), several rounds, best reported.
//   npx tsx bench/apply.ts bench-out/e100000-s64-t32.json [--rounds 3]
import { readFileSync } from 'node:fs';
import { GraphWriter } from '../src/graph/writer.js';
import { createTenantGraph } from '../src/graph/model.js';
import type { EventEnvelope } from '../src/ingest/envelope.js';
import { silentLog } from '../src/log/logger.js';

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx bench/apply.ts estate.json [--rounds 3]');
const at = process.argv.indexOf('--rounds');
const rounds = at > 0 ? Number(process.argv[at + 1]) : 3;
const estate = JSON.parse(readFileSync(file, 'utf8')) as EventEnvelope;
const nodesOnly: EventEnvelope = { ...estate, edges: [] };
const edgesOnly: EventEnvelope = { ...estate, nodes: [] };
const best = { nodes: Infinity, edges: Infinity };
for (let round = 0; round < rounds; round++) {
  const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
  let t = performance.now();
  writer.apply(nodesOnly, 1);
  best.nodes = Math.min(best.nodes, performance.now() - t);
  t = performance.now();
  writer.apply(edgesOnly, 1);
  best.edges = Math.min(best.edges, performance.now() - t);
  console.log(
    `round ${round + 1}: nodes ${writer.graph.order} edges ${writer.graph.size}, ` +
      `rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
  );
}
const perEdge = (best.edges * 1000) / edgesOnly.edges.length;
console.log(
  `apply best: nodes ${best.nodes.toFixed(0)} ms, edges ${best.edges.toFixed(0)} ms (${perEdge.toFixed(2)} µs per edge)`,
);
