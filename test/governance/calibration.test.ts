// The calibration diagnoses on small verdict sets, each with its twin that must not be diagnosed so.
import { describe, expect, it } from 'vitest';
import { calibrate, isotonicFit, mapScore } from '../../src/governance/calibration.js';
import type { Outcome, Verdict } from '../../src/governance/validations.js';
import type { WeightBasis } from '../../src/graph/vocabulary.js';

let n = 0;
function v(score: number | null, outcome: Outcome, bases: WeightBasis[] = ['heuristic']): Verdict {
  n++;
  return {
    id: `vd-${n}`,
    pathId: score === null ? null : `ap-${String(n).padStart(16, '0')}`,
    outcome,
    source: 'test',
    evidence: null,
    route: score === null ? ['a', `b${n}`] : null,
    predicted:
      score === null ? null : { score, priority: 'P2', directAccess: false, hops: 2, weightBases: bases },
    recordedAt: '2026-11-20T00:00:00.000Z',
    recordedBy: 'test',
  };
}

describe('calibration diagnosis', () => {
  it('inverted-order when refuted paths were predicted likelier than confirmed ones; not when the order is right', () => {
    expect(calibrate([v(0.2, 'confirmed'), v(0.8, 'refuted')]).diagnosis).toBe('inverted-order');
    expect(calibrate([v(0.8, 'confirmed'), v(0.2, 'refuted')]).diagnosis).not.toBe('inverted-order');
  });

  it('structural when more working routes were missed than found; not with fewer misses', () => {
    expect(calibrate([v(0.7, 'confirmed'), v(null, 'missed'), v(null, 'missed')]).diagnosis).toBe(
      'structural',
    );
    expect(calibrate([v(0.7, 'confirmed'), v(0.6, 'confirmed'), v(null, 'missed')]).diagnosis).not.toBe(
      'structural',
    );
  });

  it('low-resolution when every tested score falls in one bin; not when they spread', () => {
    expect(calibrate([v(0.44, 'confirmed'), v(0.41, 'refuted'), v(0.43, 'refuted')]).diagnosis).toBe(
      'low-resolution',
    );
    expect(calibrate([v(0.91, 'confirmed'), v(0.44, 'refuted'), v(0.03, 'refuted')]).diagnosis).not.toBe(
      'low-resolution',
    );
  });

  it('per-basis when bases err in opposite directions; not when they agree', () => {
    const split = calibrate([
      v(0.3, 'confirmed', ['cvss']),
      v(0.3, 'confirmed', ['cvss']),
      v(0.02, 'refuted', ['cvss']),
      v(0.95, 'confirmed', ['runtime']),
      v(0.95, 'confirmed', ['runtime']),
      v(0.9, 'refuted', ['runtime']),
      v(0.9, 'refuted', ['runtime']),
    ]);
    expect(split.byWeightBasis.map((r) => [r.basis, Math.sign(r.gap!)])).toEqual([
      ['runtime', -1],
      ['cvss', 1],
    ]);
    expect(split.diagnosis).toBe('per-basis');
    const same = calibrate([
      v(0.2, 'confirmed', ['cvss']),
      v(0.3, 'confirmed', ['cvss']),
      v(0.6, 'confirmed', ['runtime']),
      v(0.7, 'confirmed', ['runtime']),
      v(0.05, 'refuted', ['cvss']),
    ]);
    expect(same.diagnosis).not.toBe('per-basis');
  });

  it('detection-axis when detected attempts failed and undetected ones worked beyond the prediction; not without the split', () => {
    const seen = (verdict: Verdict, detected: boolean): Verdict => ({ ...verdict, detected });
    const axis = calibrate([
      seen(v(0.5, 'refuted'), true),
      seen(v(0.5, 'refuted'), true),
      seen(v(0.6, 'confirmed'), false),
      seen(v(0.6, 'confirmed'), false),
    ]);
    expect(axis.byDetection.map((r) => [r.segment, r.count, r.gap])).toEqual([
      ['detected', 2, -0.5],
      ['undetected', 2, 0.4],
    ]);
    expect(axis.diagnosis).toBe('detection-axis');
    expect(axis.diagnosisDetail).toMatch(/detection decides the outcome/);
    // The same outcomes with no detection reported: off as a whole, a recalibration.
    const unsaid = calibrate([
      v(0.5, 'refuted'),
      v(0.5, 'refuted'),
      v(0.6, 'confirmed'),
      v(0.6, 'confirmed'),
    ]);
    expect(unsaid.byDetection).toEqual([]);
    expect(unsaid.diagnosis).toBe('recalibrate-first');
    // Detection reported, but it does not split the error: both sides err the same way.
    const mixed = calibrate([
      seen(v(0.5, 'refuted'), true),
      seen(v(0.6, 'confirmed'), true),
      seen(v(0.5, 'refuted'), false),
      seen(v(0.6, 'confirmed'), false),
    ]);
    expect(mixed.diagnosis).not.toBe('detection-axis');
  });

  it('no diagnosis when calibrated within the threshold; nothing to say without predictions', () => {
    const fine = calibrate([v(0.95, 'confirmed'), v(0.05, 'refuted'), v(0.52, 'partial')]);
    expect(fine.ece).toBeCloseTo((0.05 + 0.05 + 0.02) / 3, 12);
    expect(fine.diagnosis).toBeNull();
    const empty = calibrate([]);
    expect(empty).toMatchObject({ scored: 0, brier: null, logLoss: null, ece: null, diagnosis: null });
  });

  it('log loss stays finite for a direct-access path (predicted 1) that was refuted', () => {
    const c = calibrate([v(1, 'refuted')]);
    expect(Number.isFinite(c.logLoss)).toBe(true);
    expect(c.logLoss).toBeCloseTo(-Math.log(1e-15), 1);
  });

  it('the recalibration map is non-decreasing (pooled violators) and maps a score to its step', () => {
    const fit = isotonicFit([
      { p: 0.1, y: 1 },
      { p: 0.2, y: 0 },
      { p: 0.5, y: 0 },
      { p: 0.7, y: 1 },
      { p: 0.9, y: 1 },
    ]);
    // 0.1 (1) > 0.2 (0): pooled to ½; then 0.5 (0) < ½: pooled to ⅓; then 1, 1 in order.
    expect(fit.map((b) => [b.from, b.to, b.sum / b.count])).toEqual([
      [0.1, 0.5, 1 / 3],
      [0.7, 0.7, 1],
      [0.9, 0.9, 1],
    ]);
    expect(mapScore(fit, 0.05)).toBe(1 / 3);
    expect(mapScore(fit, 0.6)).toBe(1 / 3);
    expect(mapScore(fit, 0.95)).toBe(1);
    expect(calibrate([v(0.5, 'confirmed'), v(0.2, 'refuted')]).recalibration).toEqual([]);
  });
});
