// bestPaths on small literal estates (known answers), and its invariants on seeded random ones: the same
// pairs, scores and routes whichever side is searched and however the sources are split.
import { describe, expect, it } from 'vitest';
import { bestPaths, searchSide, type PairPath, type SearchSide } from '../../src/analysis/best-paths.js';
import {
  CompileBuffers,
  compileGraph,
  fromShared,
  toShared,
  type CompiledGraph,
} from '../../src/analysis/compiled-graph.js';
import { createTenantGraph, type TenantGraph } from '../../src/graph/model.js';
import type { EdgeType, NodeLabel } from '../../src/graph/vocabulary.js';

type NodeSpec = { label?: NodeLabel; start?: boolean; target?: boolean; leaked?: boolean; public?: boolean };
/** [from, to, p, type]; p undefined leaves the probability to the model's table. */
type EdgeSpec = [string, string, number | undefined, EdgeType?];

/** A literal estate: nodes by id, edges as [from, to, p, type = CONNECTS_TO]. */
function estate(nodes: Record<string, NodeSpec>, edges: EdgeSpec[]): TenantGraph {
  const g = createTenantGraph();
  for (const [id, n] of Object.entries(nodes)) {
    const props: Record<string, unknown> = {};
    if (n.start) props.internet_exposed = true;
    if (n.target) props.crown_jewel = true;
    if (n.leaked) props.credential_exposed = true;
    if (n.public) props.public_access = true;
    g.addNode(id, { label: n.label ?? 'Service', name: `name of ${id}`, props, lastSeen: 0 });
  }
  for (const [from, to, p, type = 'CONNECTS_TO'] of edges) {
    const attrs = p === undefined ? { type, lastSeen: 0 } : { type, p, lastSeen: 0 };
    g.addDirectedEdgeWithKey(`${type}|${from}|${to}`, from, to, attrs);
  }
  return g;
}

const compile = (g: TenantGraph, seedIamUsers = false) => compileGraph(g, { seedIamUsers });

/** Paths as node ids, for assertions that do not depend on index order. */
function readable(g: CompiledGraph, found: PairPath[]) {
  return found.map((p) => ({
    pair: `${g.nodeIds[p.start]}>${g.nodeIds[p.target]}`,
    score: p.score,
    route: [g.nodeIds[p.start], ...Array.from(p.edges, (e) => g.nodeIds[g.edgeTo[e]])].join(' '),
  }));
}

const exact = (found: PairPath[]) => found.map((p) => [p.start, p.target, p.score, Array.from(p.edges)]);

/** A seeded random estate with many exact ties: probabilities come from a handful of values. */
function randomEstate(seed: number, n: number, outDegree: number): TenantGraph {
  const random = mulberry32(seed);
  const g = createTenantGraph();
  for (let i = 0; i < n; i++) {
    const props: Record<string, unknown> = {};
    if (random() < 0.04) props.internet_exposed = true;
    if (random() < 0.03) props.crown_jewel = true;
    g.addNode(`n${i}`, { label: 'Service', name: `n${i}`, props, lastSeen: 0 });
  }
  const ps = [0, 0.25, 0.5, 0.5, 0.8, 0.8, 0.9, 1];
  for (let i = 0; i < n * outDegree; i++) {
    const from = Math.floor(random() * n);
    const to = (from + 1 + Math.floor(random() * 40)) % n;
    const key = `CONNECTS_TO|n${from}|n${to}`;
    const p = ps[Math.floor(random() * ps.length)];
    if (!g.hasEdge(key))
      g.addDirectedEdgeWithKey(key, `n${from}`, `n${to}`, { type: 'CONNECTS_TO', p, lastSeen: 0 });
  }
  return g;
}

describe('compileGraph', () => {
  it('reuses pooled buffers across compiles of different graphs and gives what a fresh compile gives', () => {
    const pool = new CompileBuffers();
    const big = randomEstate(7, 300, 4);
    const small = randomEstate(8, 120, 3);
    compileGraph(big, { seedIamUsers: false, buffers: pool });
    const held = pool.byteLength;
    const reused = toShared(compileGraph(small, { seedIamUsers: false, buffers: pool }));
    expect(pool.byteLength).toBe(held); // nothing new allocated for the smaller graph
    const fresh = toShared(compileGraph(small, { seedIamUsers: false }));
    for (const [key, value] of Object.entries(fresh)) {
      const got = (reused as unknown as Record<string, unknown>)[key];
      if (ArrayBuffer.isView(value))
        expect(Array.from(got as Int32Array), key).toEqual(Array.from(value as Int32Array));
      else expect(got, key).toEqual(value);
    }
    // And back to the bigger graph: the buffers grow only when needed.
    const again = toShared(compileGraph(big, { seedIamUsers: false, buffers: pool }));
    expect(Array.from(again.rStart)).toEqual(
      Array.from(toShared(compileGraph(big, { seedIamUsers: false })).rStart),
    );
  });

  it("lays a compile's arrays out in one buffer, apart, and moves them together only when one needs room", () => {
    const pool = new CompileBuffers();
    const big = randomEstate(7, 300, 4);
    const c = compileGraph(big, { seedIamUsers: false, buffers: pool });
    const arrays = Object.entries(toShared(c)).filter(
      // fEnd and rEnd are fStart and rStart one element on (views of the same offsets), the roots their own.
      ([key, value]) =>
        ArrayBuffer.isView(value) && !['fEnd', 'rEnd', 'starts', 'targets', 'directAccess'].includes(key),
    ) as [string, Int32Array][];
    expect(new Set(arrays.map(([, a]) => a.buffer)).size).toBe(1);
    // No two regions overlap, and each starts on a cache line.
    const spans = [
      ...new Map(arrays.map(([, a]) => [a.byteOffset, a.byteOffset + a.byteLength] as const)).entries(),
    ].sort((x, y) => x[0] - y[0]);
    for (let k = 1; k < spans.length; k++) expect(spans[k][0]).toBeGreaterThanOrEqual(spans[k - 1][1]);
    for (const [offset] of spans) expect(offset % 64).toBe(0);
    // An array outside the plan keeps its own buffer through a reserve that moves the plan.
    const own = pool.view('extra', 'i32', 10);
    own.fill(7);
    const before = c.edgeFrom.buffer;
    compileGraph(randomEstate(8, 120, 3), { seedIamUsers: false, buffers: pool });
    expect(pool.view('edgeFrom', 'i32', 1).buffer).toBe(before);
    const grown = compileGraph(randomEstate(9, 2000, 4), { seedIamUsers: false, buffers: pool });
    expect(grown.edgeFrom.buffer).not.toBe(before);
    expect(grown.fUnits.buffer).toBe(grown.edgeFrom.buffer);
    expect(grown.labels.buffer).toBe(grown.edgeFrom.buffer);
    expect(Array.from(pool.view('extra', 'i32', 10))).toEqual(Array(10).fill(7));
    expect(bestPaths(grown)).toEqual(
      bestPaths(compileGraph(randomEstate(9, 2000, 4), { seedIamUsers: false })),
    );
  });

  it('numbers edges by source, prices each hop once and builds both adjacencies', () => {
    const g = compile(
      estate({ a: { start: true }, b: {}, t: { label: 'Database', target: true, public: true } }, [
        ['b', 't', 0.5],
        ['a', 'b', undefined, 'ROUTES_TO'],
        ['a', 't', 0],
      ]),
    );
    expect([g.nodeCount, g.edgeCount]).toEqual([3, 3]);
    expect(g.labels[g.indexOf('t')]).toBe(4); // NODE_LABELS[4] is Database
    expect(g.indexOf('nope')).toBe(-1);
    const a = g.indexOf('a');
    const out = Array.from(g.fEdges.subarray(g.fStart[a], g.fEnd[a]));
    expect(out.map((e) => g.nodeIds[g.edgeTo[e]]).sort()).toEqual(['b', 't']);
    for (let e = 0; e < g.edgeCount; e++) {
      expect(g.fEdges[e]).toBe(e);
      // A fresh compile's forward slot of edge e is e: its search cost is round(−ln p × 2^36) + 1.
      const p = g.edgeP[e];
      expect(g.fUnits[e]).toBe(p > 0 ? Math.round((p >= 1 ? 0 : -Math.log(p)) * 2 ** 36) + 1 : Infinity);
    }
    const routed = out.find((e) => g.nodeIds[g.edgeTo[e]] === 'b')!;
    expect(g.edgeP[routed]).toBe(0.9); // ROUTES_TO from the table
    const t = g.indexOf('t');
    const into = Array.from(g.rEdges.subarray(g.rStart[t], g.rEnd[t]));
    expect(into.map((e) => g.nodeIds[g.edgeFrom[e]]).sort()).toEqual(['a', 'b']);
    expect(Array.from(g.starts)).toEqual([a]);
    expect(Array.from(g.targets)).toEqual([t]);
    expect(Array.from(g.directAccess)).toEqual([t]);
    expect(g.edgeP.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(g.rStart.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('round-trips through the shared description', () => {
    const g = compile(randomEstate(7, 300, 3));
    const back = fromShared(structuredClone(toShared(g)));
    expect(back.fUnits.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(exact(bestPaths(back))).toEqual(exact(bestPaths(g)));
    expect(() => fromShared({ ...toShared(g), rFrom: undefined } as never)).toThrow(/lacks rFrom/);
  });
});

describe('bestPaths', () => {
  it('scores a chain as the product of its probabilities', () => {
    const g = compile(
      estate({ a: { start: true }, b: {}, c: { target: true } }, [
        ['a', 'b', 0.5],
        ['b', 'c', 0.4],
      ]),
    );
    const [path] = readable(g, bestPaths(g));
    expect(path.pair).toBe('a>c');
    expect(path.route).toBe('a b c');
    expect(path.score).toBeCloseTo(0.2, 12);
  });

  it('takes the higher product over the fewer hops', () => {
    const g = compile(
      estate({ a: { start: true }, b: {}, c: {}, t: { target: true } }, [
        ['a', 't', 0.7],
        ['a', 'b', 0.95],
        ['b', 'c', 0.95],
        ['c', 't', 0.95],
      ]),
    );
    const [path] = readable(g, bestPaths(g));
    expect(path.route).toBe('a b c t');
    expect(path.score).toBeCloseTo(0.95 ** 3, 12);
  });

  it('never traverses a hop of probability 0, however short the route through it', () => {
    const g = compile(
      estate({ a: { start: true }, b: {}, c: {}, t: { target: true } }, [
        ['a', 't', 0],
        ['a', 'b', 0.5],
        ['b', 't', undefined, 'MITIGATES'], // 0 in the model's table
        ['b', 'c', 0.5],
        ['c', 't', 0.5],
      ]),
    );
    expect(readable(g, bestPaths(g)).map((p) => p.route)).toEqual(['a b c t']);
  });

  it('leaves unreachable pairs out', () => {
    const g = compile(
      estate({ a: { start: true }, b: {}, t: { target: true }, u: { target: true }, v: { target: true } }, [
        ['a', 'b', 0.9],
        ['b', 't', 0.9],
        ['u', 'a', 0.9], // against the attack direction
        ['b', 'v', 0],
      ]),
    );
    expect(readable(g, bestPaths(g)).map((p) => p.pair)).toEqual(['a>t']);
    expect(bestPaths(compile(estate({ a: { start: true }, b: {} }, [['a', 'b', 1]])))).toEqual([]);
  });

  it('does not pair a start that is also a target with itself, but pairs it when another start reaches it', () => {
    const alone = compile(
      estate({ st: { start: true, target: true }, x: {} }, [
        ['st', 'x', 0.9],
        ['x', 'st', 0.9],
      ]),
    );
    expect(bestPaths(alone)).toEqual([]);
    const g = compile(
      estate({ a: { start: true }, st: { start: true, target: true }, t: { target: true } }, [
        ['a', 'st', 0.7],
        ['st', 't', 0.5],
      ]),
    );
    for (const side of ['targets', 'starts'] as const) {
      expect(readable(g, bestPaths(g, undefined, side)).map((p) => [p.pair, p.route])).toEqual([
        ['a>st', 'a st'],
        ['a>t', 'a st t'],
        ['st>t', 'st t'],
      ]);
    }
  });

  it('adds credential-exposed users as starts only under seedIamUsers', () => {
    const graph = estate(
      {
        u: { label: 'User', leaked: true },
        quiet: { label: 'User' },
        r: { label: 'IAM_Role' },
        t: { label: 'Bucket', target: true },
      },
      [
        ['u', 'r', 0.8, 'ASSUMES'],
        ['quiet', 'r', 0.9, 'ASSUMES'],
        ['r', 't', 0.8, 'HAS_PERMISSION'],
      ],
    );
    expect(bestPaths(compile(graph, false))).toEqual([]);
    const g = compile(graph, true);
    expect(readable(g, bestPaths(g)).map((p) => p.route)).toEqual(['u r t']);
  });

  it('breaks exact ties the same way from either side: smallest edge index first, from the start', () => {
    // Two routes of equal product (0.5 × 0.8 and 0.8 × 0.5) and a third through a different hop count.
    const g = compile(
      estate({ a: { start: true }, b: {}, c: {}, d: {}, e: {}, t: { target: true } }, [
        ['a', 'c', 0.8],
        ['a', 'b', 0.5],
        ['b', 't', 0.8],
        ['c', 't', 0.5],
        ['a', 'd', 1],
        ['d', 'e', 0.4],
        ['e', 't', 1],
      ]),
    );
    const fromTargets = bestPaths(g, undefined, 'targets');
    const fromStarts = bestPaths(g, undefined, 'starts');
    expect(exact(fromStarts)).toEqual(exact(fromTargets));
    const [path] = readable(g, fromTargets);
    // Same product as the others but fewer hops than a d e t; of a b t and a c t, the lower first edge.
    const first = fromTargets[0].edges[0];
    expect(['a b t', 'a c t']).toContain(path.route);
    expect(first).toBe(
      Math.min(...[g.indexOf('b'), g.indexOf('c')].map((v) => edgeBetween(g, 'a', g.nodeIds[v]))),
    );
    expect(path.score).toBeCloseTo(0.4, 12);
  });

  it('gives identical pairs, scores and routes from starts and from targets', () => {
    for (const seed of [1, 2, 3]) {
      const g = compile(randomEstate(seed, 600, 3));
      const fromTargets = bestPaths(g, undefined, 'targets');
      const fromStarts = bestPaths(g, undefined, 'starts');
      expect(fromTargets.length).toBeGreaterThan(50);
      expect(exact(fromStarts)).toEqual(exact(fromTargets));
      for (const p of fromTargets) {
        // Each route is a chain from its start to its target, scored as its product.
        let at = p.start;
        let product = 1;
        for (const e of p.edges) {
          expect(g.edgeFrom[e]).toBe(at);
          at = g.edgeTo[e];
          product *= g.edgeP[e];
        }
        expect(at).toBe(p.target);
        expect(p.score).toBe(product);
      }
    }
  });

  it('returns the same results however the sources are split', () => {
    const g = compile(randomEstate(4, 600, 3));
    const side: SearchSide = searchSide(g);
    const roots = side === 'targets' ? g.targets : g.starts;
    const odd = roots.filter((_, i) => i % 2 === 1);
    const even = roots.filter((_, i) => i % 2 === 0);
    const split = [...bestPaths(g, odd), ...bestPaths(g, even)].sort(
      (x, y) => x.start - y.start || x.target - y.target,
    );
    expect(exact(split)).toEqual(exact(bestPaths(g)));
  });

  it('searches from the smaller side, targets on a tie', () => {
    const few = compile(estate({ a: { start: true }, b: { start: true }, t: { target: true } }, []));
    expect(searchSide(few)).toBe('targets');
    const many = compile(estate({ a: { start: true }, t: { target: true }, u: { target: true } }, []));
    expect(searchSide(many)).toBe('starts');
    expect(searchSide(compile(createTenantGraph()))).toBe('targets');
    expect(bestPaths(compile(createTenantGraph()))).toEqual([]);
  });
});

function edgeBetween(g: CompiledGraph, from: string, to: string): number {
  const u = g.indexOf(from);
  for (let s = g.fStart[u]; s < g.fEnd[u]; s++) if (g.fTo[s] === g.indexOf(to)) return g.fEdges[s];
  throw new Error(`no edge ${from} → ${to}`);
}

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
