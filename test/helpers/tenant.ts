// A tenant on its own and what an analyzer pass over it needs, as the engine and analysis tests build them.
import type { PathFinder } from '../../src/analysis/path-finder.js';
import type { AnalyzerConfig } from '../../src/engine/analyzer.js';
import { TenantState } from '../../src/engine/tenant.js';
import { silentLog } from '../../src/log/logger.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';

/** A tenant with a silent log; parked edges wait `parkedTtlMs`; P1 from 0.5, P2 from 0.1 unless given. */
export function testTenant(
  options: { parkedTtlMs?: number; thresholds?: { p1: number; p2: number } } = {},
): TenantState {
  return new TenantState('t', {
    log: silentLog(),
    parkedTtlMs: options.parkedTtlMs ?? 1e12,
    thresholds: options.thresholds ?? { p1: 0.5, p2: 0.1 },
  });
}

/** runPass's dependencies: no GRAPH_TTL, the IAM-user lens off unless given, the caller's clock. */
export function passDeps(
  finder: PathFinder,
  now: () => number,
  config: Partial<AnalyzerConfig> = {},
): { finder: PathFinder; metrics: Metrics; config: AnalyzerConfig; now: () => number } {
  return {
    finder,
    metrics: createMetrics(),
    config: { seedIamUsers: false, graphTtlMs: null, ...config },
    now,
  };
}
