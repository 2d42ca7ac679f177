// The hop into a workload (a `Service` node) running an image with CVEs is priced from the image's most
// exploitable CVE (src/model/probability.ts: priceCve), scaled by the confidence of the identity join that
// says the workload runs that image; an image whose scan found no CVE is priced as scanned clean. Shape read: Service DEPENDS_ON Image, CVE AFFECTS Image. An image
// BUILT_FROM a repository a code scan (`trivy fs` / `trivy repo`) describes inherits that repository's
// CVEs (CVE AFFECTS Repository) and its code scanners' server-side weaknesses (Weakness AFFECTS Repository,
// src/model/code-weakness.ts), scaled by the confidence of the join that says it was built from it.
import type { GraphView } from '../graph/model.js';
import { priceWeakness } from '../model/code-weakness.js';
import {
  moreExploitable,
  priceCve,
  SCANNED_CLEAN_PROBABILITY,
  withRuntimeEvidence,
  type HopPrice,
} from '../model/probability.js';

/** A per-compile pricer: each workload and image is looked at once. */
export function workloadPricer(graph: GraphView): (workload: string) => HopPrice | undefined {
  const workloads = new Map<string, HopPrice | undefined>();
  const images = new Map<string, HopPrice | undefined>();
  const findings = new Map<string, HopPrice | undefined>();
  /** The most exploitable finding that AFFECTS a node (an image, a repository): a CVE, or a code weakness. */
  const findingPrice = (node: string): HopPrice | undefined => {
    if (findings.has(node)) return findings.get(node);
    let best: HopPrice | undefined;
    graph.forEachInEdge(node, (_key, attrs, _source, _target, sourceAttrs) => {
      if (attrs.type !== 'AFFECTS') return;
      if (sourceAttrs.label === 'CVE') best = moreExploitable(best, priceCve(sourceAttrs.props));
      else if (sourceAttrs.label === 'Weakness') {
        const price = priceWeakness(sourceAttrs.props);
        if (price) best = moreExploitable(best, price);
      }
    });
    findings.set(node, best);
    return best;
  };
  const imagePrice = (image: string): HopPrice | undefined => {
    if (images.has(image)) return images.get(image);
    let best = findingPrice(image);
    graph.forEachOutEdge(image, (_key, attrs, _source, repository, _sa, repositoryAttrs) => {
      if (attrs.type !== 'BUILT_FROM' || repositoryAttrs.label !== 'Repository') return;
      const inherited = findingPrice(repository);
      if (inherited)
        best = moreExploitable(best, {
          p: inherited.p * (attrs.joinConfidence ?? 1),
          basis: inherited.basis,
        });
    });
    // A scan that found nothing is evidence too: without it, a fully patched image would fall back to
    // the table's untested price, higher than the CVE price it replaced.
    if (!best && graph.getNodeAttributes(image).props.vulnerability_count === 0)
      best = { p: SCANNED_CLEAN_PROBABILITY, basis: 'heuristic' };
    images.set(image, best);
    return best;
  };
  return (workload: string) => {
    if (workloads.has(workload)) return workloads.get(workload);
    let best: HopPrice | undefined;
    graph.forEachOutEdge(workload, (_key, attrs, _source, target, _sourceAttrs, targetAttrs) => {
      if (attrs.type !== 'DEPENDS_ON' || targetAttrs.label !== 'Image') return;
      const price = imagePrice(target);
      if (!price) return;
      const confidence = attrs.joinConfidence ?? 1;
      best = moreExploitable(best, { p: price.p * confidence, basis: price.basis });
    });
    // A runtime alert on the workload itself is observed evidence on the hop into it.
    best = withRuntimeEvidence(best, graph.getNodeAttributes(workload).props.runtime_observed === true);
    workloads.set(workload, best);
    return best;
  };
}
