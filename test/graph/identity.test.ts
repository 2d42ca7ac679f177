import { describe, expect, it } from 'vitest';
import { createTenantGraph, findEdge } from '../../src/graph/model.js';
import { GraphWriter } from '../../src/graph/writer.js';
import { parseImageRef } from '../../src/identity/image-ref.js';
import { silentLog } from '../../src/log/logger.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import type { EnvelopeNode } from '../../src/ingest/envelope.js';

function makeWriter() {
  return new GraphWriter(createTenantGraph(), { log: silentLog(), parkedTtlMs: 1e12 });
}

/** The Image node a scanner reports for `ref` (what the trivy source emits). */
function scanned(ref: string, digests: string[] = []): EnvelopeNode {
  const parsed = parseImageRef(ref)!;
  return node('Image', parsed.canonical, { image_ref: ref, digests, scanner: 'trivy' });
}

/** The Image node a build or attestation sends when it only refers to `ref`. */
function reference(ref: string, props: Record<string, unknown> = {}): EnvelopeNode {
  const parsed = parseImageRef(ref)!;
  return node('Image', parsed.canonical, {
    image_ref: ref,
    ...(parsed.digest && { digests: [parsed.digest] }),
    resolve_ref: ref,
    ...props,
  });
}

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const repo = node('Repository', 'github.com/acme/shop');

describe('image references', () => {
  it('parses refs by the spec rules: registry stripped, library/ normalized', () => {
    expect(parseImageRef('ghcr.io/acme/shop:1.4')).toMatchObject({
      registry: 'ghcr.io',
      repository: 'acme/shop',
      tag: '1.4',
      canonical: 'acme/shop:1.4',
    });
    expect(parseImageRef('docker.io/library/alpine:3.10')?.canonical).toBe('alpine:3.10');
    expect(parseImageRef('library/alpine:3.10')?.canonical).toBe('alpine:3.10');
    expect(parseImageRef('localhost:5000/app')?.canonical).toBe('app');
    expect(parseImageRef(`acme/shop@${DIGEST}`)).toMatchObject({
      digest: DIGEST,
      canonical: `acme/shop@${DIGEST}`,
    });
    // Not Docker Hub: library/ stays.
    expect(parseImageRef('quay.io/library/alpine:3')?.canonical).toBe('library/alpine:3');
    for (const bad of ['', 'two words', 'a@sha256:xyz', ':1.0', 'a//b', 'a:b:c'])
      expect(parseImageRef(bad)).toBeUndefined();
  });
});

describe('identity joins across sources', () => {
  it('joins a registry-prefixed reference to the scanned tag with confidence 0.85, lowering the stitched edge', () => {
    const writer = makeWriter();
    const image = scanned('acme/shop:1.4', [DIGEST]);
    writer.apply(envelope([image]), 1000);
    const ref = reference('registry.example.com/acme/shop:1.4');
    writer.apply(envelope([ref, repo], [edge('BUILT_FROM', ref, repo)]), 2000);
    expect(writer.graph.order).toBe(2);
    const attrs = writer.graph.getNodeAttributes(image.id);
    expect(attrs.props).toMatchObject({
      resolution_method: 'tag',
      resolution_confidence: 0.85,
      resolution_alias: 'registry.example.com/acme/shop:1.4',
      // The scan's own description wins.
      image_ref: 'acme/shop:1.4',
    });
    expect(attrs.props.resolve_ref).toBeUndefined();
    const built = findEdge(writer.graph, 'BUILT_FROM', image.id, repo.id)!;
    expect(writer.graph.getEdgeAttribute(built, 'joinConfidence')).toBe(0.85);
  });

  it('joins a digest-pinned reference to the image that carries the digest (1.0), whatever its tag', () => {
    const writer = makeWriter();
    const image = scanned('ghcr.io/acme/shop:1.4', [DIGEST]);
    writer.apply(envelope([image]), 1000);
    const ref = reference(`acme/shop@${DIGEST}`);
    writer.apply(envelope([ref, repo], [edge('BUILT_FROM', ref, repo)]), 2000);
    expect(writer.graph.hasNode(ref.id)).toBe(false);
    expect(writer.graph.getNodeAttributes(image.id).props).toMatchObject({
      resolution_method: 'digest',
      resolution_confidence: 1,
    });
    const built = findEdge(writer.graph, 'BUILT_FROM', image.id, repo.id)!;
    expect(writer.graph.getEdgeAttribute(built, 'joinConfidence')).toBeUndefined();
  });

  it('joins a bare name to the only image of that repository (0.6), and not when it is ambiguous', () => {
    const writer = makeWriter();
    const image = scanned('acme/shop:1.4');
    writer.apply(envelope([image]), 1000);
    const bare = reference('acme/shop');
    writer.apply(envelope([bare, repo], [edge('BUILT_FROM', bare, repo)]), 2000);
    expect(writer.graph.getNodeAttributes(image.id).props.resolution_method).toBe('name');
    expect(
      writer.graph.getEdgeAttribute(
        findEdge(writer.graph, 'BUILT_FROM', image.id, repo.id)!,
        'joinConfidence',
      ),
    ).toBe(0.6);

    const ambiguous = makeWriter();
    ambiguous.apply(envelope([scanned('acme/shop:1.4'), scanned('acme/shop:1.5')]), 1000);
    ambiguous.apply(envelope([bare, repo], [edge('BUILT_FROM', bare, repo)]), 2000);
    expect(ambiguous.graph.hasNode(bare.id)).toBe(true);
    expect(ambiguous.graph.getNodeAttributes(bare.id).props.resolution_pending).toBe('acme/shop');
  });

  it('holds a reference that arrives before the scan, and joins it when the scan comes (by tag and by digest)', () => {
    const writer = makeWriter();
    const byTag = reference('ghcr.io/acme/shop:1.4', { signed: true });
    const byDigest = reference(`acme/api@${DIGEST}`);
    const api = node('Repository', 'github.com/acme/api');
    writer.apply(
      envelope(
        [byTag, byDigest, repo, api],
        [edge('BUILT_FROM', byTag, repo), edge('BUILT_FROM', byDigest, api)],
      ),
      1000,
    );
    expect(writer.graph.getNodeAttributes(byTag.id).props.resolution_pending).toBe('ghcr.io/acme/shop:1.4');
    const pendingEdge = findEdge(writer.graph, 'BUILT_FROM', byTag.id, repo.id)!;
    expect(writer.graph.getEdgeAttribute(pendingEdge, 'joinPending')).toBe(true);

    const shop = scanned('acme/shop:1.4');
    const apiImage = scanned('acme/api:2.0', [DIGEST]);
    writer.apply(envelope([shop, apiImage]), 2000);
    // By tag: the same node, now resolved.
    const shopAttrs = writer.graph.getNodeAttributes(shop.id);
    expect(shopAttrs.props).toMatchObject({ resolution_method: 'tag', signed: true });
    expect(shopAttrs.props.resolution_pending).toBeUndefined();
    expect(
      writer.graph.getEdgeAttributes(findEdge(writer.graph, 'BUILT_FROM', shop.id, repo.id)!),
    ).toMatchObject({
      joinConfidence: 0.85,
    });
    // By digest: the reference node is merged into the scanned image and its edge moved.
    expect(writer.graph.hasNode(byDigest.id)).toBe(false);
    expect(findEdge(writer.graph, 'BUILT_FROM', apiImage.id, api.id)).toBeDefined();
    expect(writer.graph.getNodeAttributes(apiImage.id).props.resolution_method).toBe('digest');
  });
});
