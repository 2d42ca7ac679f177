// Validation verdicts (spec "Validation verdict"): what a red team or a breach-and-attack simulation found
// when it tried an attack path. `confirmed` (the route worked end to end), `partial` (part of it held),
// `refuted` (it did not work), `missed` (a route that worked and that the service did not report: it names
// the route, not a path id). Each verdict on a path captures the path's predicted score, priority and the
// weight bases of its hops at the moment it is recorded, so calibration compares the prediction that was
// made with what happened, not today's score.
import { randomBytes } from 'node:crypto';
import type { WeightBasis } from '../graph/vocabulary.js';
import type { DocumentStore } from './store.js';

export const OUTCOMES = ['confirmed', 'refuted', 'partial', 'missed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface Prediction {
  score: number;
  priority: string;
  directAccess: boolean;
  hops: number;
  /** each weight basis priced on at least one hop of the route */
  weightBases: WeightBasis[];
}

export interface Verdict {
  id: string;
  /** null for a `missed` route (the service reported no path for it) */
  pathId: string | null;
  outcome: Outcome;
  source: string;
  evidence: string | null;
  /** the route as the tester describes it (node names, start first); for `missed`, required */
  route: string[] | null;
  /** what the service predicted for the path when the verdict was recorded (null for `missed`) */
  predicted: Prediction | null;
  /** an imported result whose hops were given: whether they are the hops of the matched path */
  hopsMatched?: boolean;
  /** the import this verdict came from (POST /validations/import) */
  importId?: string;
  /**
   * The detection axis (spec "Calibration"): whether the defenders' controls detected (alerted on or
   * blocked) the attempt, as the red team or BAS tool reports it; absent when not reported.
   */
  detected?: boolean;
  recordedAt: string;
  recordedBy: string;
}

/** The observed outcome as a number for scoring: confirmed 1, partial 0.5, refuted 0. */
export function outcomeValue(outcome: Outcome): number | null {
  return outcome === 'confirmed' ? 1 : outcome === 'partial' ? 0.5 : outcome === 'refuted' ? 0 : null;
}

export interface ValidationMetrics {
  /** distinct paths with a verdict (their latest), plus distinct missed routes */
  tested: number;
  confirmed: number;
  partial: number;
  refuted: number;
  missed: number;
  /** (confirmed + ½ partial) / (confirmed + partial + refuted): of the tested paths, how many were real */
  precision: number | null;
  /** (confirmed + ½ partial) / (confirmed + partial + missed): of the real routes found, how many were reported */
  recall: number | null;
}

/**
 * The verdicts that count: the latest verdict of each path (a retest supersedes the earlier one), and each
 * missed route once (by its node names).
 */
export function latestVerdicts(verdicts: readonly Verdict[]): Verdict[] {
  const byKey = new Map<string, Verdict>();
  for (const v of verdicts) {
    const key = v.pathId ?? `missed:${(v.route ?? []).map((n) => n.toLowerCase()).join('>')}`;
    const held = byKey.get(key);
    if (!held || held.recordedAt <= v.recordedAt) byKey.set(key, v);
  }
  return [...byKey.values()];
}

/** Precision and recall over the tested subset (spec: aggregate `metrics`); never scoped. */
export function validationMetrics(verdicts: readonly Verdict[]): ValidationMetrics {
  const counts = { confirmed: 0, partial: 0, refuted: 0, missed: 0 };
  const latest = latestVerdicts(verdicts);
  for (const v of latest) counts[v.outcome]++;
  const hits = counts.confirmed + counts.partial / 2;
  const reported = counts.confirmed + counts.partial + counts.refuted;
  const real = counts.confirmed + counts.partial + counts.missed;
  return {
    tested: latest.length,
    ...counts,
    precision: reported ? hits / reported : null,
    recall: real ? hits / real : null,
  };
}

export class VerdictLedger {
  constructor(private readonly documents: DocumentStore<Verdict>) {}

  list(tenant: string): Verdict[] {
    return this.documents.load(tenant);
  }

  /** Brings the ledger up to date with the stored one (another replica's writes), before a read. */
  refresh(tenant: string): Promise<void> {
    return this.documents.refresh(tenant);
  }

  /** Appends verdicts in one write: an import is stored whole or not at all. */
  async add(tenant: string, verdicts: readonly Omit<Verdict, 'id'>[]): Promise<Verdict[]> {
    const made = verdicts.map((v) => ({ id: `vd-${randomBytes(8).toString('hex')}`, ...v }));
    await this.documents.mutate(tenant, (current) => ({ next: [...current, ...made], result: undefined }));
    return made;
  }
}
