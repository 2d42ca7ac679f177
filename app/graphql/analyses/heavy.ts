// How a heavy analysis field (riskSimulation, whatIf, remediationPlan, kShortestPaths) is let in and run: its
// arguments checked, its count against MAX_HEAVY_PER_REQUEST, the refusal for credentials scoped to
// applications, and a turn in the service's slots (src/analysis/analysis-service.ts). Shared by every
// resolver of ../analyses.ts and the AttackPath fields that read the service's profiles.
import { AnalysisService, MAX_HEAVY_PER_REQUEST } from '../../../src/analysis/analysis-service.js';
import type { CompiledGraph } from '../../../src/analysis/compiled-graph.js';
import { MAX_ITERATIONS } from '../../../src/analysis/risk-simulation.js';
import type { Engine } from '../../../src/engine/engine.js';
import type { TenantState } from '../../../src/engine/tenant.js';
import { ProblemError } from '../../../src/http/problems.js';
import type { GraphqlContext } from '../resolvers.js';

/** The fields that count as heavy analyses (app/graphql/limits.ts prices them). */
export const HEAVY_FIELDS = ['riskSimulation', 'whatIf', 'remediationPlan', 'kShortestPaths'] as const;

export type Context = GraphqlContext & { heavyUsed?: number };

// Engines built without a service (tests that build the API listener alone) get the defaults.
const fallbacks = new WeakMap<Engine, AnalysisService>();
export function service(ctx: Context): AnalysisService {
  if (ctx.analyses) return ctx.analyses;
  let s = fallbacks.get(ctx.engine);
  if (!s) fallbacks.set(ctx.engine, (s = new AnalysisService({ seedIamUsers: false })));
  return s;
}

export function invalid(detail: string): never {
  throw new ProblemError('invalid-query', detail);
}

export function checkIterations(iterations: number): void {
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    invalid(`iterations must be from 1 to ${MAX_ITERATIONS}, got ${iterations}`);
}

/** Counts a heavy field and runs it in a slot; over the request's cap the field answers with an error. */
export async function heavy<T>(
  ctx: Context,
  field: string,
  task: (state: TenantState, g: CompiledGraph, signal: AbortSignal) => T | Promise<T>,
) {
  const analyses = service(ctx);
  ctx.heavyUsed = (ctx.heavyUsed ?? 0) + 1;
  if (ctx.heavyUsed > MAX_HEAVY_PER_REQUEST) {
    analyses.refusedOverRequestCap();
    throw new Error(
      `${field}: at most ${MAX_HEAVY_PER_REQUEST} heavy analyses (${HEAVY_FIELDS.join(', ')}) per request; this is number ${ctx.heavyUsed}`,
    );
  }
  if (ctx.principal.apps)
    throw new ProblemError(
      'forbidden',
      `${field} reads the whole estate; a credential scoped to applications may not run it`,
    );
  const state = ctx.engine.tenant(ctx.tenant);
  if (!state) return null;
  // Fair turns per tenant; stopped (worker and all) when the client goes away or ANALYSIS_DEADLINE passes.
  return analyses.run((signal) => task(state, analyses.compiled(state), signal), {
    tenant: ctx.tenant,
    signal: ctx.signal,
  });
}
