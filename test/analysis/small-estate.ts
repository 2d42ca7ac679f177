// Small literal estates for the analyses' tests: nodes by id, edges as [from, to, p, type = CONNECTS_TO].
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { createTenantGraph, type TenantGraph } from '../../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';
import { prng } from '../helpers/random-estate.js';

export type NodeSpec = { label?: NodeLabel; start?: boolean; target?: boolean; public?: boolean };
export type EdgeSpec = [string, string, number, EdgeType?];

export function estate(nodes: Record<string, NodeSpec>, edges: EdgeSpec[]): TenantGraph {
  const g = createTenantGraph();
  for (const [id, n] of Object.entries(nodes)) {
    const props: Record<string, unknown> = {};
    if (n.start) props.internet_exposed = true;
    if (n.target) props.crown_jewel = true;
    if (n.public) props.public_access = true;
    g.addNode(id, { label: n.label ?? 'Service', name: `name-${id}`, props, lastSeen: 0 });
  }
  for (const [from, to, p, type = 'CONNECTS_TO'] of edges)
    g.addDirectedEdgeWithKey(`${type}|${from}|${to}`, from, to, { type, p, lastSeen: 0 });
  return g;
}

export const compile = (g: TenantGraph): CompiledGraph => compileGraph(g, { seedIamUsers: false });

/** A seeded generator (mulberry32) for random small estates: the property tests' one. */
export const random = prng;

/** A random estate of `n` nodes and `m` distinct edges (no self-loops), some starts and targets. */
export function randomEstate(
  seed: number,
  n: number,
  m: number,
  types: EdgeType[] = ['CONNECTS_TO'],
): TenantGraph {
  const rand = random(seed);
  const nodes: Record<string, NodeSpec> = {};
  for (let i = 0; i < n; i++) nodes[`n${i}`] = { start: rand() < 0.3, target: rand() < 0.3 };
  nodes.n0.start = true;
  nodes[`n${n - 1}`].target = true;
  const edges: EdgeSpec[] = [];
  const used = new Set<string>();
  let guard = 0;
  while (edges.length < m && guard++ < m * 50) {
    const a = Math.floor(rand() * n);
    const b = Math.floor(rand() * n);
    const type = types[Math.floor(rand() * types.length)];
    if (a === b || used.has(`${type}|${a}|${b}`)) continue;
    used.add(`${type}|${a}|${b}`);
    edges.push([`n${a}`, `n${b}`, Math.round((0.05 + rand() * 0.95) * 1000) / 1000, type]);
  }
  return estate(nodes, edges);
}
