// FROZEN copy of src/graph/image-identity.ts as of commit 8f355e3, part of the graphology writer that is the oracle of the
// differential test (issue 38: test/graph/compact-store.differential.test.ts). Only its imports and the names of its
// exports were changed (Oracle*). Never change its behaviour: the compact store must match it.
// Identity resolution for images (spec "Identity resolution rules"). A report that only refers to an image
// (a build, an attestation, a workload) sends an Image node with `resolve_ref`; it is joined to the image a
// scanner reported: by digest (confidence 1.0), by tag (0.85) or by bare name (0.6, only when one image of
// that repository is known). A reference that matches nothing yet stays pending (`resolution_pending`) and
// is joined when the scan arrives. A scan of a bare name (`trivy image redis`) is Docker's `redis:latest`:
// a `:latest` reference joins it by that bare name (0.6) when no scan of `:latest` itself is known. The
// stitched edges carry the confidence, which multiplies their price.
import { parseImageRef, type ImageRef } from '../../../src/identity/image-ref.js';
import { nodeId } from '../../../src/graph/ids.js';
import type { OracleNodeAttributes, OracleGraph } from './model.js';

export type ResolutionMethod = 'digest' | 'tag' | 'name';

export const JOIN_CONFIDENCE: Readonly<Record<ResolutionMethod, number>> = {
  digest: 1,
  tag: 0.85,
  name: 0.6,
};

export interface Join {
  /** The node the reference resolves to. */
  id: string;
  method: ResolutionMethod;
  confidence: number;
}

/** Properties describing where an image came from; a joined reference never overwrites the scan's. */
export const IMAGE_IDENTITY_PROPS = ['image_ref', 'registry', 'digests', 'repo_tags'] as const;

export const RESOLVE_REF = 'resolve_ref';
export const RESOLUTION_PENDING = 'resolution_pending';

/** Indexes of the scanned images of one tenant graph, and of the references still waiting for one. */
export class OracleImageIdentity {
  private readonly scannedByDigest = new Map<string, string>();
  private readonly scannedByRepository = new Map<string, Set<string>>();
  private readonly pendingByDigest = new Map<string, Set<string>>();
  private readonly pendingByRepository = new Map<string, Set<string>>();
  /** `:latest` references waiting for a scan of the bare name, by repository. */
  private readonly pendingLatest = new Map<string, Set<string>>();

  constructor(private readonly graph: OracleGraph) {}

  /** Where a reference should land now, or undefined when no scanned image matches it (yet). */
  resolve(ref: ImageRef, ownId: string): Join | undefined {
    if (ref.digest) {
      const id = this.scannedByDigest.get(ref.digest);
      if (id !== undefined && this.isScanned(id)) return join(id, 'digest');
    }
    if (ref.tag !== undefined) {
      if (this.isScanned(ownId)) return join(ownId, 'tag');
      if (ref.tag === LATEST) {
        const bare = nodeId('Image', ref.repository);
        if (this.isScanned(bare)) return join(bare, 'name');
      }
      return undefined;
    }
    if (ref.digest) return undefined;
    const candidates = [...(this.scannedByRepository.get(ref.repository) ?? [])].filter((id) =>
      this.isScanned(id),
    );
    return candidates.length === 1 ? join(candidates[0], 'name') : undefined;
  }

  /** Records an unresolved reference so that a later scan can claim it. */
  notePending(id: string, ref: ImageRef): void {
    if (ref.digest) add(this.pendingByDigest, ref.digest, id);
    if (ref.tag === undefined && !ref.digest) add(this.pendingByRepository, ref.repository, id);
    if (ref.tag === LATEST) add(this.pendingLatest, ref.repository, id);
  }

  /** Indexes a scanned image node; returns the pending references it now resolves (not itself). */
  noteScanned(id: string, attrs: OracleNodeAttributes): { id: string; method: ResolutionMethod }[] {
    const ref = parseImageRef(attrs.name);
    if (!ref || attrs.props.name_note !== undefined) return [];
    add(this.scannedByRepository, ref.repository, id);
    const claims: { id: string; method: ResolutionMethod }[] = [];
    for (const digest of digestsOf(attrs)) {
      this.scannedByDigest.set(digest, id);
      for (const pending of take(this.pendingByDigest, digest))
        claims.push({ id: pending, method: 'digest' });
    }
    for (const pending of take(this.pendingByRepository, ref.repository))
      claims.push({ id: pending, method: 'name' });
    // A bare-name scan is `:latest`: the `:latest` references waiting for it join by that name.
    if (ref.tag === undefined && !ref.digest)
      for (const pending of take(this.pendingLatest, ref.repository))
        claims.push({ id: pending, method: 'name' });
    return claims.filter((c) => c.id !== id && this.isPending(c.id));
  }

  /** Rebuilds every index from the graph (after a snapshot restore). */
  reindex(): void {
    this.scannedByDigest.clear();
    this.scannedByRepository.clear();
    this.pendingByDigest.clear();
    this.pendingByRepository.clear();
    this.pendingLatest.clear();
    this.graph.forEachNode((id, attrs) => {
      if (attrs.label !== 'Image') return;
      const pending = attrs.props[RESOLUTION_PENDING];
      if (typeof pending === 'string') {
        const ref = parseImageRef(pending);
        if (ref) this.notePending(id, ref);
      } else this.noteScanned(id, attrs);
    });
  }

  isPending(id: string): boolean {
    return (
      this.graph.hasNode(id) && typeof this.graph.getNodeAttributes(id).props[RESOLUTION_PENDING] === 'string'
    );
  }

  private isScanned(id: string): boolean {
    if (!this.graph.hasNode(id)) return false;
    const attrs = this.graph.getNodeAttributes(id);
    return attrs.label === 'Image' && attrs.props[RESOLUTION_PENDING] === undefined;
  }
}

const LATEST = 'latest';

function join(id: string, method: ResolutionMethod): Join {
  return { id, method, confidence: JOIN_CONFIDENCE[method] };
}

/**
 * How a reference that waited under the scanned image's own id (the same name) joins it when the scan
 * lands: by digest when the scan reports the digest the reference pins (a pod's running digest), else by
 * tag. The same answer `resolve` gives when the scan came first, so arrival order does not change a price.
 */
export function inPlaceMethod(
  reference: unknown,
  scanned: { props: Record<string, unknown> },
): ResolutionMethod {
  const digest = typeof reference === 'string' ? parseImageRef(reference)?.digest : undefined;
  return digest !== undefined && digestsOf(scanned).includes(digest) ? 'digest' : 'tag';
}

export function digestsOf(attrs: { props: Record<string, unknown> }): string[] {
  const digests = attrs.props.digests;
  return Array.isArray(digests) ? digests.filter((d): d is string => typeof d === 'string') : [];
}

function add(index: Map<string, Set<string>>, key: string, id: string): void {
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new Set()));
  ids.add(id);
}

function take(index: Map<string, Set<string>>, key: string): string[] {
  const ids = index.get(key);
  if (!ids) return [];
  index.delete(key);
  return [...ids];
}
