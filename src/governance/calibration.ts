// Calibration (spec "Calibration"): how well the predicted path scores match what red teams and
// breach-and-attack simulations observed, and a cross-validated isotonic recalibration map. Computed over the latest verdict of each tested path (a retest
// supersedes), each with the score captured when it was recorded. Outcomes score confirmed 1, partial ½,
// refuted 0; missed routes have no prediction and only feed the `structural` diagnosis. Deliberately not
// scoped to a caller's applications (spec, API auth item 8): it judges the model, not an estate.
import { WEIGHT_BASES, type WeightBasis } from '../graph/vocabulary.js';
import { latestVerdicts, outcomeValue, type Verdict } from './validations.js';

export const BIN_COUNT = 10;
/** Predictions are clipped this far from 0 and 1 for log loss (a direct-access path predicts 1). */
export const LOG_LOSS_EPSILON = 1e-15;
/** Above this expected calibration error, or a per-basis gap of this size, the model needs recalibrating. */
export const GAP_THRESHOLD = 0.1;

export const DIAGNOSES = [
  'recalibrate-first',
  'structural',
  'detection-axis',
  'per-basis',
  'low-resolution',
  'inverted-order',
] as const;
export type Diagnosis = (typeof DIAGNOSES)[number];

export interface ReliabilityRow {
  count: number;
  meanPredicted: number | null;
  observedRate: number | null;
  /** observedRate - meanPredicted: positive when the model under-predicts */
  gap: number | null;
  brier: number | null;
}

export interface CalibrationReport {
  /** verdicts with a prediction (the latest of each path) */
  scored: number;
  /** distinct missed routes */
  missed: number;
  brier: number | null;
  logLoss: number | null;
  /** expected calibration error over BIN_COUNT equal-width bins */
  ece: number | null;
  bins: (ReliabilityRow & { from: number; to: number })[];
  byWeightBasis: (ReliabilityRow & { basis: WeightBasis })[];
  /** by path structure: direct access, 1 hop, 2 hops, 3 or more hops */
  byStructure: (ReliabilityRow & { segment: string })[];
  /**
   * The detection axis: verdicts whose attempt the defenders detected, and those they did not (verdicts that
   * do not say are in neither); segments with no verdict are left out.
   */
  byDetection: (ReliabilityRow & { segment: 'detected' | 'undetected' })[];
  /**
   * Recalibration map: isotonic regression (pool adjacent violators) of outcomes on predicted scores, as
   * steps over the predicted range; empty with fewer than MIN_RECALIBRATION scored verdicts.
   */
  recalibration: { from: number; to: number; calibrated: number; count: number }[];
  /** Brier score of the map's predictions in k-fold cross-validation (each fold mapped by a fit on the others) */
  recalibratedBrier: number | null;
  diagnosis: Diagnosis | null;
  diagnosisDetail: string;
}

/** Fewest verdicts on each side of the detection axis before it can be the diagnosis. */
export const MIN_DETECTION_SAMPLES = 2;

/** Fewest scored verdicts for a recalibration map; cross-validation uses up to five folds. */
export const MIN_RECALIBRATION = 4;
const MAX_FOLDS = 5;

interface Block {
  from: number;
  to: number;
  sum: number;
  count: number;
}

/** Isotonic (non-decreasing) fit of y on p by pooling adjacent violators. */
export function isotonicFit(points: readonly { p: number; y: number }[]): Block[] {
  const sorted = [...points].sort((a, b) => a.p - b.p || a.y - b.y);
  const blocks: Block[] = [];
  for (const { p, y } of sorted) {
    blocks.push({ from: p, to: p, sum: y, count: 1 });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1];
      const before = blocks[blocks.length - 2];
      if (before.sum / before.count <= last.sum / last.count) break;
      blocks.splice(-2, 2, {
        from: before.from,
        to: last.to,
        sum: before.sum + last.sum,
        count: before.count + last.count,
      });
    }
  }
  return blocks;
}

/** The fit's value at p: the block holding p, else the last block starting at or below it (else the first). */
export function mapScore(blocks: readonly Block[], p: number): number {
  let chosen = blocks[0];
  for (const b of blocks) if (b.from <= p) chosen = b;
  return chosen.sum / chosen.count;
}

function crossValidatedBrier(samples: readonly Sample[]): number | null {
  if (samples.length < MIN_RECALIBRATION) return null;
  const folds = Math.min(MAX_FOLDS, samples.length);
  // Folds interleaved along the score, so each holds the whole range.
  const sorted = [...samples].sort((a, b) => a.p - b.p);
  let sq = 0;
  for (let k = 0; k < folds; k++) {
    const fit = isotonicFit(sorted.filter((_, i) => i % folds !== k));
    sorted.forEach((s, i) => {
      if (i % folds === k) sq += (mapScore(fit, s.p) - s.y) ** 2;
    });
  }
  return sq / sorted.length;
}

interface Sample {
  p: number;
  y: number;
  detected?: boolean;
  bases: readonly WeightBasis[];
  hops: number;
  direct: boolean;
}

function row(samples: readonly Sample[]): ReliabilityRow {
  if (!samples.length) return { count: 0, meanPredicted: null, observedRate: null, gap: null, brier: null };
  let p = 0;
  let y = 0;
  let sq = 0;
  for (const s of samples) {
    p += s.p;
    y += s.y;
    sq += (s.p - s.y) ** 2;
  }
  const n = samples.length;
  return { count: n, meanPredicted: p / n, observedRate: y / n, gap: (y - p) / n, brier: sq / n };
}

function logLossOf(samples: readonly Sample[]): number {
  let sum = 0;
  for (const s of samples) {
    const p = Math.min(1 - LOG_LOSS_EPSILON, Math.max(LOG_LOSS_EPSILON, s.p));
    sum -= s.y * Math.log(p) + (1 - s.y) * Math.log(1 - p);
  }
  return sum / samples.length;
}

export function binOf(p: number): number {
  return Math.min(BIN_COUNT - 1, Math.max(0, Math.floor(p * BIN_COUNT)));
}

export function calibrate(verdicts: readonly Verdict[]): CalibrationReport {
  const latest = latestVerdicts(verdicts);
  const samples: Sample[] = [];
  let missed = 0;
  for (const v of latest) {
    const y = outcomeValue(v.outcome);
    if (y === null) {
      missed++;
      continue;
    }
    if (!v.predicted) continue;
    samples.push({
      p: v.predicted.score,
      y,
      bases: v.predicted.weightBases,
      hops: v.predicted.hops,
      direct: v.predicted.directAccess,
      ...(v.detected !== undefined && { detected: v.detected }),
    });
  }
  const binned: Sample[][] = Array.from({ length: BIN_COUNT }, () => []);
  for (const s of samples) binned[binOf(s.p)].push(s);
  const bins = binned.map((members, i) => ({
    from: i / BIN_COUNT,
    to: (i + 1) / BIN_COUNT,
    ...row(members),
  }));
  const n = samples.length;
  const ece = n
    ? bins.reduce((sum, b) => sum + (b.count && b.gap !== null ? (b.count / n) * Math.abs(b.gap) : 0), 0)
    : null;
  const byWeightBasis = WEIGHT_BASES.map((basis) => ({
    basis,
    ...row(samples.filter((s) => s.bases.includes(basis))),
  })).filter((r) => r.count > 0);
  const segments: [string, (s: Sample) => boolean][] = [
    ['direct-access', (s) => s.direct],
    ['1-hop', (s) => !s.direct && s.hops === 1],
    ['2-hops', (s) => !s.direct && s.hops === 2],
    ['3+-hops', (s) => !s.direct && s.hops >= 3],
  ];
  const byStructure = segments
    .map(([segment, test]) => ({ segment, ...row(samples.filter(test)) }))
    .filter((r) => r.count > 0);
  const byDetection = (['detected', 'undetected'] as const)
    .map((segment) => ({
      segment,
      ...row(samples.filter((s) => s.detected === (segment === 'detected'))),
    }))
    .filter((r) => r.count > 0);
  const overall = row(samples);
  const report: CalibrationReport = {
    scored: n,
    missed,
    brier: overall.brier,
    logLoss: n ? logLossOf(samples) : null,
    ece,
    bins,
    byWeightBasis,
    byStructure,
    byDetection,
    recalibration:
      n >= MIN_RECALIBRATION
        ? isotonicFit(samples).map((b) => ({
            from: b.from,
            to: b.to,
            calibrated: b.sum / b.count,
            count: b.count,
          }))
        : [],
    recalibratedBrier: crossValidatedBrier(samples),
    diagnosis: null,
    diagnosisDetail: '',
  };
  Object.assign(report, diagnose(samples, report));
  return report;
}

/**
 * One diagnosis, the first that applies in this order: the order of the scores is wrong
 * (`inverted-order`); real routes are missing from the graph (`structural`); the scores cannot be told
 * apart (`low-resolution`); what decided the outcomes is detection, which the scores do not price
 * (`detection-axis`: detected and undetected attempts err in opposite directions, each by more than
 * GAP_THRESHOLD over at least MIN_DETECTION_SAMPLES verdicts); bases err in opposite directions
 * (`per-basis`); the scores are off as a whole (`recalibrate-first`).
 */
function diagnose(
  samples: readonly Sample[],
  report: CalibrationReport,
): Pick<CalibrationReport, 'diagnosis' | 'diagnosisDetail'> {
  const worked = samples.filter((s) => s.y === 1);
  const failed = samples.filter((s) => s.y === 0);
  const mean = (list: readonly Sample[]) => list.reduce((sum, s) => sum + s.p, 0) / list.length;
  if (worked.length && failed.length && mean(worked) <= mean(failed))
    return {
      diagnosis: 'inverted-order',
      diagnosisDetail: `refuted paths were predicted ${mean(failed).toFixed(3)} on average, confirmed ones ${mean(worked).toFixed(3)}: the scores rank the wrong way`,
    };
  const found = samples.filter((s) => s.y > 0).length;
  if (report.missed > found)
    return {
      diagnosis: 'structural',
      diagnosisDetail: `${report.missed} working route(s) were missed against ${found} reported: the graph lacks edges, which no recalibration fixes`,
    };
  if (!samples.length) return { diagnosis: null, diagnosisDetail: 'no verdict carries a prediction yet' };
  if (samples.length >= 2 && report.bins.filter((b) => b.count > 0).length === 1)
    return {
      diagnosis: 'low-resolution',
      diagnosisDetail: 'every tested path falls in one score bin: the scores do not tell paths apart',
    };
  const detected = report.byDetection.find((r) => r.segment === 'detected');
  const undetected = report.byDetection.find((r) => r.segment === 'undetected');
  if (
    detected &&
    undetected &&
    detected.count >= MIN_DETECTION_SAMPLES &&
    undetected.count >= MIN_DETECTION_SAMPLES &&
    detected.gap! < -GAP_THRESHOLD &&
    undetected.gap! > GAP_THRESHOLD
  )
    return {
      diagnosis: 'detection-axis',
      diagnosisDetail: `detected attempts succeeded ${(-detected.gap!).toFixed(2)} less often than predicted, undetected ones ${undetected.gap!.toFixed(2)} more often: detection decides the outcome, which the scores do not price; score runtime detection (Falco) rather than recalibrate the whole`,
    };
  const gaps = report.byWeightBasis.filter((r) => r.count >= 2 && Math.abs(r.gap!) > GAP_THRESHOLD);
  if (gaps.some((r) => r.gap! > 0) && gaps.some((r) => r.gap! < 0))
    return {
      diagnosis: 'per-basis',
      diagnosisDetail: `weight bases err in opposite directions (${gaps.map((r) => `${r.basis} ${r.gap! > 0 ? '+' : ''}${r.gap!.toFixed(2)}`).join(', ')}): recalibrate each basis`,
    };
  if (report.ece !== null && report.ece > GAP_THRESHOLD)
    return {
      diagnosis: 'recalibrate-first',
      diagnosisDetail: `expected calibration error ${report.ece.toFixed(3)} with the order right: a monotone recalibration comes first`,
    };
  return {
    diagnosis: null,
    diagnosisDetail: `calibrated within ${GAP_THRESHOLD} over ${samples.length} tested path(s)`,
  };
}
