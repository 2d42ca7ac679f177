// The engine's analyzer loop (engine-analyzer.ts): what a pass waits for, and what it hands the path log.
import { afterAll, describe, expect, it } from 'vitest';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { createEngineAnalyzer } from '../../src/engine/engine-analyzer.js';
import type { TenantState } from '../../src/engine/tenant.js';
import { silentLog } from '../../src/log/logger.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { testTenant } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const app = node('Service', 'checkout');
const db = node('Database', 'orders-db', { crown_jewel: true });

/** A tenant whose graph holds one route, load balancer to database, of score 0.45. */
function tenantWithPath(): TenantState {
  const tenant = testTenant();
  tenant.writer.apply(
    envelope([lb, app, db], [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.5)]),
    1_000_000,
  );
  return tenant;
}

function loop(tenant: TenantState, beforePass: () => Promise<void>) {
  const logged: object[][] = [];
  const analyzer = createEngineAnalyzer({
    tenants: new Map([[tenant.name, tenant]]),
    config: { seedIamUsers: false, graphTtlMs: null, analyzerIntervalMs: 1000 },
    now: () => 1_000_000,
    finder,
    pathLog: { append: async (_tenant, records) => logged.push([...records]) },
    pathSharing: { sync: async () => undefined, passChanged: async () => undefined },
    ingestWorkers: { beforePass, warm: async () => undefined },
    search: { afterPass: async () => undefined, invalidate: () => undefined },
    afterPass: () => undefined,
    bus: { lastSeq: () => 0 },
    running: () => false,
    metrics: createMetrics(),
    log: silentLog(),
  });
  return { analyzer, logged };
}

/** `promise`, or a rejection naming `what` after two seconds. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within 2 s`)), 2000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('engine analyzer', () => {
  it('runs a pass while an idle ingest worker is still being stopped, and logs its new paths', async () => {
    const tenant = tenantWithPath();
    let released = false;
    let stopWorker!: () => void;
    const stopping = new Promise<void>((resolve) => (stopWorker = resolve));
    const { analyzer, logged } = loop(tenant, () => stopping.then(() => void (released = true)));
    await within(analyzer.analyzeAll({ force: true }), 'the pass');
    expect(released).toBe(false);
    expect(tenant.stale).toBe(false);
    expect(tenant.paths.open().map((p) => p.score)).toEqual([0.45]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toHaveLength(1);
    expect(tenant.paths.hasChanges()).toBe(false);
    stopWorker();
    await stopping;
  });

  it('a worker that fails to stop does not fail the pass', async () => {
    const tenant = tenantWithPath();
    const { analyzer } = loop(tenant, async () => {
      throw new Error('terminate failed');
    });
    await within(analyzer.analyzeAll({ force: true }), 'the pass');
    expect(tenant.paths.open()).toHaveLength(1);
  });
});
