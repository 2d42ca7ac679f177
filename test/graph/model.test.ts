import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  createTenantGraph,
  findEdge,
  findEdgeFrom,
  hasDictionaryAdjacency,
  nodeRecords,
} from '../../src/graph/model.js';
import type { EdgeType } from '../../src/graph/vocabulary.js';
import { pick, prng } from '../helpers/random-estate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('tenant graph', () => {
  it('finds an edge by (type, from, to) among parallel edges of other types', () => {
    const graph = createTenantGraph();
    graph.addNode('a', { label: 'Service', name: 'a', props: {}, lastSeen: 0 });
    graph.addNode('b', { label: 'Database', name: 'b', props: {}, lastSeen: 0 });
    graph.addDirectedEdge('a', 'b', { type: 'CONNECTS_TO', lastSeen: 1 });
    graph.addDirectedEdge('a', 'b', { type: 'HAS_PERMISSION', lastSeen: 2 });
    graph.addDirectedEdge('b', 'a', { type: 'CONNECTS_TO', lastSeen: 3 });
    expect(graph.getEdgeAttribute(findEdge(graph, 'HAS_PERMISSION', 'a', 'b')!, 'lastSeen')).toBe(2);
    expect(graph.getEdgeAttribute(findEdge(graph, 'CONNECTS_TO', 'b', 'a')!, 'lastSeen')).toBe(3);
    expect(findEdge(graph, 'ROUTES_TO', 'a', 'b')).toBeUndefined();
  });

  it("reads graphology's node records as findEdge does, through additions and removals", () => {
    // The writer's hot path (nodeRecords) must agree with the public API; a graphology upgrade that moved
    // these internals would make nodeRecords undefined (the writer then uses the API) and fail here.
    const graph = createTenantGraph();
    const records = nodeRecords(graph);
    expect(records).toBeDefined();
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ids) graph.addNode(id, { label: 'Service', name: id, props: {}, lastSeen: 0 });
    const types: EdgeType[] = ['CONNECTS_TO', 'HAS_PERMISSION', 'ROUTES_TO', 'EXPOSES'];
    const random = prng(7);
    let key = 0;
    for (let step = 0; step < 400; step++) {
      const [from, to, type] = [pick(random, ids), pick(random, ids), pick(random, types)];
      if (from === to) continue;
      const existing = findEdge(graph, type, from, to);
      // The record's id is the graph's own string, equal to the one asked for.
      expect(records!.get(from)!.key).toBe(from);
      expect(findEdgeFrom(records!.get(from)!, type, to)).toBe(existing);
      if (existing === undefined)
        graph.addDirectedEdgeWithKey(String(key++), from, to, { type, lastSeen: step });
      else if (step % 3 === 0) graph.dropEdge(existing);
    }
    expect(graph.size).toBeGreaterThan(10);
  });

  it('installs dictionary-mode adjacency on every node, however it was added', () => {
    const graph = createTenantGraph();
    graph.addNode('a', { label: 'Service', name: 'a', props: {}, lastSeen: 0 });
    graph.mergeNode('b', { label: 'Service', name: 'b', props: {}, lastSeen: 0 });
    graph.import({
      nodes: [{ key: 'c', attributes: { label: 'Service', name: 'c', props: {}, lastSeen: 0 } }],
    });
    for (const id of ['a', 'b', 'c']) expect(hasDictionaryAdjacency(graph, id)).toBe(true);
    // graphology still answers pair queries, which call hasOwnProperty on these objects.
    graph.addDirectedEdge('a', 'b', { type: 'CONNECTS_TO', lastSeen: 0 });
    expect(graph.hasDirectedEdge('a', 'b')).toBe(true);
    expect(graph.hasDirectedEdge('b', 'a')).toBe(false);
    expect(graph.outNeighbors('a')).toEqual(['b']);
  });

  it('keeps V8 from giving each adjacency object its own hidden classes', () => {
    // Only V8 itself can say whether an object is in dictionary mode; ask it in a child process.
    const script = `
      import { createTenantGraph } from './src/graph/model.ts';
      const graph = createTenantGraph();
      for (const id of ['a', 'b', 'c', 'd']) graph.addNode(id, { label: 'Service', name: id, props: {}, lastSeen: 0 });
      for (const to of ['b', 'c', 'd']) graph.addDirectedEdge('a', to, { type: 'CONNECTS_TO', lastSeen: 0 });
      const data = graph._nodes.get('a');
      const plain = {}; plain.b = 1; plain.c = 1; plain.d = 1;
      console.log(JSON.stringify([%HasFastProperties(data.out), %HasFastProperties(data.in), %HasFastProperties(plain)]));
    `;
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8' },
    );
    // Ours are dictionaries; a plain object with the same keys would not be (the control).
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual([false, false, true]);
  });
});
