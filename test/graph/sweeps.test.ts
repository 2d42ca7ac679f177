import { describe, expect, it } from 'vitest';
import { createTenantGraph, findEdge } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';

function makeWriter() {
  return new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
}

const image = node('Image', 'acme/shop:1.4');
const other = node('Image', 'acme/api:2.0');
const fixed = node('CVE', 'CVE-2024-0001');
const kept = node('CVE', 'CVE-2024-0002');
const shared = node('CVE', 'CVE-2024-0003');
const SHOP = 'trivy|image:acme/shop:1.4';
const API = 'trivy|image:acme/api:2.0';

describe('complete snapshots', () => {
  it('retracts what a newer complete report of the same scope omits (a fixed CVE)', () => {
    const writer = makeWriter();
    writer.apply(
      envelope([image, fixed, kept], [edge('AFFECTS', fixed, image), edge('AFFECTS', kept, image)]),
      1,
      SHOP,
    );
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 0, parked: 0, kept: 0 });
    writer.apply(envelope([image, kept], [edge('AFFECTS', kept, image)]), 2, SHOP);
    const version = writer.version;
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1, parked: 0, kept: 0 });
    expect(writer.graph.hasNode(fixed.id)).toBe(false);
    expect(writer.graph.hasNode(kept.id)).toBe(true);
    expect(writer.version).toBeGreaterThan(version);
  });

  it('keeps what another scope still claims, and retracts only the edge this scope drew', () => {
    const writer = makeWriter();
    writer.apply(envelope([image, shared], [edge('AFFECTS', shared, image)]), 1, SHOP);
    writer.completeScope(SHOP);
    writer.apply(envelope([other, shared], [edge('AFFECTS', shared, other)]), 1, API);
    writer.completeScope(API);
    writer.apply(envelope([image]), 2, SHOP);
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1, parked: 0, kept: 0 });
    expect(writer.graph.hasNode(shared.id)).toBe(true);
    expect(findEdge(writer.graph, 'AFFECTS', shared.id, other.id)).toBeDefined();
    expect(findEdge(writer.graph, 'AFFECTS', shared.id, image.id)).toBeUndefined();
  });

  it('never sweeps what a partial report asserted, before or after the snapshot', () => {
    const writer = makeWriter();
    const before = node('CVE', 'CVE-2024-1000');
    writer.apply(envelope([before]), 1);
    writer.apply(envelope([image, before, fixed], [edge('AFFECTS', fixed, image)]), 2, SHOP);
    writer.completeScope(SHOP);
    writer.apply(envelope([fixed]), 3); // a partial report also asserts it
    writer.apply(envelope([image]), 4, SHOP);
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1, parked: 0, kept: 0 });
    expect(writer.graph.hasNode(before.id)).toBe(true);
    expect(writer.graph.hasNode(fixed.id)).toBe(true);
  });

  it('collects a snapshot across chunks before sweeping', () => {
    const writer = makeWriter();
    writer.apply(
      envelope([image, fixed, kept], [edge('AFFECTS', fixed, image), edge('AFFECTS', kept, image)]),
      1,
      SHOP,
    );
    writer.completeScope(SHOP);
    writer.apply(envelope([image, kept]), 2, SHOP);
    writer.apply(envelope([], [edge('AFFECTS', kept, image)]), 2, SHOP);
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1, parked: 0, kept: 0 });
    expect(findEdge(writer.graph, 'AFFECTS', kept.id, image.id)).toBeDefined();
  });

  it('survives serialization: a restored ledger sweeps like the original', () => {
    const writer = makeWriter();
    writer.apply(envelope([image, fixed], [edge('AFFECTS', fixed, image)]), 1, SHOP);
    writer.completeScope(SHOP);
    const stored = JSON.parse(JSON.stringify(writer.serializeScopes())) as ReturnType<
      GraphWriter['serializeScopes']
    >;
    // Stored by what the edge is, not by this process's graph key.
    expect(stored.scopes[0][1]).toContain(`AFFECTS|${fixed.id}|${image.id}`);
    const copy = makeWriter();
    // Another process numbers its edges differently.
    copy.apply(envelope([other, kept], [edge('AFFECTS', kept, other)]), 1);
    copy.apply(envelope([image, fixed], [edge('AFFECTS', fixed, image)]), 1);
    copy.restoreScopes(stored);
    copy.apply(envelope([image]), 2, SHOP);
    expect(copy.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1, parked: 0, kept: 0 });
    expect(copy.graph.hasNode(kept.id)).toBe(true);
    expect(findEdge(copy.graph, 'AFFECTS', kept.id, other.id)).toBeDefined();
  });

  it('retracts an edge the scope omits while keeping both its endpoints', () => {
    const writer = makeWriter();
    writer.apply(envelope([image, kept], [edge('AFFECTS', kept, image)]), 1, SHOP);
    writer.completeScope(SHOP);
    writer.apply(envelope([image, kept]), 2, SHOP);
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1, parked: 0, kept: 0 });
    expect(writer.graph.hasNode(kept.id) && writer.graph.hasNode(image.id)).toBe(true);
    expect(findEdge(writer.graph, 'AFFECTS', kept.id, image.id)).toBeUndefined();
  });

  describe('an edge that waited for its endpoint', () => {
    // The scope draws an edge to a CVE no report has described yet; a partial report brings the CVE later.
    const parkedThenLanded = () => {
      const writer = makeWriter();
      writer.apply(envelope([image], [edge('AFFECTS', fixed, image)]), 1, SHOP);
      writer.completeScope(SHOP);
      expect(writer.pendingEdges).toBe(1);
      writer.apply(envelope([fixed]), 2);
      expect(writer.pendingEdges).toBe(0);
      expect(findEdge(writer.graph, 'AFFECTS', fixed.id, image.id)).toBeDefined();
      return writer;
    };

    it('is still the scope’s once it lands: a newer report that omits it retracts it', () => {
      const writer = parkedThenLanded();
      writer.apply(envelope([image]), 3, SHOP);
      expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1, parked: 0, kept: 0 });
      expect(findEdge(writer.graph, 'AFFECTS', fixed.id, image.id)).toBeUndefined();
      // The CVE came from a partial report: it stays.
      expect(writer.graph.hasNode(fixed.id)).toBe(true);
    });

    it('stays when the newer report still draws it', () => {
      const writer = parkedThenLanded();
      writer.apply(envelope([image], [edge('AFFECTS', fixed, image)]), 3, SHOP);
      expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 0, parked: 0, kept: 0 });
      expect(findEdge(writer.graph, 'AFFECTS', fixed.id, image.id)).toBeDefined();
    });

    it('keeps its claim through a snapshot taken while it waited', () => {
      const writer = makeWriter();
      writer.apply(envelope([image], [edge('AFFECTS', fixed, image)]), 1, SHOP);
      writer.completeScope(SHOP);
      const copy = makeWriter();
      copy.apply(envelope([image]), 1);
      for (const [, entry] of writer.parkedEntries()) copy.restoreParked(entry.edge, entry.receivedAt);
      copy.restoreScopes(JSON.parse(JSON.stringify(writer.serializeScopes())));
      copy.apply(envelope([fixed]), 2);
      copy.apply(envelope([image]), 3, SHOP);
      expect(copy.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1, parked: 0, kept: 0 });
      expect(findEdge(copy.graph, 'AFFECTS', fixed.id, image.id)).toBeUndefined();
    });
  });
});
