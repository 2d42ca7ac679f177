// The path finder: in-process and on a worker pool (started from the TypeScript source through tsx), with the
// same results either way; failures in a worker reject find() instead of hanging; close() ends the pool.
import { afterAll, describe, expect, it } from 'vitest';
import { bestPaths, type PairPath } from '../../src/analysis/best-paths.js';
import { compileGraph, type CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { createTenantGraph } from '../../src/graph/model.js';

/** A seeded random estate of `n` nodes with local edges, as the generator's tenants are. */
function randomCompiled(seed: number, n: number): CompiledGraph {
  const random = mulberry32(seed);
  const g = createTenantGraph();
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
    const p = random() < 0.05 ? 0 : Math.round((0.05 + 0.9 * random()) * 100) / 100;
    if (!g.hasEdge(key))
      g.addDirectedEdgeWithKey(key, `n${from}`, `n${to}`, { type: 'CONNECTS_TO', p, lastSeen: 0 });
  }
  return compileGraph(g, { seedIamUsers: false });
}

const exact = (found: PairPath[]) => found.map((p) => [p.start, p.target, p.score, Array.from(p.edges)]);

describe('path finder', () => {
  const pool = createPathFinder({ threads: 2, inlineBelowEdges: 0 });
  afterAll(() => pool.close());

  it('returns on two worker threads exactly what the in-process search returns', async () => {
    const g = randomCompiled(42, 4000);
    const single = bestPaths(g);
    expect(single.length).toBeGreaterThan(500);
    expect(exact(await pool.find(g))).toEqual(exact(single));
    // The pool is persistent: a second graph goes to the same workers.
    const other = randomCompiled(7, 3000);
    expect(exact(await pool.find(other))).toEqual(exact(bestPaths(other)));
  });

  it('runs in-process with one thread, and small graphs in-process by default', async () => {
    const g = randomCompiled(3, 2000);
    const inline = createPathFinder({ threads: 1 });
    expect(exact(await inline.find(g))).toEqual(exact(bestPaths(g)));
    await inline.close();
    await expect(inline.find(g)).rejects.toThrow(/closed/);
    const small = createPathFinder({ threads: 2 });
    expect(exact(await small.find(g))).toEqual(exact(bestPaths(g)));
    await small.close();
  });

  it('rejects find() with the worker error when a search fails in a worker', async () => {
    const g = randomCompiled(5, 1000);
    const broken = { ...g, rFrom: g.rFrom.subarray(0, 1) };
    await expect(pool.find(broken)).rejects.toThrow(/search failed in a worker: .*do not match/s);
    // The workers survive a failed job.
    expect(exact(await pool.find(g))).toEqual(exact(bestPaths(g)));
  });

  it('rejects find() when a worker dies, instead of hanging', async () => {
    const starved = createPathFinder({
      threads: 2,
      inlineBelowEdges: 0,
      resourceLimits: { maxOldGenerationSizeMb: 1 },
    });
    try {
      await expect(starved.find(randomCompiled(9, 1000))).rejects.toThrow(/analysis\/path-finder: worker/);
    } finally {
      await starved.close();
    }
  });

  it('closes: pending and later finds reject, and nothing keeps the process alive', async () => {
    const finder = createPathFinder({ threads: 2, inlineBelowEdges: 0 });
    const g = randomCompiled(11, 2000);
    expect(exact(await finder.find(g))).toEqual(exact(bestPaths(g)));
    const pending = expect(finder.find(g)).rejects.toThrow(/closed/);
    await finder.close();
    await pending;
    await expect(finder.find(g)).rejects.toThrow(/closed/);
  });
});

/** A small seeded generator (mulberry32): the same estate on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
