// `no-internet-to-unsigned-image` and the route's unsigned images over a small literal estate: what "not
// verifiably signed" is (signed: false, signature_unverified) and what is not (signed: true, never assessed).
// The end-to-end twin from real reports is test/app/unsigned-image-routes.test.ts.
import { describe, expect, it } from 'vitest';
import { createTenantGraph } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { internetToUnsignedImage } from '../../src/invariants/no-internet-to-unsigned-image.js';
import { signatureGap, unsignedImagesOnRoute } from '../../src/paths/unsigned-images.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';

/** An internet-facing load balancer routing to a workload that runs an image stamped `image`. */
function estate(image: Record<string, unknown>) {
  const graph = createTenantGraph();
  const writer = new GraphWriter(graph, { log: silentLog(), parkedTtlMs: 1e12 });
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const workload = node('Service', 'shop');
  const img = node('Image', 'acme/shop:1', image);
  writer.apply(
    envelope([lb, workload, img], [edge('ROUTES_TO', lb, workload), edge('DEPENDS_ON', workload, img)]),
    Date.parse('2026-11-01T00:00:00Z'),
  );
  return { graph, route: [lb.id, workload.id], lb, workload, img };
}

describe('no-internet-to-unsigned-image', () => {
  it('fires for an unsigned image and for one whose signature did not verify, naming why', () => {
    expect(internetToUnsignedImage(estate({ signed: false, signature: 'unsigned' }).graph)).toEqual([
      expect.objectContaining({
        detail: expect.stringContaining('acme/shop:1 is unsigned and runs in shop'),
      }),
    ]);
    const unverified = estate({
      signed: false,
      signature: 'signature_unverified',
      signature_problem: 'no key verifies it',
    });
    expect(internetToUnsignedImage(unverified.graph)).toEqual([
      expect.objectContaining({
        invariant: 'no-internet-to-unsigned-image',
        nodeId: unverified.img.id,
        detail: expect.stringContaining('signature_unverified: no key verifies it'),
      }),
    ]);
  });

  it('twin: a verified signature, and an image never assessed, raise nothing', () => {
    expect(internetToUnsignedImage(estate({ signed: true, signature: 'signed' }).graph)).toEqual([]);
    expect(internetToUnsignedImage(estate({}).graph)).toEqual([]);
  });

  it('signature_unverified is never signed, whatever `signed` another report stamped', () => {
    expect(signatureGap({ signed: true, signature: 'signature_unverified' })).toBe('signature_unverified');
    expect(signatureGap({ signed: true, signature: 'signed' })).toBeUndefined();
    expect(signatureGap({})).toBeUndefined();
  });
});

describe('the images a route runs through', () => {
  it('the image a workload on the route depends on, and an image on the route itself', () => {
    const { graph, route, workload, img } = estate({ signed: false, signature: 'unsigned' });
    expect(unsignedImagesOnRoute(graph, route)).toEqual([
      { id: img.id, name: 'acme/shop:1', signature: 'unsigned', problem: null, runsIn: workload.id },
    ]);
    expect(unsignedImagesOnRoute(graph, [img.id])).toEqual([expect.objectContaining({ runsIn: img.id })]);
  });

  it('twin: a signed image, one never assessed, and a node the graph no longer holds list nothing', () => {
    expect(unsignedImagesOnRoute(estate({ signed: true }).graph, estate({}).route)).toEqual([]);
    const { graph, route } = estate({});
    expect(unsignedImagesOnRoute(graph, [...route, 'Image:0000000000000000'])).toEqual([]);
  });
});
