import { describe, expect, it } from 'vitest';
import { createTenantGraph, findEdge } from '../../src/graph/model.js';

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
});
