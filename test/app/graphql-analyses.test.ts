// The analyses through the real API listener: the demo estate's remediation plan (verified, closing every
// critical route), k-shortest routes, a seeded risk simulation, uncertainty fields, a what-if on a two-route
// estate with answers computed by hand, history across a restart, and the heavy-analysis limits (20 per
// request, 429 at capacity, service_api_heavy_refused_total).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildApiServer } from '../../app/api-server.js';
import { loadDemo } from '../../app/service.js';
import { AnalysisService } from '../../src/analysis/analysis-service.js';
import { TrustedProxies } from '../../src/auth/client-ip.js';
import { Lockout } from '../../src/auth/rate-limit.js';
import { loadSettings } from '../../src/config/settings.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

describe('analyses on the demo estate', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await makeService();
    expect(await loadDemo(svc)).toBe(true);
    await svc.settle();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  it('the remediation plan closes every critical route, each item verified', async () => {
    const { attackPaths, posture, remediationPlan } = await svc.graphql(`{
      posture { criticalPaths }
      attackPaths { id critical }
      remediationPlan {
        rank title kind coveragePct pathIds
        verification { verified pathsEliminated riskReductionPct expectedReduction }
        cut { from { name } to { name } type probability }
        node { name }
        fix { id kind pathId }
      }
    }`);
    const critical = attackPaths
      .filter((p: { critical: boolean }) => p.critical)
      .map((p: { id: string }) => p.id);
    expect(critical).toHaveLength(posture.criticalPaths);
    expect(critical.length).toBeGreaterThanOrEqual(2);
    const closed = new Set(remediationPlan.flatMap((item: { pathIds: string[] }) => item.pathIds));
    for (const id of critical) expect(closed).toContain(id);
    for (const item of remediationPlan) {
      expect(item.verification.verified).toBe(true);
      expect(item.verification.riskReductionPct).toBeGreaterThan(0);
    }
    expect(remediationPlan.at(-1).coveragePct).toBeCloseTo(100, 9);
    // The public bucket is one change: its public access block (direct access, score 1).
    const block = remediationPlan.find((i: { kind: string }) => i.kind === 'block-public-access');
    expect(block).toMatchObject({
      title: 'Block public access to acme-customer-exports',
      node: { name: 'acme-customer-exports' },
      cut: null,
      verification: { pathsEliminated: 1, expectedReduction: 1 },
    });
    for (const item of remediationPlan.filter((i: { kind: string }) => i.kind === 'cut-edge'))
      expect(item.cut).toMatchObject({ from: { name: expect.any(String) }, type: expect.any(String) });
    // The title filter keeps matching items only.
    const { remediationPlan: filtered } = await svc.graphql(
      '{ remediationPlan(title: "PUBLIC ACCESS") { title } }',
    );
    expect(filtered).toEqual([{ title: 'Block public access to acme-customer-exports' }]);
  });

  it('kShortestPaths: the best route first, by name or id, scores falling', async () => {
    const { attackPaths } = await svc.graphql(
      '{ attackPaths(target: "shop/stripe-api-key") { id score target { id } nodes { name } } }',
    );
    const best = attackPaths[0];
    const { kShortestPaths } = await svc.graphql(
      `{ kShortestPaths(target: "SHOP/STRIPE-API-KEY", k: 4) { rank pathId score nodes { name } steps { type } } }`,
    );
    expect(kShortestPaths[0]).toMatchObject({ rank: 1, pathId: best.id, nodes: best.nodes });
    expect(kShortestPaths[0].score).toBeCloseTo(best.score, 12);
    const scores = kShortestPaths.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const byId = await svc.graphql(`{ kShortestPaths(target: "${best.target.id}", k: 4) { score } }`);
    expect(byId.kShortestPaths.map((r: { score: number }) => r.score)).toEqual(scores);
    await expect(svc.graphql('{ kShortestPaths(target: "no-such-node", k: 2) { score } }')).rejects.toThrow(
      /names no crown jewel/,
    );
    await expect(
      svc.graphql('{ kShortestPaths(target: "shop/stripe-api-key", k: 0) { score } }'),
    ).rejects.toThrow(/k must be from 1 to 100/);
  });

  it('riskSimulation is reproducible per seed; uncertainty fields keep score <= mixture <= ceiling', async () => {
    const query = (seed: number) =>
      `{ riskSimulation(iterations: 3000, seed: ${seed}) { iterations seed anyCompromiseProbability expectedCompromised mixtureCompromiseProbability profileCompromise { profile weight anyCompromiseProbability } crownJewels { name compromiseProbability ciLow ciHigh } } }`;
    const a = await svc.graphql(query(5));
    const b = await svc.graphql(query(5));
    expect(b).toEqual(a);
    const sim = a.riskSimulation;
    // The public bucket is compromised in every world.
    expect(sim.anyCompromiseProbability).toBe(1);
    expect(
      sim.crownJewels.find((j: { name: string }) => j.name === 'acme-customer-exports').compromiseProbability,
    ).toBe(1);
    expect(sim.profileCompromise.map((p: { profile: string }) => p.profile)).toEqual([
      'commodity',
      'criminal',
      'apt',
    ]);
    for (const jewel of sim.crownJewels) {
      expect(jewel.ciLow).toBeLessThanOrEqual(jewel.compromiseProbability);
      expect(jewel.ciHigh).toBeGreaterThanOrEqual(jewel.compromiseProbability);
    }
    await expect(svc.graphql('{ riskSimulation(iterations: 0) { iterations } }')).rejects.toThrow(
      /iterations must be/,
    );

    const { attackPaths } = await svc.graphql(
      '{ attackPaths { score scoreUpperBound correlatedHops scoreCiLow scoreCiHigh posteriorMean mixtureScore profileScores { profile weight score } steps { probability } } }',
    );
    for (const p of attackPaths) {
      expect(p.mixtureScore).toBeGreaterThanOrEqual(p.score - 1e-15);
      expect(p.mixtureScore).toBeLessThanOrEqual(p.scoreUpperBound + 1e-15);
      const ceiling = Math.min(1, ...p.steps.map((s: { probability: number }) => s.probability));
      expect(p.scoreUpperBound).toBe(ceiling);
      expect(p.profileScores).toHaveLength(3);
    }
  });

  it('leaves suppressed paths out of the plan (they are not critical)', async () => {
    const { attackPaths } = await svc.graphql('{ attackPaths { id critical directAccess } }');
    const routed = attackPaths.find(
      (p: { critical: boolean; directAccess: boolean }) => p.critical && !p.directAccess,
    );
    const made = await svc.apiApp.inject({
      method: 'POST',
      url: '/suppressions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pathId: routed.id, reason: 'accept-risk', owner: 'sec-team', ttlDays: 30 }),
    });
    expect(made.statusCode, made.body).toBeLessThan(300);
    const { remediationPlan } = await svc.graphql('{ remediationPlan { kind pathIds } }');
    expect(remediationPlan.flatMap((i: { pathIds: string[] }) => i.pathIds)).not.toContain(routed.id);
    expect(remediationPlan.map((i: { kind: string }) => i.kind)).toEqual(['block-public-access']);
  });
});

// web → app → db (0.9 × 0.8 = 0.72) and web → batch → db (0.5 × 0.6 = 0.3); P(db) = 1 − 0.28 × 0.7 = 0.804.
const web = node('LoadBalancer', 'web', { internet_exposed: true });
const app = node('Service', 'app');
const batch = node('Service', 'batch');
const db = node('Database', 'db', { crown_jewel: true });
const twoRoutes = envelope(
  [web, app, batch, db],
  [
    edge('ROUTES_TO', web, app, 0.9),
    edge('CONNECTS_TO', app, db, 0.8),
    edge('ROUTES_TO', web, batch, 0.5),
    edge('CONNECTS_TO', batch, db, 0.6),
  ],
);

describe('whatIf, history and the heavy limits on a two-route estate', () => {
  it('what-if by hand: cutting app → db leaves 0.3; cutting both closes the path', async () => {
    const svc = await makeService();
    try {
      expect((await svc.ingest(twoRoutes)).status).toBe(202);
      await svc.settle();
      const one =
        await svc.graphql(`{ whatIf(cuts: [{ from: "app", to: "db", type: "CONNECTS_TO" }], iterations: 100000, seed: 2) {
        removedEdges repricedEdges riskReduction expectedReduction
        beforeRisk { anyCompromiseProbability } afterRisk { anyCompromiseProbability ciLow ciHigh }
        closedPaths { id } remainingPaths { id scoreBefore scoreAfter nodes { name } } } }`);
      const w = one.whatIf;
      expect(w.removedEdges).toBe(1);
      expect(w.closedPaths).toEqual([]);
      expect(w.remainingPaths[0].scoreBefore).toBeCloseTo(0.72, 12);
      expect(w.remainingPaths[0].scoreAfter).toBeCloseTo(0.3, 12);
      expect(w.remainingPaths[0].nodes.map((n: { name: string }) => n.name)).toEqual(['web', 'batch', 'db']);
      expect(w.beforeRisk.anyCompromiseProbability).toBeCloseTo(0.804, 2);
      expect(w.afterRisk.anyCompromiseProbability).toBeCloseTo(0.3, 2);
      expect(w.afterRisk.ciLow).toBeLessThan(0.3);
      expect(w.afterRisk.ciHigh).toBeGreaterThan(0.3);
      expect(w.riskReduction).toBeCloseTo(0.504, 2);
      const { attackPaths } = await svc.graphql('{ attackPaths { id } }');
      const both = await svc.graphql(
        '{ whatIf(cuts: [{ from: "app", to: "db" }, { from: "batch", to: "db" }]) { removedEdges afterRisk { anyCompromiseProbability } closedPaths { id scoreAfter nodes { name } } remainingPaths { id } } }',
      );
      expect(both.whatIf).toEqual({
        removedEdges: 2,
        afterRisk: { anyCompromiseProbability: 0 },
        closedPaths: [
          {
            id: attackPaths[0].id,
            scoreAfter: null,
            nodes: [{ name: 'web' }, { name: 'app' }, { name: 'db' }],
          },
        ],
        remainingPaths: [],
      });
      // The live paths are untouched.
      expect((await svc.graphql('{ attackPaths { id } }')).attackPaths).toEqual(attackPaths);
      await expect(
        svc.graphql('{ whatIf(cuts: [{ from: "nowhere", to: "db" }]) { removedEdges } }'),
      ).rejects.toThrow(/cuts\[0\]\.from: no node has id or name \\"nowhere\\"/);
    } finally {
      await svc.dispose();
    }
  });

  it('history counts, MTTR and a trend point per pass, kept across a restart', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const svc = await makeService({}, { now: () => now });
    const dataDir = svc.dataDir;
    expect((await svc.ingest(twoRoutes)).status).toBe(202);
    await svc.settle();
    now += 60_000;
    // The app → db hop repriced to 0: the pass finds web → batch → db instead (same pair, still open).
    expect((await svc.ingest(envelope([app, db], [edge('CONNECTS_TO', app, db, 0)]))).status).toBe(202);
    await svc.settle();
    now += 60_000;
    expect((await svc.ingest(envelope([batch, db], [edge('CONNECTS_TO', batch, db, 0)]))).status).toBe(202);
    await svc.settle();
    const query =
      '{ history { openPaths resolvedPaths mttrSeconds oldestOpenSince trend { at criticalPaths riskPct } } }';
    const { history } = await svc.graphql(query);
    expect(history).toMatchObject({
      openPaths: 0,
      resolvedPaths: 1,
      mttrSeconds: 120,
      oldestOpenSince: null,
    });
    expect(history.trend.map((t: { at: string; criticalPaths: number }) => [t.at, t.criticalPaths])).toEqual([
      ['2026-01-01T00:00:00.000Z', 1],
      ['2026-01-01T00:01:00.000Z', 0],
      ['2026-01-01T00:02:00.000Z', 0],
    ]);
    expect(history.trend[0].riskPct).toBeCloseTo(72, 9);
    expect(history.trend[1].riskPct).toBeCloseTo(30, 9);
    expect(history.trend[2].riskPct).toBe(0);
    await svc.dispose({ keepData: true });
    const again = await makeService({}, { dataDir, now: () => now });
    try {
      expect((await again.graphql(query)).history).toEqual(history);
    } finally {
      await again.dispose();
    }
  });

  it('more than 20 heavy analyses in one GraphQL request: the remaining heavy fields answer with an error, at the default alias limit', async () => {
    // No GRAPHQL_MAX_ALIASES raised: 21 aliased heavy fields pass the default limit of 15.
    const svc = await makeService();
    try {
      expect((await svc.ingest(twoRoutes)).status).toBe(202);
      await svc.settle();
      const fields = Array.from(
        { length: 21 },
        (_, i) => `k${i}: kShortestPaths(target: "db", k: 1) { score }`,
      );
      const response = await svc.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ query: `{ ${fields.join(' ')} history { openPaths } }` }),
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      const answered = Object.entries(body.data).filter(([k, v]) => k.startsWith('k') && v !== null);
      expect(answered).toHaveLength(20);
      expect(body.data.history).toEqual({ openPaths: 1 });
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].message).toMatch(/at most 20 heavy analyses .* per request; this is number 21/);
      const metrics = await svc.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/service_api_heavy_refused_total\{reason="request"\} 1/);
    } finally {
      await svc.dispose();
    }
  });

  it('the alias limit still protects: 16 aliases of a light field, or aliases inside heavy fields, are refused with a 400', async () => {
    const svc = await makeService();
    try {
      expect((await svc.ingest(twoRoutes)).status).toBe(202);
      await svc.settle();
      const post = (query: string) =>
        svc.apiApp.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ query }),
        });
      const light = Array.from({ length: 16 }, (_, i) => `h${i}: history { openPaths }`);
      const refused = await post(`{ ${light.join(' ')} }`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ limit: 'GRAPHQL_MAX_ALIASES', max: 15, actual: 16 });
      // A heavy field's own alias is the heavy cap's to count; aliases in its selection are not.
      const inner = Array.from({ length: 16 }, (_, i) => `s${i}: score`);
      const nested = await post(`{ k: kShortestPaths(target: "db", k: 1) { ${inner.join(' ')} } }`);
      expect(nested.statusCode).toBe(400);
      expect(nested.json()).toMatchObject({ limit: 'GRAPHQL_MAX_ALIASES', max: 15, actual: 16 });
      // Fifteen light aliases still answer.
      const fifteen = await post(`{ ${light.slice(0, 15).join(' ')} }`);
      expect(fifteen.statusCode).toBe(200);
    } finally {
      await svc.dispose();
    }
  });

  it('answers 429 problem+json when every analysis slot and queue place is taken', async () => {
    const svc = await makeService({ GRAPHQL_MAX_ALIASES: '30' });
    const settings = loadSettings({ DATA_DIR: svc.dataDir });
    const api = buildApiServer({
      engine: svc.engine,
      metrics: svc.metrics,
      logger: pino({ level: 'silent' }),
      auth: settings.auth,
      lockout: new Lockout({ threshold: 10, windowMs: 60_000, lockMs: 60_000 }),
      trusted: new TrustedProxies([]),
      dataDir: svc.dataDir,
      governance: svc.governance,
      analyses: new AnalysisService({ seedIamUsers: false, slots: 1, queue: 1 }, svc.metrics),
    });
    try {
      expect((await svc.ingest(twoRoutes)).status).toBe(202);
      await svc.settle();
      // One runs, one waits, the third finds no place.
      const response = await api.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          query:
            '{ a: riskSimulation { iterations } b: riskSimulation { iterations } c: riskSimulation { iterations } }',
        }),
      });
      expect(response.statusCode).toBe(429);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toMatchObject({ status: 429, limit: 'heavy-analyses' });
      const metrics = await svc.apiApp.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(/service_api_heavy_refused_total\{reason="busy"\} 1/);
      // Two at a time fit.
      const ok = await api.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ query: '{ a: riskSimulation { iterations } b: riskSimulation { seed } }' }),
      });
      expect(ok.json()).toEqual({ data: { a: { iterations: 1000 }, b: { seed: 1 } } });
    } finally {
      await api.close();
      await svc.dispose();
    }
  });

  it('a plan item carries the generated fix for the hop it cuts, which POST /remediation/pr recognizes', async () => {
    const svc = await makeService();
    try {
      const lb = node('LoadBalancer', 'shop-lb', { internet_exposed: true });
      const checkout = node('Service', 'checkout');
      const img = node('Image', 'acme/checkout:1.0');
      const repo = node('Repository', 'github.com/acme/checkout', { repo_slug: 'acme/checkout' });
      const lodash = node('Library', 'pkg:npm/lodash@4.17.20', {
        package: 'lodash',
        ecosystem: 'npm',
        version: '4.17.20',
      });
      const cve = node('CVE', 'CVE-2021-23337', { cvss_score: 9.8 });
      const secret = node('Secret', 'shop/payments-key', { crown_jewel: true });
      const report = envelope(
        [lb, checkout, img, repo, lodash, cve, secret],
        [
          edge('ROUTES_TO', lb, checkout),
          edge('DEPENDS_ON', checkout, img),
          edge('BUILT_FROM', img, repo),
          edge('DEPENDS_ON', img, lodash),
          { ...edge('AFFECTS', cve, lodash), properties: { fixed_version: '4.17.21' } },
          { ...edge('AFFECTS', cve, img) },
          edge('HAS_PERMISSION', checkout, secret, 0.95),
        ],
      );
      expect((await svc.ingest(report)).status).toBe(202);
      await svc.settle();
      const { remediationPlan } = await svc.graphql(
        '{ remediationPlan { title cut { from { name } to { name } type } fix { id pathId kind repo } pathIds verification { verified } } }',
      );
      const withFix = remediationPlan.find((item: { fix: unknown }) => item.fix);
      expect(withFix).toMatchObject({
        title: 'Upgrade lodash to 4.17.21 (CVE-2021-23337)',
        cut: { from: { name: 'shop-lb' }, to: { name: 'checkout' }, type: 'ROUTES_TO' },
        fix: { kind: 'upgrade-dependency', repo: 'acme/checkout' },
        verification: { verified: true },
      });
      expect(withFix.pathIds).toContain(withFix.fix.pathId);
      // The route knows the fix: without a forge it is 503 (no forge configured), never 404 (no such fix).
      const r = await svc.apiApp.inject({
        method: 'POST',
        url: '/remediation/pr',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ pathId: withFix.fix.pathId, fix: withFix.fix.id }),
      });
      expect(r.statusCode, r.body).toBe(503);
    } finally {
      await svc.dispose();
    }
  });
});
