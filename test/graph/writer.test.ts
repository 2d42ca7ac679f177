import { describe, expect, it } from 'vitest';
import { createTenantGraph, findEdge } from '../../src/graph/model.js';
import { GraphWriter, type DropReason } from '../../src/graph/writer.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import type { EventEnvelope } from '../../src/ingest/envelope.js';

const DAY = 24 * 3600 * 1000;

function makeWriter() {
  const drops: DropReason[] = [];
  const writer = new GraphWriter(createTenantGraph(), {
    log: silentLog(),
    parkedTtlMs: 7 * DAY,
    onDrop: (reason, n) => drops.push(...Array<DropReason>(n).fill(reason)),
  });
  return { writer, drops };
}

const lb = node('LoadBalancer', 'edge-lb', { internet_exposed: true, zone: 'a' });
const web = node('Service', 'web');
const db = node('Database', 'orders', { crown_jewel: true });

describe('GraphWriter', () => {
  it('upserts a node, merging properties and stamping last_seen', () => {
    const { writer } = makeWriter();
    writer.apply(envelope([lb]), 1000);
    writer.apply(envelope([node('LoadBalancer', 'EDGE-LB', { owner: 'team-a', zone: 'b' })]), 2000);
    const attrs = writer.graph.getNodeAttributes(lb.id);
    expect(writer.graph.order).toBe(1);
    expect(attrs.props).toEqual({ internet_exposed: true, zone: 'b', owner: 'team-a' });
    expect(attrs.lastSeen).toBe(2000);
    expect(attrs.name).toBe('EDGE-LB');
  });

  it('keys edges by (type, from, to): a second report updates, another type adds', () => {
    const { writer } = makeWriter();
    writer.apply(envelope([lb, web], [edge('ROUTES_TO', lb, web, 0.5)]), 1000);
    writer.apply(envelope([], [edge('ROUTES_TO', lb, web, 0.7), edge('CONNECTS_TO', lb, web)]), 2000);
    expect(writer.graph.size).toBe(2);
    expect(writer.graph.getEdgeAttributes(findEdge(writer.graph, 'ROUTES_TO', lb.id, web.id)!)).toMatchObject(
      {
        p: 0.7,
        lastSeen: 2000,
      },
    );
  });

  it('parks an edge whose endpoint has not arrived and lands it in the write that brings it', () => {
    const { writer } = makeWriter();
    const first = writer.apply(envelope([lb], [edge('ROUTES_TO', lb, web)]), 1000);
    expect(first).toMatchObject({ edges: 0, parked: 1 });
    expect(writer.pendingEdges).toBe(1);
    expect(writer.graph.size).toBe(0);
    const second = writer.apply(envelope([web]), 5000);
    expect(second.landed).toBe(1);
    expect(writer.pendingEdges).toBe(0);
    const landed = findEdge(writer.graph, 'ROUTES_TO', lb.id, web.id);
    expect(landed).toBeDefined();
    // The landed edge keeps the time it was reported.
    expect(writer.graph.getEdgeAttribute(landed!, 'lastSeen')).toBe(1000);
  });

  it('waits for both endpoints when both are missing', () => {
    const { writer } = makeWriter();
    writer.apply(envelope([], [edge('HAS_PERMISSION', web, db)]), 1000);
    writer.apply(envelope([web]), 2000);
    expect(writer.pendingEdges).toBe(1);
    writer.apply(envelope([db]), 3000);
    expect(writer.pendingEdges).toBe(0);
    expect(writer.graph.size).toBe(1);
  });

  it('drops parked edges after the TTL (7 days)', () => {
    const { writer, drops } = makeWriter();
    writer.apply(envelope([lb], [edge('ROUTES_TO', lb, web)]), 0);
    expect(writer.expireParked(7 * DAY)).toBe(0);
    expect(writer.expireParked(7 * DAY + 1)).toBe(1);
    expect(drops).toEqual(['parked_expired']);
    writer.apply(envelope([web]), 8 * DAY);
    expect(writer.graph.size).toBe(0);
  });

  it('drops labels and edge types outside the vocabulary arriving by any route, storing nothing of them', () => {
    const { writer, drops } = makeWriter();
    const rogue = {
      source: 'replayed',
      kind: 'asset',
      observed_at: '2026-11-01T00:00:00Z',
      nodes: [{ id: 'Spaceship:0123456789abcdef', label: 'Spaceship', name: 'x' }, lb, web],
      edges: [
        { type: 'TELEPORTS_TO', from: lb.id, to: web.id },
        { type: 'ROUTES_TO', from: lb.id, to: 'Spaceship:0123456789abcdef' },
        { type: 'ROUTES_TO', from: lb.id, to: web.id },
      ],
    } as unknown as EventEnvelope;
    const result = writer.apply(rogue, 1000);
    expect(result).toMatchObject({ nodes: 2, edges: 1, dropped: 3, parked: 0 });
    expect(drops.sort()).toEqual(['unknown_edge_type', 'unknown_label', 'unknown_label']);
    expect(writer.graph.hasNode('Spaceship:0123456789abcdef')).toBe(false);
    expect(writer.pendingEdges).toBe(0);
  });

  it('bumps its version on changes an analysis can see, not on a plain re-observation', () => {
    const { writer } = makeWriter();
    writer.apply(envelope([lb, web], [edge('ROUTES_TO', lb, web, 0.5)]), 1000);
    const v = writer.version;
    writer.apply(envelope([lb, web], [edge('ROUTES_TO', lb, web, 0.5)]), 2000);
    expect(writer.version).toBe(v);
    writer.apply(envelope([], [edge('ROUTES_TO', lb, web, 0.6)]), 3000);
    expect(writer.version).toBeGreaterThan(v);
  });

  it('prunes nodes and edges not re-seen since the cutoff', () => {
    const { writer } = makeWriter();
    writer.apply(
      envelope([lb, web, db], [edge('ROUTES_TO', lb, web), edge('HAS_PERMISSION', web, db)]),
      1000,
    );
    writer.apply(envelope([lb, web], [edge('ROUTES_TO', lb, web)]), 5000);
    expect(writer.prune(2000)).toEqual({ nodes: 1, edges: 1 });
    expect(writer.graph.hasNode(db.id)).toBe(false);
    expect(writer.graph.size).toBe(1);
  });
});
