// Uncertainty views of a path: values computed by hand, the invariant score <= mixtureScore <=
// scoreUpperBound on random routes, and the credible interval against sampling the posteriors.
import { describe, expect, it } from 'vitest';
import { attackerProfiles, parseProfilePriors } from '../../src/analysis/attacker-profiles.js';
import { digamma, pathUncertainty, trigamma, type Hop } from '../../src/analysis/uncertainty.js';
import type { WeightBasis } from '../../src/graph/vocabulary.js';
import { random } from './small-estate.js';

const BASES: WeightBasis[] = ['kev', 'epss', 'runtime', 'cvss', 'severity', 'heuristic'];

describe('path uncertainty', () => {
  it('two hops by hand: ceiling, correlated hops, posterior mean, profiles and mixture', () => {
    const hops: Hop[] = [
      { probability: 0.9, weightBasis: 'heuristic', type: 'CONNECTS_TO' },
      { probability: 0.5, weightBasis: 'heuristic', type: 'CONNECTS_TO' },
    ];
    const u = pathUncertainty(hops);
    expect(u.scoreUpperBound).toBe(0.5);
    expect(u.correlatedHops).toBe(2);
    // heuristic prior Beta(1,1), weight 3: posteriors Beta(3.7, 1.3) and Beta(2.5, 2.5).
    expect(u.posteriorMean).toBeCloseTo((3.7 / 5) * 0.5, 12);
    const score = 0.45;
    const commodity = 0.9 * score + 0.1 * 0.5;
    const criminal = 0.6 * score + 0.4 * 0.5;
    const apt = 0.2 * score + 0.8 * 0.5;
    expect(u.profileScores.map((p) => p.score)).toEqual(
      [commodity, criminal, apt].map((x) => expect.closeTo(x, 12)),
    );
    expect(u.mixtureScore).toBeCloseTo(0.6 * commodity + 0.3 * criminal + 0.1 * apt, 12);
    expect(u.scoreCiLow).toBeLessThan(u.posteriorMean);
    expect(u.scoreCiHigh).toBeGreaterThan(u.posteriorMean);
  });

  it('a direct-access path is certain', () => {
    expect(pathUncertainty([])).toMatchObject({
      scoreUpperBound: 1,
      correlatedHops: 0,
      scoreCiLow: 1,
      scoreCiHigh: 1,
      posteriorMean: 1,
      mixtureScore: 1,
    });
  });

  it('keeps score <= mixtureScore <= scoreUpperBound on random routes, for any priors', () => {
    const rand = random(11);
    for (let i = 0; i < 2000; i++) {
      const hops: Hop[] = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => ({
        probability: rand(),
        weightBasis: BASES[Math.floor(rand() * BASES.length)],
        type: rand() < 0.5 ? 'CONNECTS_TO' : 'ASSUMES',
      }));
      const priors = { commodity: rand(), criminal: rand(), apt: rand() + 1e-9 };
      const u = pathUncertainty(hops, { profiles: attackerProfiles(priors) });
      const score = hops.reduce((s, h) => s * h.probability, 1);
      expect(u.mixtureScore).toBeGreaterThanOrEqual(score);
      expect(u.mixtureScore).toBeLessThanOrEqual(u.scoreUpperBound);
      expect(u.scoreCiLow).toBeLessThanOrEqual(u.scoreCiHigh);
    }
  });

  it('digamma and trigamma match known values', () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649015329, 10);
    expect(digamma(0.5)).toBeCloseTo(-1.9635100260214235, 10);
    expect(trigamma(1)).toBeCloseTo(Math.PI ** 2 / 6, 10);
    expect(trigamma(0.5)).toBeCloseTo(Math.PI ** 2 / 2, 10);
  });

  it('the 90 % interval covers about 90 % of sampled route outcomes', () => {
    // Sample the hop posteriors (Beta via two gamma draws, Marsaglia–Tsang) and read the quantiles.
    const rand = random(5);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const gamma = (shape: number): number => {
      if (shape < 1) return gamma(shape + 1) * rand() ** (1 / shape);
      const d = shape - 1 / 3;
      const c = 1 / Math.sqrt(9 * d);
      for (;;) {
        const x = normal();
        const v = (1 + c * x) ** 3;
        if (v > 0 && Math.log(1 - rand()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
      }
    };
    const hops: Hop[] = [
      { probability: 0.8, weightBasis: 'cvss', type: 'ROUTES_TO' },
      { probability: 0.6, weightBasis: 'heuristic', type: 'ASSUMES' },
      { probability: 0.9, weightBasis: 'kev', type: 'EXPLOITS' },
    ];
    const u = pathUncertainty(hops);
    const draws: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      let product = 1;
      for (const hop of hops) {
        const a = { cvss: [1, 1, 8], heuristic: [1, 1, 3], kev: [9, 1, 40] }[hop.weightBasis as 'cvss']!;
        const x = gamma(a[0] + a[2] * hop.probability);
        const y = gamma(a[1] + a[2] * (1 - hop.probability));
        product *= x / (x + y);
      }
      draws.push(product);
    }
    const inside = draws.filter((d) => d >= u.scoreCiLow && d <= u.scoreCiHigh).length / draws.length;
    expect(inside).toBeGreaterThan(0.86);
    expect(inside).toBeLessThan(0.94);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeCloseTo(u.posteriorMean, 2);
  });

  it('parses ATTACKER_PROFILE_PRIORS and names what is wrong', () => {
    expect(parseProfilePriors('commodity=2, apt=1')).toEqual({ commodity: 2, criminal: 0, apt: 1 });
    expect(() => parseProfilePriors('hacker=1')).toThrow(/unknown attacker profile "hacker"/);
    expect(() => parseProfilePriors('apt=-1')).toThrow(/not profile=weight/);
    expect(() => parseProfilePriors('apt=0')).toThrow(/positive weight/);
    expect(() => parseProfilePriors('apt=1,apt=2')).toThrow(/twice/);
  });
});
