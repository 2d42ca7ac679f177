// Runs the compile and the path search once on a small synthetic estate, so that the first real pass
// finds the main thread's compiler and every worker's search already optimized by V8 (a cold first pass
// on a 100k-node estate took about 1.5 times a warm one).
import { createTenantGraph } from '../graph/model.js';
import { compileGraph } from './compiled-graph.js';
import type { PathFinder } from './path-finder.js';

/** Big enough to go to the worker pool (over its inline threshold), small enough to take milliseconds. */
const NODES = 6000;
const OUT_DEGREE = 4;

export async function warmUp(finder: PathFinder): Promise<void> {
  const graph = createTenantGraph();
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < NODES; i++) {
    const props: Record<string, unknown> = {};
    if (i < 64) props.internet_exposed = true;
    if (i >= NODES - 32) props.crown_jewel = true;
    graph.addNode(`n${i}`, { label: 'Service', name: `n${i}`, props, lastSeen: 0 });
  }
  for (let i = 0; i < NODES - 1; i++) {
    for (let d = 0; d < OUT_DEGREE; d++) {
      const to = Math.min(NODES - 1, i + 1 + Math.floor(random() * 50));
      if (to !== i)
        graph.addDirectedEdge(`n${i}`, `n${to}`, {
          type: 'CONNECTS_TO',
          p: 0.2 + random() * 0.8,
          lastSeen: 0,
        });
    }
  }
  await finder.find(compileGraph(graph, { seedIamUsers: false }));
}
