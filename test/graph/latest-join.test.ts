// A bare-name scan (`trivy image redis`) is Docker's `redis:latest`: `:latest` references join it by that
// bare name (0.6), whichever arrives first; a tagged reference other than latest does not.
import { describe, expect, it } from 'vitest';
import { createTenantGraph, findEdge } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { parseImageRef } from '../../src/identity/image-ref.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';

const makeWriter = () => new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
const scan = node('Image', 'redis', { image_ref: 'redis', scanner: 'trivy' });
const workload = node('Service', 'prod/cache/redis');
const reference = (ref: string) =>
  node('Image', parseImageRef(ref)!.canonical, { image_ref: ref, resolve_ref: ref });

describe('a bare-name scan joins :latest references', () => {
  it('when the scan is known first', () => {
    const writer = makeWriter();
    writer.apply(envelope([scan]), 1);
    const ref = reference('docker.io/library/redis:latest');
    writer.apply(envelope([workload, ref], [edge('DEPENDS_ON', workload, ref)]), 2);
    const stitched = findEdge(writer.graph, 'DEPENDS_ON', workload.id, scan.id)!;
    expect(writer.graph.getEdgeAttributes(stitched).joinConfidence).toBe(0.6);
    expect(writer.graph.hasNode(ref.id)).toBe(false);
    expect(writer.graph.getNodeAttributes(scan.id).props).toMatchObject({ resolution_method: 'name' });
  });

  it('when the reference waits for it', () => {
    const writer = makeWriter();
    const ref = reference('redis:latest');
    writer.apply(envelope([workload, ref], [edge('DEPENDS_ON', workload, ref)]), 1);
    expect(writer.graph.getNodeAttributes(ref.id).props.resolution_pending).toBe('redis:latest');
    writer.apply(envelope([scan]), 2);
    const stitched = findEdge(writer.graph, 'DEPENDS_ON', workload.id, scan.id)!;
    expect(writer.graph.getEdgeAttributes(stitched).joinConfidence).toBe(0.6);
    expect(writer.graph.hasNode(ref.id)).toBe(false);
  });

  it('but another tag never joins a bare-name scan', () => {
    const writer = makeWriter();
    writer.apply(envelope([scan]), 1);
    const ref = reference('redis:7.2');
    writer.apply(envelope([workload, ref], [edge('DEPENDS_ON', workload, ref)]), 2);
    expect(findEdge(writer.graph, 'DEPENDS_ON', workload.id, scan.id)).toBeUndefined();
    expect(writer.graph.getNodeAttributes(ref.id).props.resolution_pending).toBe('redis:7.2');
  });
});
