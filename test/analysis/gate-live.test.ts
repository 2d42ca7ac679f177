// The gate on the live compiled graph (src/gate/evaluate.ts beforeAndAfter): a pull request's report is
// laid over a fork of the tenant's live compiled graph instead of a compile of the whole estate, also while
// writes the analyzer has not seen yet are pending; the answer is the one a fresh compile gives.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LiveGraph } from '../../src/analysis/live-graph.js';
import { createPathFinder } from '../../src/analysis/path-finder.js';
import { runPass } from '../../src/engine/analyzer.js';
import { TenantState } from '../../src/engine/tenant.js';
import { evaluateGate, type GateDeps } from '../../src/gate/evaluate.js';
import { createSources } from '../../src/ingest/sources/index.js';
import { silentLog } from '../../src/log/logger.js';
import { envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { passDeps } from '../helpers/tenant.js';

const finder = createPathFinder({ threads: 1 });
afterAll(() => finder.close());
afterEach(() => vi.restoreAllMocks());

const thresholds = { p1: 0.5, p2: 0.1 };
const deps: GateDeps = {
  sources: createSources({ seedIamUsers: false }),
  finder,
  thresholds,
  seedIamUsers: false,
  now: () => 1_000_000,
};

async function analysedEstate(): Promise<TenantState> {
  const tenant = new TenantState('t', { log: silentLog(), parkedTtlMs: 1e12, thresholds });
  // The running image's own scan first (one LOW CVE), then the estate that runs it.
  const scan = deps.sources.get('trivy')!.normalize({
    body: trivyReport([LOW_CVE]),
    query: {},
    receivedAt: new Date(1000).toISOString(),
  });
  for (const part of scan.envelopes) tenant.writer.apply(part, 1000);
  tenant.writer.apply(gateEstate(), 1000);
  await runPass(
    tenant,
    passDeps(finder, () => 1_000_000),
  );
  return tenant;
}

const gate = (tenant: TenantState, vulnerabilities: Record<string, unknown>[]) =>
  evaluateGate(
    tenant,
    { tenant: 't', body: trivyReport(vulnerabilities), query: { source: 'trivy' }, attribution: 'report' },
    deps,
  );

/** The same call the old way: as if no pass had run, so both sides are compiled afresh. */
async function compiledAfresh(tenant: TenantState, vulnerabilities: Record<string, unknown>[]) {
  const kept = tenant.lastSearch;
  tenant.lastSearch = null;
  try {
    return await gate(tenant, vulnerabilities);
  } finally {
    tenant.lastSearch = kept;
  }
}

describe('gate on the live compiled graph', () => {
  it('answers from a patched fork of the live graph what a fresh compile answers', async () => {
    const tenant = await analysedEstate();
    const fork = vi.spyOn(LiveGraph.prototype, 'fork');
    const blocked = await gate(tenant, [LOW_CVE, KEV_CVE]);
    expect(fork).toHaveBeenCalledTimes(1);
    expect(blocked.verdict).toBe('blocked');
    expect(blocked).toEqual(await compiledAfresh(tenant, [LOW_CVE, KEV_CVE]));
    const clean = await gate(tenant, [LOW_CVE]);
    expect(clean.verdict).toBe('clean');
    expect(clean).toEqual(await compiledAfresh(tenant, [LOW_CVE]));
  });

  it('lays the writes the analyzer has not seen yet under the change ("before" and "after" both patched)', async () => {
    const tenant = await analysedEstate();
    // Ingest goes on: a new start reaches the database, not analysed yet.
    const lb = node('LoadBalancer', 'new-alb', { internet_exposed: true });
    tenant.writer.apply(
      envelope(
        [lb],
        [{ type: 'ROUTES_TO', from: lb.id, to: node('Service', 'checkout').id, exploit_probability: 0.9 }],
      ),
      2000,
    );
    expect(tenant.stale).toBe(true);
    const fork = vi.spyOn(LiveGraph.prototype, 'fork');
    const result = await gate(tenant, [LOW_CVE, KEV_CVE]);
    expect(fork).toHaveBeenCalledTimes(2);
    expect(result).toEqual(await compiledAfresh(tenant, [LOW_CVE, KEV_CVE]));
    // The pending writes are still the analyzer's to take.
    expect(tenant.writer.changes.peek()?.nodes.has(lb.id)).toBe(true);
  });
});
