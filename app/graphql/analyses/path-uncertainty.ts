// AttackPath's uncertainty and confidence fields (scoreUpperBound, scoreCiLow, mixtureScore, confidence, ...):
// the route's uncertainty under the service's attacker profiles, cached per route, and its confidence from the
// tenant graph's hops. The AttackPath resolvers of ../analyses.ts read them.
import {
  hopJoinConfidence,
  pathConfidence,
  type PathConfidence,
} from '../../../src/analysis/path-confidence.js';
import { pathUncertainty, type PathUncertainty } from '../../../src/analysis/uncertainty.js';
import { routeSteps, type PathRecord } from '../../../src/paths/path-store.js';
import { service, type Context } from './heavy.js';

// Uncertainty views are computed from a record's route once per route (routes change only in passes).
const uncertainties = new WeakMap<object, { profiles: unknown; u: PathUncertainty }>();
export function uncertainty(record: PathRecord, ctx: Context): PathUncertainty {
  const profiles = service(ctx).profiles;
  const cached = uncertainties.get(record.route);
  if (cached && cached.profiles === profiles) return cached.u;
  const u = pathUncertainty(
    routeSteps(record).map((s) => ({ probability: s.probability, weightBasis: s.weightBasis, type: s.type })),
    { profiles },
  );
  uncertainties.set(record.route, { profiles, u });
  return u;
}

/**
 * The path's confidence from its hops' join confidence (read from the tenant graph: a hop whose edge is gone,
 * as on a resolved path, counts as reported) and evidence (src/analysis/path-confidence.ts).
 */
export function confidenceOf(record: PathRecord, ctx: Context): PathConfidence {
  const graph = ctx.engine.tenant(ctx.tenant)?.graph;
  return pathConfidence(
    routeSteps(record).map((s) => ({
      weightBasis: s.weightBasis,
      joinConfidence: hopJoinConfidence(graph, s),
    })),
  );
}
