// A path's confidence (spec: AttackPath.confidence, confidenceLabel `high`/`medium`/`low`): how far the
// route rests on facts rather than on inference, from its hops' join confidence and evidence. It is not the
// score (how likely the attack succeeds) but how much the score and the route itself can be trusted:
//   confidence = Π join confidence × the weakest hop's evidence weight
// A hop stitched by an inferred identity join carries that join's confidence (digest 1.0, tag 0.85, bare
// name 0.6: docs/identity.md); any other hop is a reported fact (1). Joins compound: each one may be wrong
// on its own. Evidence weighs how its price was set (docs/model.md, "Confidence"): observed evidence (KEV,
// EPSS, a runtime alert) 1, a CVSS vector 0.9, a pricing rule of the table 0.85, a severity word alone 0.75.
// The weakest hop bounds it: a route is as well evidenced as its least evidenced hop.
import { findEdge, type TenantGraph } from '../graph/model.js';
import type { EdgeType, WeightBasis } from '../graph/vocabulary.js';

export const EVIDENCE_WEIGHT: Readonly<Record<WeightBasis, number>> = {
  kev: 1,
  epss: 1,
  runtime: 1,
  cvss: 0.9,
  heuristic: 0.85,
  severity: 0.75,
};

/** The label thresholds: `high` from 0.8, `medium` from 0.5, else `low`. */
export const CONFIDENCE_HIGH = 0.8;
export const CONFIDENCE_MEDIUM = 0.5;

export type ConfidenceLabel = 'high' | 'medium' | 'low';

export interface ConfidenceHop {
  weightBasis: WeightBasis;
  /** the identity join's confidence when the hop was stitched by inference; 1 otherwise */
  joinConfidence: number;
}

export interface PathConfidence {
  confidence: number;
  label: ConfidenceLabel;
}

export function confidenceLabel(confidence: number): ConfidenceLabel {
  return confidence >= CONFIDENCE_HIGH ? 'high' : confidence >= CONFIDENCE_MEDIUM ? 'medium' : 'low';
}

/** A direct-access path (no hops) rests on the target's own reported configuration: confidence 1. */
export function pathConfidence(hops: readonly ConfidenceHop[]): PathConfidence {
  let joins = 1;
  let weakest = 1;
  for (const hop of hops) {
    joins *= Math.min(1, Math.max(0, hop.joinConfidence));
    weakest = Math.min(weakest, EVIDENCE_WEIGHT[hop.weightBasis]);
  }
  const confidence = Number((joins * weakest).toPrecision(12));
  return { confidence, label: confidenceLabel(confidence) };
}

/**
 * The join confidence a hop of the tenant graph rests on: its own (an edge stitched by an inferred join),
 * times, for a hop into a workload, the join that says which image it runs (the hop's price is that image's
 * CVEs, src/analysis/workload-price.ts): the most confident of its `DEPENDS_ON` joins. A hop whose edge is no
 * longer in the graph (a resolved path's) counts as reported (1).
 */
export function hopJoinConfidence(
  graph: TenantGraph | undefined,
  step: { type: EdgeType; from: string; to: string },
): number {
  if (!graph || !graph.hasNode(step.from) || !graph.hasNode(step.to)) return 1;
  const key = findEdge(graph, step.type, step.from, step.to);
  if (key === undefined) return 1;
  let confidence: number = graph.getEdgeAttribute(key, 'joinConfidence') ?? 1;
  if (graph.getNodeAttribute(step.to, 'label') === 'Service') {
    let image: number | undefined;
    graph.forEachOutEdge(step.to, (_key, attrs, _source, _target, _sa, targetAttrs) => {
      if (attrs.type === 'DEPENDS_ON' && targetAttrs.label === 'Image')
        image = Math.max(image ?? 0, attrs.joinConfidence ?? 1);
    });
    if (image !== undefined) confidence *= image;
  }
  return confidence;
}
