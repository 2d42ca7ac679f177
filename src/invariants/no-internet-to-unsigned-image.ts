// Policy invariant `no-internet-to-unsigned-image` (HIGH): an image not verifiably signed (`signed: false`:
// reported unsigned, or a signature that did not verify, `signature_unverified`) must not run where the
// internet reaches. Reachability follows the network hops (ROUTES_TO, EXPOSES, CONNECTS_TO, HOSTS) from every
// internet-exposed node to the workloads (Service) that DEPENDS_ON the image. `signed` absent raises nothing:
// unknown is not unsigned; a verified signature (`signed: true`) raises nothing either.
import type { GraphView } from '../graph/model.js';
import { PROP } from '../graph/vocabulary.js';
import { signatureGap } from '../paths/unsigned-images.js';
import type { Violation } from './violation.js';

export const NO_INTERNET_TO_UNSIGNED_IMAGE = 'no-internet-to-unsigned-image';
const NETWORK = new Set(['ROUTES_TO', 'EXPOSES', 'CONNECTS_TO', 'HOSTS']);

export function internetToUnsignedImage(graph: GraphView): Violation[] {
  const queue: string[] = [];
  const reached = new Set<string>();
  graph.forEachNode((id, attrs) => {
    if (attrs.props.internet_exposed === true) {
      reached.add(id);
      queue.push(id);
    }
  });
  while (queue.length) {
    const id = queue.pop()!;
    graph.forEachOutEdge(id, (_key, attrs, _source, target) => {
      if (!NETWORK.has(attrs.type) || reached.has(target)) return;
      reached.add(target);
      queue.push(target);
    });
  }
  const out: Violation[] = [];
  const flagged = new Set<string>();
  for (const workload of reached) {
    if (graph.getNodeAttributes(workload).label !== 'Service') continue;
    graph.forEachOutEdge(workload, (_key, attrs, _source, image, _sa, imageAttrs) => {
      if (attrs.type !== 'DEPENDS_ON' || imageAttrs.label !== 'Image') return;
      const gap = signatureGap(imageAttrs.props);
      if (!gap || flagged.has(image)) return;
      flagged.add(image);
      const problem = imageAttrs.props[PROP.signatureProblem];
      const what =
        gap === 'signature_unverified'
          ? `carries a signature that does not verify (signature_unverified${typeof problem === 'string' ? `: ${problem}` : ''})`
          : 'is unsigned';
      out.push({
        id: `${NO_INTERNET_TO_UNSIGNED_IMAGE}:${image}`,
        invariant: NO_INTERNET_TO_UNSIGNED_IMAGE,
        severity: 'HIGH',
        nodeId: image,
        detail: `Image ${imageAttrs.name} ${what} and runs in ${graph.getNodeAttributes(workload).name}, which the internet reaches`,
      });
    });
  }
  return out;
}
