// Uncertainty views of one attack path (spec "Attack path"): the baseline score assumes every hop is its own
// chance; these say how far that can be off.
// - scoreUpperBound: the Fréchet ceiling. Whatever the dependence between hops, P(all hops) <= the weakest
//   hop's p; it is reached when one shared cause decides every hop.
// - correlatedHops: hops that share their edge type and basis with another hop of the route (the same kind of
//   weakness, priced from the same kind of evidence), where the independence assumption is weakest.
// - scoreCiLow / scoreCiHigh, posteriorMean: each hop's true p is uncertain. Per basis, a Beta prior and a
//   weight (how many observations the estimate counts for): the hop's posterior is
//   Beta(alpha + w·p, beta + w·(1 − p)). The route's success is the product of independent hop draws; its
//   mean is the product of the posterior means, and its 90 % credible interval comes from matching a normal
//   to the log of the product (E[ln X] = ψ(a) − ψ(a+b), Var[ln X] = ψ1(a) − ψ1(a+b) per hop, summed).
// - profileScores, mixtureScore: attacker-profiles.ts.
// docs/model.md documents the priors and profiles.
import type { WeightBasis } from '../graph/vocabulary.js';
import { attackerProfiles, type AttackerProfile, type ProfileName } from './attacker-profiles.js';

export interface BasisPrior {
  alpha: number;
  beta: number;
  /** Pseudo-observations the hop's own estimate counts for. */
  weight: number;
}

/** Observed evidence counts for more than estimates; a heuristic table value counts for little. */
export const BASIS_PRIORS: Readonly<Record<WeightBasis, BasisPrior>> = {
  kev: { alpha: 9, beta: 1, weight: 40 },
  epss: { alpha: 1, beta: 1, weight: 30 },
  runtime: { alpha: 8, beta: 2, weight: 30 },
  cvss: { alpha: 1, beta: 1, weight: 8 },
  severity: { alpha: 1, beta: 1, weight: 5 },
  heuristic: { alpha: 1, beta: 1, weight: 3 },
};

/** z of the 5 % and 95 % points of a normal: a two-sided 90 % interval. */
const Z90 = 1.6448536269514722;

export interface Hop {
  probability: number;
  weightBasis: WeightBasis;
  /** Edge type; hops of the same type and basis count as correlated. */
  type: string;
}

export interface PathUncertainty {
  scoreUpperBound: number;
  correlatedHops: number;
  scoreCiLow: number;
  scoreCiHigh: number;
  posteriorMean: number;
  mixtureScore: number;
  profileScores: { profile: ProfileName; weight: number; score: number }[];
}

/** ψ(x), digamma, for x > 0: recurrence up to x >= 10, then the asymptotic series. */
export function digamma(x: number): number {
  let result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return (
    result +
    Math.log(x) -
    0.5 / x -
    f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132)))))
  );
}

/** ψ1(x), trigamma, for x > 0. */
export function trigamma(x: number): number {
  let result = 0;
  while (x < 10) {
    result += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return result + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f * (1 / 30))));
}

/** The hop's posterior Beta parameters. */
export function hopPosterior(hop: Hop, priors = BASIS_PRIORS): { a: number; b: number } {
  const prior = priors[hop.weightBasis] ?? priors.heuristic;
  const p = Math.min(1, Math.max(0, hop.probability));
  return { a: prior.alpha + prior.weight * p, b: prior.beta + prior.weight * (1 - p) };
}

export function pathUncertainty(
  hops: readonly Hop[],
  options: { profiles?: AttackerProfile[]; priors?: Readonly<Record<WeightBasis, BasisPrior>> } = {},
): PathUncertainty {
  const profiles = options.profiles ?? attackerProfiles();
  const priors = options.priors ?? BASIS_PRIORS;
  // A direct-access path (no hops) is certain: score 1 everywhere.
  let score = 1;
  let ceiling = 1;
  let mean = 1;
  let mu = 0;
  let variance = 0;
  const kinds = new Map<string, number>();
  for (const hop of hops) {
    score *= hop.probability;
    ceiling = Math.min(ceiling, hop.probability);
    const { a, b } = hopPosterior(hop, priors);
    mean *= a / (a + b);
    mu += digamma(a) - digamma(a + b);
    variance += trigamma(a) - trigamma(a + b);
    const kind = `${hop.type}|${hop.weightBasis}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  let correlated = 0;
  for (const count of kinds.values()) if (count > 1) correlated += count;
  const sd = Math.sqrt(variance);
  const profileScores = profiles.map((p) => ({
    profile: p.name,
    weight: p.weight,
    score: (1 - p.correlation) * score + p.correlation * ceiling,
  }));
  // Sum of convex weights of values in [score, ceiling]; clamped against rounding.
  const mixture = profileScores.reduce((sum, p) => sum + p.weight * p.score, 0);
  return {
    scoreUpperBound: ceiling,
    correlatedHops: correlated,
    scoreCiLow: hops.length ? Math.min(1, Math.exp(mu - Z90 * sd)) : 1,
    scoreCiHigh: hops.length ? Math.min(1, Math.exp(mu + Z90 * sd)) : 1,
    posteriorMean: mean,
    mixtureScore: Math.min(ceiling, Math.max(score, mixture)),
    profileScores,
  };
}
