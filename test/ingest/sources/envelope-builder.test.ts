import { describe, expect, it } from 'vitest';
import { EnvelopeBuilder } from '../../../src/ingest/sources/envelope-builder.js';

describe('EnvelopeBuilder edges', () => {
  // A node's edges are found by one lookup of the node: the one edge, a list scanned, a map by target past
  // eight. Each shape must find the edge drawn before, and nothing else.
  it.each([1, 2, 8, 9, 40])(
    'draws an edge of a (type, from, to) once, with %i targets from one node',
    (n) => {
      const b = new EnvelopeBuilder('test', 'asset', '2026-01-01T00:00:00Z');
      const from = b.node('Service', 'hub');
      const targets = Array.from({ length: n }, (_, i) => b.node('Secret', `s${i}`));
      for (const to of targets) b.edge('HAS_PERMISSION', from, to, { properties: { first: true } });
      // The same pairs again, merged into the first edges; another type between the same nodes is its own edge.
      for (const to of targets) b.edge('HAS_PERMISSION', from, to, { properties: { again: true } });
      b.edge('ASSUMES', from, targets[0]);
      const { edges } = b.build();
      expect(edges).toHaveLength(n + 1);
      expect(edges.slice(0, n).map((e) => e.to)).toEqual(targets);
      for (const e of edges.slice(0, n)) expect(e.properties).toEqual({ first: true, again: true });
      expect(edges[n]).toEqual({ type: 'ASSUMES', from, to: targets[0] });
    },
  );

  it('keeps edges from different nodes to the same target apart', () => {
    const b = new EnvelopeBuilder('test', 'asset', '2026-01-01T00:00:00Z');
    const [a, c, t] = ['a', 'c', 't'].map((name) => b.node('Service', name));
    b.edge('DEPENDS_ON', a, t);
    b.edge('DEPENDS_ON', c, t);
    b.edge('DEPENDS_ON', a, t, { exploit_probability: 0.5, weight_basis: 'heuristic' });
    expect(b.build().edges).toEqual([
      { type: 'DEPENDS_ON', from: a, to: t, exploit_probability: 0.5, weight_basis: 'heuristic' },
      { type: 'DEPENDS_ON', from: c, to: t },
    ]);
  });
});
