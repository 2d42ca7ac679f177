import { readFileSync } from 'node:fs';
import { GraphWriter } from '../src/graph/writer.js';
import { createTenantGraph } from '../src/graph/model.js';
import { compileGraph } from '../src/analysis/compiled-graph.js';
import { silentLog } from '../src/log/logger.js';
const estate = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const writer = new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
let t = performance.now();
writer.apply(estate, 1);
console.log('apply', (performance.now() - t).toFixed(0), 'ms');
for (let i = 0; i < 3; i++) {
  t = performance.now();
  compileGraph(writer.graph, { seedIamUsers: false });
  console.log('compile', (performance.now() - t).toFixed(0), 'ms');
}
console.log('rss', Math.round(process.memoryUsage().rss / 2 ** 20), 'heapUsed', Math.round(process.memoryUsage().heapUsed / 2 ** 20));
