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
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 0 });
    writer.apply(envelope([image, kept], [edge('AFFECTS', kept, image)]), 2, SHOP);
    const version = writer.version;
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1 });
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
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1 });
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
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 0, edges: 1 });
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
    expect(writer.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1 });
    expect(findEdge(writer.graph, 'AFFECTS', kept.id, image.id)).toBeDefined();
  });

  it('survives serialization: a restored ledger sweeps like the original', () => {
    const writer = makeWriter();
    writer.apply(envelope([image, fixed], [edge('AFFECTS', fixed, image)]), 1, SHOP);
    writer.completeScope(SHOP);
    const copy = makeWriter();
    copy.apply(envelope([image, fixed], [edge('AFFECTS', fixed, image)]), 1);
    copy.scopes.restore(JSON.parse(JSON.stringify(writer.scopes.serialize())));
    copy.apply(envelope([image]), 2, SHOP);
    expect(copy.completeScope(SHOP)).toEqual({ nodes: 1, edges: 1 });
  });
});
