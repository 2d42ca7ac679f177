// Numbers as people read them, at the edge of the API: every Float field is rounded to 12 significant
// digits (products and sums of probabilities leak float noise: 0.44099999999999995, a coverage of
// 100.00000000000001, a probability of 1.0000000000000002), probabilities clamped to [0, 1], percentages to
// [0, 100], differences of probabilities to [-1, 1]. The engine keeps its exact values; only answers change.
import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLSchema } from 'graphql/index.js';

/** Significant digits kept: far below any estimate's precision, far above float noise (~1e-16). */
export const SIGNIFICANT_DIGITS = 12;

type Range = readonly [number, number] | null;

const PERCENT: Range = [0, 100];
const PROBABILITY: Range = [0, 1];
const DIFFERENCE: Range = [-1, 1];

/** Float fields that are not probabilities; every other Float field of the schema is one. */
const NOT_PROBABILITIES: Readonly<Record<string, Range>> = {
  'RemediationPlanItem.coveragePct': PERCENT,
  'PlanVerification.riskReductionPct': PERCENT,
  'TrendPoint.riskPct': PERCENT,
  'WhatIfResult.riskReduction': DIFFERENCE,
  'ReliabilityBin.gap': DIFFERENCE,
  'BasisCalibration.gap': DIFFERENCE,
  'StructureCalibration.gap': DIFFERENCE,
  'Calibration.logLoss': null,
  'AttackPath.logScore': null,
  'RankedRoute.logScore': null,
  'AnalyzerStatus.lastPassSeconds': null,
  'AnalyzerStatus.compileSeconds': null,
  'AnalyzerStatus.pathfindingSeconds': null,
  'History.mttrSeconds': null,
  'RiskSimulation.expectedCompromised': null,
  'ProfileCompromise.expectedCompromised': null,
  'RiskSummary.expectedCompromised': null,
  'WhatIfResult.expectedReduction': null,
  'PlanVerification.expectedReduction': null,
  'SearchHit.score': null,
};

/** The range a Float field is clamped to (null: rounded only). */
export function floatRange(type: string, field: string): Range {
  const key = `${type}.${field}`;
  return Object.hasOwn(NOT_PROBABILITIES, key) ? NOT_PROBABILITIES[key] : PROBABILITY;
}

/** One value as answered: rounded to 12 significant digits, then clamped to its range. */
export function presentFloat(value: unknown, range: Range): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  let shown = value === 0 ? 0 : Number(value.toPrecision(SIGNIFICANT_DIGITS));
  if (range) shown = Math.min(range[1], Math.max(range[0], shown));
  // -0 reads as 0.
  return shown === 0 ? 0 : shown;
}

/** Wraps the resolver of every Float field of the schema (lists of Floats included) with presentFloat. */
export function presentFloats(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (getNamedType(field.type).name !== 'Float') continue;
      const range = floatRange(type.name, field.name);
      const inner = field.resolve ?? defaultFieldResolver;
      const present = (value: unknown) =>
        Array.isArray(value) ? value.map((v) => presentFloat(v, range)) : presentFloat(value, range);
      field.resolve = (source, args, context, info) => {
        const value: unknown = inner(source, args, context, info);
        return value instanceof Promise ? value.then(present) : present(value);
      };
    }
  }
}
