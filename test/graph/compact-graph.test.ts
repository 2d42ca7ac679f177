// The compact store against the plainest model of what it promises: nodes and edges in lists, in the
// order added, and each node's edges as graphology lists them (by neighbour, newest first). Random additions, attribute rewrites and removals, with compactions forced often (a low
// `compactAt`), must leave every answer of the store equal to the model's.
import { describe, expect, it } from 'vitest';
import type { EdgeAttributes, NodeAttributes } from '../../src/graph/model.js';
import { CompactGraph } from '../../src/graph/store/compact-graph.js';
import { nodeId } from '../../src/graph/ids.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { silentLog } from '../../src/log/logger.js';
import { envelope, node } from '../helpers/envelope.js';
import { EdgeIndex } from '../../src/graph/store/edge-index.js';
import { NodeIds } from '../../src/graph/store/node-ids.js';
import { SparsePagedI32 } from '../../src/graph/store/paged.js';
import type { EdgeType } from '../../src/graph/vocabulary.js';
import { pick, prng } from '../helpers/random-estate.js';

interface ModelEdge {
  key: string;
  from: string;
  to: string;
  attrs: EdgeAttributes;
}

const TYPES: EdgeType[] = ['CONNECTS_TO', 'HAS_PERMISSION', 'ROUTES_TO', 'EXPOSES'];

function randomAttrs(random: () => number, type: EdgeType, step: number): EdgeAttributes {
  const attrs: EdgeAttributes = { type, lastSeen: step * 1000 + 0.5 };
  if (random() < 0.5) attrs.p = Math.round(random() * 1000) / 1000;
  if (random() < 0.3) attrs.basis = pick(random, ['kev', 'epss', 'cvss', 'heuristic'] as const);
  if (random() < 0.2) attrs.resourceScoped = true;
  if (random() < 0.2) attrs.joinConfidence = 0.9;
  else if (random() < 0.1) attrs.joinPending = true;
  if (random() < 0.3) attrs.props = { step, valid_until: '2030-01-01T00:00:00Z' };
  return attrs;
}

/**
 * graphology's adjacency: per node, per neighbour (in the order the neighbour's group was started, while it
 * is not empty) the edges between them, newest first.
 */
class Adjacency {
  private readonly groups = new Map<string, Map<string, string[]>>();

  add(node: string, neighbour: string, key: string): void {
    let byNeighbour = this.groups.get(node);
    if (!byNeighbour) this.groups.set(node, (byNeighbour = new Map()));
    const group = byNeighbour.get(neighbour);
    if (group) group.unshift(key);
    else byNeighbour.set(neighbour, [key]);
  }

  remove(node: string, neighbour: string, key: string): void {
    const byNeighbour = this.groups.get(node)!;
    const group = byNeighbour.get(neighbour)!.filter((k) => k !== key);
    if (group.length) byNeighbour.set(neighbour, group);
    else byNeighbour.delete(neighbour);
  }

  dropNode(node: string): void {
    this.groups.delete(node);
  }

  list(node: string): string[] {
    return [...(this.groups.get(node)?.values() ?? [])].flat();
  }
}

function check(
  graph: CompactGraph,
  nodes: Map<string, NodeAttributes>,
  edges: ModelEdge[],
  outLists: Adjacency,
  inLists: Adjacency,
): void {
  expect(graph.order).toBe(nodes.size);
  expect(graph.size).toBe(edges.length);
  expect(graph.nodes()).toEqual([...nodes.keys()]);
  const seen: ModelEdge[] = [];
  graph.forEachEdge((key, attrs, from, to, fromAttrs, toAttrs) => {
    expect(fromAttrs).toBe(nodes.get(from));
    expect(toAttrs).toBe(nodes.get(to));
    seen.push({ key, from, to, attrs });
  });
  expect(seen).toEqual(edges);
  // The compiler's walk: the same edges in the same order, no keys, one record rewritten for each edge.
  const unkeyed: ModelEdge[] = [];
  graph.forEachEdgeUnkeyed((key, attrs, from, to, fromAttrs, toAttrs) => {
    expect(key).toBe('');
    expect(fromAttrs).toBe(nodes.get(from));
    expect(toAttrs).toBe(nodes.get(to));
    unkeyed.push({ key: '', from, to, attrs: { ...attrs } });
  });
  expect(unkeyed).toEqual(edges.map((e) => ({ ...e, key: '' })));
  for (const [id, attrs] of nodes) {
    expect(graph.getNodeAttributes(id)).toBe(attrs);
    const out = edges.filter((e) => e.from === id);
    const into = edges.filter((e) => e.to === id);
    expect(graph.outDegree(id)).toBe(out.length);
    expect(graph.inDegree(id)).toBe(into.length);
    expect(graph.degree(id)).toBe(out.length + into.length);
    expect(graph.outEdges(id)).toEqual(outLists.list(id));
    expect(graph.inEdges(id)).toEqual(inLists.list(id));
    const incident: string[] = [];
    graph.forEachEdge(id, (key) => incident.push(key));
    expect(incident).toEqual([...inLists.list(id), ...outLists.list(id)]);
  }
  for (const edge of edges) {
    expect(graph.findEdge(edge.attrs.type, edge.from, edge.to)).toBe(edge.key);
    expect(graph.source(edge.key)).toBe(edge.from);
    expect(graph.target(edge.key)).toBe(edge.to);
    expect(graph.getEdgeAttributes(edge.key)).toEqual(edge.attrs);
    expect(graph.hasEdge(edge.key)).toBe(true);
  }
}

describe('compact graph store', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`answers as a list of nodes and edges would through random writes and compactions (seed ${seed})`, () => {
      const random = prng(seed);
      const graph = new CompactGraph({ compactAt: 4 });
      const nodes = new Map<string, NodeAttributes>();
      let edges: ModelEdge[] = [];
      const dropped: string[] = [];
      const outLists = new Adjacency();
      const inLists = new Adjacency();
      const drop = (e: ModelEdge) => {
        outLists.remove(e.from, e.to, e.key);
        inLists.remove(e.to, e.from, e.key);
        dropped.push(e.key);
      };
      const ids = Array.from({ length: 12 }, (_, i) => `Service:n${i}`);
      for (let step = 0; step < 600; step++) {
        const roll = random();
        const present = [...nodes.keys()];
        if (roll < 0.2 || present.length < 2) {
          const id = pick(random, ids);
          if (nodes.has(id)) continue;
          const attrs: NodeAttributes = { label: 'Service', name: id, props: { step }, lastSeen: step };
          graph.addNode(id, attrs);
          nodes.set(id, attrs);
        } else if (roll < 0.6) {
          const [from, to, type] = [pick(random, present), pick(random, present), pick(random, TYPES)];
          if (from === to) {
            expect(() => graph.addDirectedEdge(from, to, { type, lastSeen: 0 })).toThrow(/self-loops/);
            continue;
          }
          const existing = edges.find((e) => e.from === from && e.to === to && e.attrs.type === type);
          const attrs = randomAttrs(random, type, step);
          if (existing) {
            graph.replaceEdgeAttributes(existing.key, attrs);
            existing.attrs = attrs;
          } else {
            const key = graph.addDirectedEdge(from, to, attrs);
            edges.push({ key, from, to, attrs });
            outLists.add(from, to, key);
            inLists.add(to, from, key);
          }
        } else if (roll < 0.85) {
          if (!edges.length) continue;
          const edge = pick(random, edges);
          graph.dropEdge(edge.key);
          drop(edge);
          edges = edges.filter((e) => e !== edge);
        } else {
          const id = pick(random, present);
          graph.dropNode(id);
          nodes.delete(id);
          for (const e of edges) if (e.from === id || e.to === id) drop(e);
          outLists.dropNode(id);
          inLists.dropNode(id);
          edges = edges.filter((e) => e.from !== id && e.to !== id);
        }
        if (step % 25 === 0) check(graph, nodes, edges, outLists, inLists);
      }
      graph.compactIfSparse();
      check(graph, nodes, edges, outLists, inLists);
      // Keys are never reused: a dropped key names nothing, whatever was added or compacted since.
      for (const key of dropped) expect(graph.hasEdge(key)).toBe(false);
      expect(new Set(edges.map((e) => e.key)).size).toBe(edges.length);
    });
  }

  it('keeps the order of nodes through drops and re-adds, as graphology does (a re-added node comes last)', () => {
    const graph = new CompactGraph({ compactAt: 1 });
    const attrs = (name: string): NodeAttributes => ({ label: 'Service', name, props: {}, lastSeen: 0 });
    for (const id of ['a', 'b', 'c', 'd']) graph.addNode(id, attrs(id));
    graph.addDirectedEdge('a', 'c', { type: 'CONNECTS_TO', lastSeen: 0 });
    graph.dropNode('b');
    graph.addNode('b', attrs('b'));
    graph.dropNode('a');
    graph.addNode('e', attrs('e'));
    expect(graph.nodes()).toEqual(['c', 'd', 'b', 'e']);
    expect(graph.size).toBe(0);
    expect(graph.inDegree('c')).toBe(0);
  });

  it("keeps a caller's own edge keys, and refuses one twice, a node twice and unknown endpoints", () => {
    const graph = new CompactGraph();
    graph.addNode('a', { label: 'Service', name: 'a', props: {}, lastSeen: 0 });
    graph.addNode('b', { label: 'Service', name: 'b', props: {}, lastSeen: 0 });
    expect(graph.addDirectedEdgeWithKey('e1', 'a', 'b', { type: 'CONNECTS_TO', lastSeen: 0 })).toBe('e1');
    expect(() => graph.addDirectedEdgeWithKey('e1', 'b', 'a', { type: 'CONNECTS_TO', lastSeen: 0 })).toThrow(
      /"e1" edge already exists/,
    );
    expect(() => graph.addNode('a', { label: 'Service', name: 'a', props: {}, lastSeen: 0 })).toThrow(
      /already exist/,
    );
    expect(() => graph.addDirectedEdge('a', 'zz', { type: 'CONNECTS_TO', lastSeen: 0 })).toThrow(
      /target node "zz" not found/,
    );
    expect(() => graph.getNodeAttributes('zz')).toThrow(/could not find the "zz" node/);
    expect(() => graph.getEdgeAttributes('999')).toThrow(/could not find the "999" edge/);
    expect(graph.findEdge('CONNECTS_TO', 'a', 'b')).toBe('e1');
    expect(graph.hasDirectedEdge('a', 'b')).toBe(true);
    expect(graph.hasDirectedEdge('b', 'a')).toBe(false);
    expect(graph.outNeighbors('a')).toEqual(['b']);
    graph.dropEdge('e1');
    expect(graph.hasEdge('e1')).toBe(false);
  });

  it("imports and exports graphology's serialized form", () => {
    const graph = new CompactGraph();
    graph.import({
      nodes: [
        { key: 'a', attributes: { label: 'Service', name: 'a', props: {}, lastSeen: 0 } },
        { key: 'b', attributes: { label: 'Database', name: 'b', props: { x: 1 }, lastSeen: 0 } },
      ],
      edges: [{ source: 'a', target: 'b', attributes: { type: 'CONNECTS_TO', p: 0.5, lastSeen: 2 } }],
    });
    const exported = graph.export();
    expect(exported.nodes.map((n) => n.key)).toEqual(['a', 'b']);
    expect(exported.edges).toEqual([
      {
        key: expect.any(String),
        source: 'a',
        target: 'b',
        attributes: { type: 'CONNECTS_TO', p: 0.5, lastSeen: 2 },
      },
    ]);
    expect(exported.options).toEqual({ type: 'directed', multi: true, allowSelfLoops: false });
  });
});

describe('node records', () => {
  // The compiler writes compileIndex on every record at its first pass: a record made without the key grows
  // an out-of-object property store then (about 40 bytes a node: 38 MB at 1M nodes, docs/perf.md).
  it("are made with the compiler's scratch key in their shape, by the writer and by a snapshot's restore", () => {
    const writer = new GraphWriter(new CompactGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
    writer.apply(envelope([node('Service', 'web-1', { internet_exposed: true })]), 1000);
    const id = nodeId('Service', 'web-1');
    expect(Object.keys(writer.graph.getNodeAttributes(id))).toContain('compileIndex');

    const parsed = JSON.parse(
      JSON.stringify({ ...writer.graph.getNodeAttributes(id), extra: 7 }),
    ) as NodeAttributes;
    const restored = new CompactGraph();
    restored.mergeNode(id, parsed);
    const record = restored.getNodeAttributes(id);
    expect(record).not.toBe(parsed);
    expect(Object.keys(record)).toEqual(['label', 'name', 'props', 'lastSeen', 'compileIndex', 'extra']);
    expect(record).toEqual(parsed);
    // Attributes that are not a node record (a test's, an imported graph's) are copied as they are.
    restored.mergeNode('x', { color: 'red' } as never);
    expect(Object.keys(restored.getNodeAttributes('x'))).toEqual(['color']);
  });
});

describe('edge index', () => {
  it('finds every edge and forgets removed ones through growth and backward-shift deletion', () => {
    const from: number[] = [];
    const to: number[] = [];
    const type: number[] = [];
    // As in the store, a dropped slot reads as dead (from -1) and the index grows over the live ones.
    const index = new EdgeIndex({
      fromOf: (s) => from[s],
      toOf: (s) => to[s],
      typeOf: (s) => type[s],
      slotCount: () => from.length,
    });
    const random = prng(11);
    const live = new Set<number>();
    for (let step = 0; step < 20_000; step++) {
      if (random() < 0.7 || !live.size) {
        const slot = from.length;
        from.push(Math.floor(random() * 50));
        to.push(Math.floor(random() * 50));
        type.push(Math.floor(random() * 3));
        if (index.find(type[slot], from[slot], to[slot]) >= 0) {
          from[slot] = -1;
          continue;
        }
        index.add(slot);
        live.add(slot);
      } else {
        const slot = [...live][Math.floor(random() * live.size)];
        index.remove(slot);
        live.delete(slot);
        const f = from[slot];
        from[slot] = -1;
        expect(index.find(type[slot], f, to[slot])).toBe(-1);
      }
    }
    expect(index.size).toBe(live.size);
    for (const slot of live) {
      expect(index.find(type[slot], from[slot], to[slot])).toBe(slot);
      const pair = index.findPair(from[slot], to[slot]);
      expect([from[pair], to[pair]]).toEqual([from[slot], to[slot]]);
    }
    for (let f = 0; f < 50; f++)
      for (let t = 0; t < 50; t++) {
        const any = [...live].some((s) => from[s] === f && to[s] === t);
        expect(index.findPair(f, t) >= 0).toBe(any);
      }
  });
});

describe('node ids', () => {
  it('answers as a Map would through growth, deletions and a rebuild', () => {
    const random = prng(5);
    const ids: (string | undefined)[] = [];
    const table = new NodeIds(ids);
    const model = new Map<string, number>();
    for (let step = 0; step < 30_000; step++) {
      const id = `Service:${Math.floor(random() * 3000).toString(36)}`;
      if (!model.has(id) && random() < 0.7) {
        ids.push(id);
        table.set(id, ids.length - 1);
        model.set(id, ids.length - 1);
      } else if (model.has(id)) {
        table.delete(id, model.get(id)!);
        ids[model.get(id)!] = undefined;
        model.delete(id);
      }
      // A fresh string with the same characters, as JSON.parse hands the writer.
      expect(table.get(JSON.parse(JSON.stringify(id)) as string)).toBe(model.get(id) ?? -1);
    }
    expect(table.size).toBe(model.size);
    table.rebuild(ids);
    for (const [id, slot] of model) expect(table.get(id)).toBe(slot);
    expect(table.get('Service:absent')).toBe(-1);
  });

  it('tells apart ids that differ only in their label, and ids that are not well-formed', () => {
    const random = prng(9);
    // The same names under several labels give ids that differ only in the label (and labels of one length
    // with the same first letter hash alike: idHash reads the label's length and first letter only); the
    // rest are not well-formed (uppercase hex, a digit in the label, a short hex) and hash as whole strings.
    const labels = [
      'Service',
      'Sxxxxxe',
      'Image',
      'IAM_Role',
      'Icon_Ne',
      // Many labels over the same names: probes cross buckets that hold the same hex under another label.
      ...Array.from(
        { length: 40 },
        (_, i) => `Lab_${String.fromCharCode(97 + (i % 26))}${i < 26 ? '' : 'x'}`,
      ),
    ];
    const names = Array.from({ length: 150 }, (_, i) => `team-${i % 50}/app-${i}`);
    const candidates = [
      ...labels.flatMap((label) => names.map((name) => nodeId(label as never, name))),
      ...names.slice(0, 100).map((name) => nodeId('Service', name).toUpperCase()),
      ...names.slice(0, 100).map((name) => nodeId('Service', name).replace('Service', 'Serv1ce')),
      ...names.slice(0, 100).map((name) => nodeId('Image', name).slice(0, -1)),
      'a',
      ':0123456789abcdef',
      'Service:0123456789abcdeg',
    ];
    const ids: (string | undefined)[] = [];
    const table = new NodeIds(ids);
    const model = new Map<string, number>();
    for (let step = 0; step < 20_000; step++) {
      const id = pick(random, candidates);
      if (!model.has(id) && random() < 0.6) {
        ids.push(id);
        table.set(id, ids.length - 1);
        model.set(id, ids.length - 1);
      } else if (model.has(id) && random() < 0.5) {
        table.delete(id, model.get(id)!);
        ids[model.get(id)!] = undefined;
        model.delete(id);
      }
      const probe = pick(random, candidates);
      expect(table.get(JSON.parse(JSON.stringify(probe)) as string)).toBe(model.get(probe) ?? -1);
    }
    for (const id of candidates) expect(table.get(id)).toBe(model.get(id) ?? -1);
    table.rebuild(ids);
    for (const id of candidates) expect(table.get(id)).toBe(model.get(id) ?? -1);
    // A well-formed id under a label the table never held, and one under a held label but absent.
    expect(table.get(nodeId('Repository', 'x'))).toBe(-1);
    expect(table.get('Service:ffffffffffffffff')).toBe(-1);
  });
});

describe('sparse pages', () => {
  it('frees a page once none of its numbers is in use', () => {
    const map = new SparsePagedI32();
    map.set(5, 1);
    map.set(70_000, 2);
    expect(map.allocatedPages).toBe(2);
    map.set(5, 0);
    expect(map.allocatedPages).toBe(1);
    expect(map.get(5)).toBe(0);
    expect(map.get(70_000)).toBe(2);
  });
});
