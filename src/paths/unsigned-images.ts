// The images an attack path's route runs through that are not verifiably signed (spec: "the kill chain
// marks the image as unsigned"): an Image node on the route, or the image a workload (Service) on the route
// DEPENDS_ON. Not verifiably signed is `signed: false`: reported unsigned, provenance without a signature, or
// a signature that did not verify (`signature: signature_unverified`, src/ingest/signatures/). An image with
// no `signed` at all was never assessed and is not marked (spec: absent means not assessed).
import type { GraphView, NodeAttributes } from '../graph/model.js';
import { PROP } from '../graph/vocabulary.js';

export interface UnsignedImage {
  /** the Image node */
  id: string;
  name: string;
  /** `unsigned`, or `signature_unverified` when a signature is present but did not verify */
  signature: 'unsigned' | 'signature_unverified';
  /** why the signature did not verify, when the supply-chain source said */
  problem: string | null;
  /** the route's node that runs it: the workload depending on it, or the image itself */
  runsIn: string;
}

/** How an image falls short of verifiably signed; undefined when it is signed or was never assessed. */
export function signatureGap(props: Record<string, unknown>): UnsignedImage['signature'] | undefined {
  // A signature that did not verify is never `signed`, whatever else a report stamped (spec "signed").
  if (props[PROP.signature] === 'signature_unverified') return 'signature_unverified';
  return props[PROP.signed] === false ? 'unsigned' : undefined;
}

export function unsignedImagesOnRoute(graph: GraphView, nodeIds: readonly string[]): UnsignedImage[] {
  const found = new Map<string, UnsignedImage>();
  const consider = (id: string, attrs: NodeAttributes, runsIn: string) => {
    if (attrs.label !== 'Image' || found.has(id)) return;
    const signature = signatureGap(attrs.props);
    if (!signature) return;
    const problem = attrs.props[PROP.signatureProblem];
    found.set(id, {
      id,
      name: attrs.name,
      signature,
      problem: signature === 'signature_unverified' && typeof problem === 'string' ? problem : null,
      runsIn,
    });
  };
  for (const id of nodeIds) {
    let attrs: NodeAttributes;
    try {
      attrs = graph.getNodeAttributes(id);
    } catch {
      continue; // a resolved path's node the graph no longer holds
    }
    consider(id, attrs, id);
    if (attrs.label !== 'Service') continue;
    graph.forEachOutEdge(id, (_key, edge, _from, image, _fromAttrs, imageAttrs) => {
      if (edge.type === 'DEPENDS_ON') consider(image, imageAttrs, id);
    });
  }
  return [...found.values()];
}
