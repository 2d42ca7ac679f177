import { afterAll, describe, expect, it } from 'vitest';
import { bestPaths, searchSide, type PairPath } from '../../src/analysis/best-paths.js';
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { createTenantGraph, type TenantGraph } from '../../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';

/** A literal estate: nodes by name, edges as [from, to, p, type?]. */
function estate(
  nodes: Record<string, { label?: NodeLabel; start?: boolean; target?: boolean; user?: boolean }>,
  edges: [string, string, number, EdgeType?][],
): TenantGraph {
  const g = createTenantGraph();
  for (const [name, n] of Object.entries(nodes)) {
    const props: Record<string, unknown> = {};
    if (n.start) props.internet_exposed = true;
    if (n.target) props.crown_jewel = true;
    if (n.user) props.credential_exposed = true;
    g.addNode(name, { label: n.label ?? 'Service', name, props, lastSeen: 0 });
  }
  for (const [from, to, p, type = 'CONNECTS_TO'] of edges) {
    g.addDirectedEdgeWithKey(`${type}|${from}|${to}`, from, to, { type, p, lastSeen: 0 });
  }
  return g;
}

function describePaths(g: CompiledGraph, found: PairPath[]) {
  return found
    .map((p) => ({
      pair: `${g.nodeIds[p.start]}>${g.nodeIds[p.target]}`,
      score: p.score,
      route: [g.nodeIds[p.start], ...Array.from(p.edges, (e) => g.nodeIds[g.edgeTo[e]])].join(' '),
    }))
    .sort((a, b) => (a.pair < b.pair ? -1 : 1));
}

const both = (g: CompiledGraph) => ({ targets: describePaths(g, bestPaths(g, undefined, 'targets')), starts: describePaths(g, bestPaths(g, undefined, 'starts')) });

describe('bestPaths', () => {
  it('scores a chain as the product of its probabilities', () => {
    const g = compileGraph(estate({ a: { start: true }, b: {}, c: { target: true } }, [['a', 'b', 0.5], ['b', 'c', 0.4]]), { seedIamUsers: false });
    expect(describePaths(g, bestPaths(g))).toEqual([{ pair: 'a>c', score: expect.closeTo(0.2, 12) as number, route: 'a b c' }]);
  });

  it('prefers the higher product, not the fewer hops', () => {
    const g = compileGraph(
      estate({ a: { start: true }, b: {}, c: {}, t: { target: true } }, [['a', 't', 0.1], ['a', 'b', 0.9], ['b', 'c', 0.9], ['c', 't', 0.9]]),
      { seedIamUsers: false },
    );
    const [path] = describePaths(g, bestPaths(g));
    expect(path.route).toBe('a b c t');
    expect(path.score).toBeCloseTo(0.729, 12);
  });

  it('never traverses a hop of probability 0 and leaves unreachable pairs out', () => {
    const g = compileGraph(
      estate({ a: { start: true }, b: {}, t: { target: true }, u: { target: true } }, [['a', 'b', 0.9], ['b', 't', 0]]),
      { seedIamUsers: false },
    );
    expect(bestPaths(g)).toEqual([]);
  });

  it('does not pair a node with itself, but pairs an exposed target another start reaches', () => {
    const g = compileGraph(estate({ a: { start: true }, t: { start: true, target: true } }, [['a', 't', 0.7]]), { seedIamUsers: false });
    expect(describePaths(g, bestPaths(g)).map((p) => p.pair)).toEqual(['a>t']);
  });

  it('adds credential-exposed users as starts only under seedIamUsers', () => {
    const graph = estate({ u: { label: 'User', user: true }, r: { label: 'IAM_Role' }, t: { target: true } }, [['u', 'r', 0.8, 'ASSUMES'], ['r', 't', 0.8, 'HAS_PERMISSION']]);
    expect(bestPaths(compileGraph(graph, { seedIamUsers: false }))).toEqual([]);
    expect(bestPaths(compileGraph(graph, { seedIamUsers: true }))).toHaveLength(1);
  });

  it('gives the same pairs, scores and routes from either side', () => {
    const g = compileGraph(
      estate(
        { s1: { start: true }, s2: { start: true }, s3: { start: true }, m1: {}, m2: {}, m3: {}, t1: { target: true }, t2: { target: true } },
        [['s1', 'm1', 0.9], ['s2', 'm1', 0.5], ['s3', 'm2', 0.8], ['m1', 'm2', 0.7], ['m2', 'm3', 0.6], ['m3', 't1', 0.95], ['m1', 't2', 0.3], ['m2', 't2', 0.4], ['m3', 'm1', 0.2]],
      ),
      { seedIamUsers: false },
    );
    expect(searchSide(g)).toBe('targets');
    const { targets, starts } = both(g);
    expect(targets.map((p) => [p.pair, p.route])).toEqual(starts.map((p) => [p.pair, p.route]));
    targets.forEach((p, i) => expect(p.score).toBeCloseTo(starts[i].score, 12));
    expect(targets).toHaveLength(6);
  });
});

describe('path finder with worker threads', () => {
  const pool = createPathFinder({ threads: 2 });
  afterAll(() => pool.close());

  it('returns exactly what the in-process search returns, on a seeded random estate', async () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const g = createTenantGraph();
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const props: Record<string, unknown> = {};
      if (i % 97 === 0) props.internet_exposed = true;
      if (i % 131 === 1) props.crown_jewel = true;
      g.addNode(`n${i}`, { label: 'Service', name: `n${i}`, props, lastSeen: 0 });
    }
    for (let i = 0; i < n * 4; i++) {
      const from = Math.floor(random() * n);
      const to = (from + 1 + Math.floor(random() * 300)) % n;
      const key = `CONNECTS_TO|n${from}|n${to}`;
      if (!g.hasEdge(key)) g.addDirectedEdgeWithKey(key, `n${from}`, `n${to}`, { type: 'CONNECTS_TO', p: 0.05 + 0.9 * random(), lastSeen: 0 });
    }
    const compiled = compileGraph(g, { seedIamUsers: false });
    expect(compiled.edgeCount).toBeGreaterThan(10_000);
    const single = bestPaths(compiled);
    const threaded = await pool.find(compiled);
    expect(single.length).toBeGreaterThan(100);
    expect(threaded.map((p) => [p.start, p.target, p.score, Array.from(p.edges)])).toEqual(single.map((p) => [p.start, p.target, p.score, Array.from(p.edges)]));
  });

  it('refuses work once closed', async () => {
    const closed = createPathFinder({ threads: 2 });
    await closed.close();
    await expect(closed.find(compileGraph(createTenantGraph(), { seedIamUsers: false }))).rejects.toThrow(/closed/);
  });
});
