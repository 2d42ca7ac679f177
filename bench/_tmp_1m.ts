import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { GraphWriter } from '../src/graph/writer.js';
import { createTenantGraph } from '../src/graph/model.js';
import { compileGraph } from '../src/analysis/compiled-graph.js';
import { silentLog } from '../src/log/logger.js';
const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
let nodes: any[] = [];
let edges: any[] = [];
let applyMs = 0;
let applyCpu = 0;
const flush = () => {
  const t = performance.now();
  const c = process.cpuUsage().user;
  writer.apply({ source: 'bench', kind: 'asset', observed_at: '2025-01-01T00:00:00Z', nodes, edges } as any, 1);
  applyMs += performance.now() - t;
  applyCpu += (process.cpuUsage().user - c) / 1000;
  nodes = []; edges = [];
};
for await (const line of createInterface({ input: createReadStream(process.argv[2]) })) {
  const text = line.trim().replace(/,$/, '');
  if (!text.startsWith('{"id"') && !text.startsWith('{"type"')) continue;
  const rec = JSON.parse(text);
  if (rec.id) nodes.push(rec); else edges.push(rec);
  if (nodes.length + edges.length >= 50000) flush();
}
flush();
(globalThis as any).gc?.();
const mu = process.memoryUsage();
console.log('apply', applyMs.toFixed(0), 'ms, cpu', applyCpu.toFixed(0), 'ms; order', writer.graph.order, 'size', writer.graph.size, 'rss', Math.round(mu.rss / 2 ** 20), 'heapUsed', Math.round(mu.heapUsed / 2 ** 20), 'arrayBuffers', Math.round(mu.arrayBuffers / 2 ** 20));
for (let i = 0; i < 2; i++) {
  const t = performance.now();
  compileGraph(writer.graph, { seedIamUsers: false });
  console.log('compile', (performance.now() - t).toFixed(0), 'ms');
}
