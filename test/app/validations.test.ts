// Validation verdicts and calibration through the service: a breach-and-attack-simulation report
// (test/app/fixtures/bas-report.json, written from the spec's Validation verdict fields: a real BAS export
// is not available offline) imported and matched to paths by their ends and hop by hop; precision and
// recall over the tested subset; Brier score, log loss, expected calibration error and the reliability
// table checked against values computed by hand; the aggregates are the same for an app-scoped caller,
// whose writes and listings stay within its applications; bad input is a problem naming the value.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bas = JSON.parse(readFileSync(path.join(here, 'fixtures/bas-report.json'), 'utf8'));
const ADMIN = 'validate-admin-token-0123456789';
const VIEWER = 'validate-viewer-token-0123456789';
const OPS_ADMIN = 'validate-ops-admin-token-012345';
let service: TestService;
const ids: Record<string, string> = {};

/** Four routes from one load balancer; the open path ids by target name. */
async function estate(svc: TestService): Promise<Record<string, string>> {
  // Each scored as the product of two heuristic hops:
  // vault-db 0.9·0.9 = 0.81, logs-db 0.5·0.6 = 0.3, cache-db 0.2·0.6 = 0.12, archive-db 0.1·0.5 = 0.05.
  const lb = node('LoadBalancer', 'edge-lb', { internet_exposed: true });
  const route = (name: string, db: string, p1: number, p2: number, app: string) => {
    const a = node('Service', name, { app });
    const d = node('Database', db, { crown_jewel: true });
    return { nodes: [a, d], edges: [edge('ROUTES_TO', lb, a, p1), edge('CONNECTS_TO', a, d, p2)] };
  };
  const parts = [
    route('api-gw', 'vault-db', 0.9, 0.9, 'vault'),
    route('log-shipper', 'logs-db', 0.5, 0.6, 'ops'),
    route('worker', 'cache-db', 0.2, 0.6, 'ops'),
    route('archiver', 'archive-db', 0.1, 0.5, 'ops'),
  ];
  await svc.ingest(
    envelope(
      [lb, ...parts.flatMap((p) => p.nodes)],
      parts.flatMap((p) => p.edges),
    ),
  );
  await svc.settle();
  const state = svc.engine.tenant('default')!;
  const found: Record<string, string> = {};
  for (const p of state.paths.open()) found[state.graph.getNodeAttribute(p.targetId, 'name')] = p.id;
  return found;
}

beforeAll(async () => {
  service = await makeService({
    API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer,${OPS_ADMIN}:admin::2030-01-01:ops`,
  });
  Object.assign(ids, await estate(service));
});
afterAll(() => service.dispose());

async function call(method: 'GET' | 'POST', url: string, token: string, body?: unknown) {
  const r = await service.apiApp.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, json: r.json(), type: r.headers['content-type'] };
}

const CALIBRATION = `{ calibration { scored missed brierScore logLoss ece precision recall diagnosis diagnosisDetail
  recalibration { from to calibrated count } recalibratedBrier
  reliability { from to count meanPredicted observedRate gap }
  byWeightBasis { basis count meanPredicted observedRate brier }
  byStructure { segment count } } }`;

describe('validations and calibration', () => {
  it('imports a BAS report: matched by ends (any case) and hops; an unreported working route is a miss', async () => {
    const r = await call('POST', '/validations/import', ADMIN, bas);
    expect(r.status).toBe(201);
    expect(r.json.recorded).toBe(5);
    const byPath = new Map(r.json.verdicts.map((v: any) => [v.pathId, v]));
    expect(byPath.get(ids['vault-db'])).toMatchObject({
      outcome: 'confirmed',
      source: 'bas-2026-q4',
      hopsMatched: true,
      predicted: { score: 0.81, priority: 'P1', hops: 2, weightBases: ['heuristic'] },
    });
    expect(byPath.get(ids['cache-db'])).toMatchObject({ outcome: 'partial', hopsMatched: false });
    expect(byPath.get(ids['logs-db'])).toMatchObject({ outcome: 'refuted', predicted: { score: 0.3 } });
    expect(byPath.get(null)).toMatchObject({
      outcome: 'missed',
      route: ['edge-lb', 'hr-portal', 'hr-db'],
      predicted: null,
    });
    // A refutation of a route the service never reported has nothing to refute: named, not stored.
    expect(r.json.unmatched).toEqual([expect.objectContaining({ index: 5, pointer: '/results/5' })]);
  });

  it('GET /validations: the verdicts and precision / recall over the tested subset', async () => {
    const r = await call('GET', '/validations', VIEWER);
    expect(r.status).toBe(200);
    expect(r.json.verdicts).toHaveLength(5);
    // confirmed 1, partial 1 (counts ½), refuted 2, missed 1:
    // precision = (1 + ½) / (1 + 1 + 2) = 0.375; recall = (1 + ½) / (1 + 1 + 1) = 0.5
    expect(r.json.metrics).toMatchObject({ tested: 5, confirmed: 1, partial: 1, refuted: 2, missed: 1 });
    expect(r.json.metrics.precision).toBeCloseTo(0.375, 12);
    expect(r.json.metrics.recall).toBeCloseTo(0.5, 12);
  });

  it('calibration: Brier, log loss, ECE and the reliability table match the hand computation', async () => {
    const r = await call('POST', '/graphql', VIEWER, { query: CALIBRATION });
    const c = r.json.data.calibration;
    // (p, y): (0.81, 1), (0.3, 0), (0.12, 0.5), (0.05, 0)
    // Brier = (0.19² + 0.3² + 0.38² + 0.05²) / 4 = (0.0361 + 0.09 + 0.1444 + 0.0025) / 4 = 0.06825
    // log loss = -(ln 0.81 + ln 0.7 + ½ ln 0.12 + ½ ln 0.88 + ln 0.95) / 4
    //          = (0.210721 + 0.356675 + 1.060132 + 0.063917 + 0.051293) / 4 = 0.4356846
    // ECE: one path in each of bins 8, 3, 1, 0: (0.19 + 0.3 + 0.38 + 0.05) / 4 = 0.23
    expect(c.scored).toBe(4);
    expect(c.missed).toBe(1);
    expect(c.brierScore).toBeCloseTo(0.06825, 10);
    expect(c.logLoss).toBeCloseTo(0.4356846, 6);
    expect(c.ece).toBeCloseTo(0.23, 10);
    expect(c.precision).toBeCloseTo(0.375, 12);
    expect(c.recall).toBeCloseTo(0.5, 12);
    expect(c.reliability).toHaveLength(10);
    const filled = c.reliability.filter((b: any) => b.count > 0);
    expect(filled.map((b: any) => [b.from, b.count])).toEqual([
      [0, 1],
      [0.1, 1],
      [0.3, 1],
      [0.8, 1],
    ]);
    expect(filled[1].meanPredicted).toBeCloseTo(0.12, 12);
    expect(filled[1].observedRate).toBe(0.5);
    expect(filled[1].gap).toBeCloseTo(0.38, 12);
    expect(filled[3].gap).toBeCloseTo(0.19, 12);
    // Every hop is heuristic: its row is the whole set.
    expect(c.byWeightBasis).toHaveLength(1);
    expect(c.byWeightBasis[0]).toMatchObject({ basis: 'heuristic', count: 4, observedRate: 0.375 });
    expect(c.byWeightBasis[0].meanPredicted).toBeCloseTo((0.81 + 0.3 + 0.12 + 0.05) / 4, 12);
    expect(c.byWeightBasis[0].brier).toBeCloseTo(0.06825, 10);
    expect(c.byStructure).toEqual([{ segment: '2-hops', count: 4 }]);
    // The order is right (confirmed 0.81 above refuted 0.175 on average), misses fewer than finds, four
    // bins used, one basis: the scores are off as a whole.
    expect(c.diagnosis).toBe('recalibrate-first');
    // Isotonic fit over (0.05, 0) (0.12, ½) (0.3, 0) (0.81, 1): 0.12 and 0.3 pool to ¼.
    expect(c.recalibration).toEqual([
      { from: 0.05, to: 0.05, calibrated: 0, count: 1 },
      { from: 0.12, to: 0.3, calibrated: 0.25, count: 2 },
      { from: expect.closeTo(0.81, 12), to: expect.closeTo(0.81, 12), calibrated: 1, count: 1 },
    ]);
    // Four folds (leave one out): 0.05 → ¼ (err 0.0625), 0.12 → 0 (0.25), 0.3 → ½ (0.25), 0.81 → ¼ (0.5625):
    // (0.0625 + 0.25 + 0.25 + 0.5625) / 4 = 0.28125 — on four verdicts the map does not beat the raw scores.
    expect(c.recalibratedBrier).toBeCloseTo(0.28125, 12);
    expect(c.diagnosisDetail).toContain('0.230');
  });

  it('a retest supersedes the earlier verdict of the same path', async () => {
    const r = await call('POST', '/validations', ADMIN, {
      pathId: ids['logs-db'],
      outcome: 'confirmed',
      source: 'red-team',
      evidence: 'log4j JNDI lookup through log-shipper',
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ pathId: ids['logs-db'], outcome: 'confirmed', predicted: { score: 0.3 } });
    const m = (await call('GET', '/validations', VIEWER)).json.metrics;
    // confirmed 2, partial 1, refuted 1, missed 1: precision 2.5 / 4, recall 2.5 / 4
    expect(m).toMatchObject({ confirmed: 2, partial: 1, refuted: 1, missed: 1 });
    expect(m.precision).toBeCloseTo(0.625, 12);
    expect(m.recall).toBeCloseTo(0.625, 12);
  });

  it('an app-scoped admin writes and lists only its applications’ verdicts; the aggregates are not scoped', async () => {
    const other = await call('POST', '/validations', OPS_ADMIN, {
      pathId: ids['vault-db'],
      outcome: 'refuted',
      source: 'ops',
    });
    expect(other.status).toBe(404);
    const mine = await call('POST', '/validations', OPS_ADMIN, {
      pathId: ids['archive-db'],
      outcome: 'refuted',
      source: 'ops',
    });
    expect(mine.status).toBe(201);
    const missed = await call('POST', '/validations', OPS_ADMIN, {
      outcome: 'missed',
      source: 'ops',
      route: 'edge-lb -> x -> y',
    });
    expect(missed.status).toBe(403);
    const listed = await call('GET', '/validations', OPS_ADMIN);
    const visible = new Set([ids['logs-db'], ids['cache-db'], ids['archive-db']]);
    expect(listed.json.verdicts.every((v: any) => visible.has(v.pathId))).toBe(true);
    const everyone = await call('GET', '/validations', ADMIN);
    expect(listed.json.metrics).toEqual(everyone.json.metrics);
    const scopedCal = (await call('POST', '/graphql', OPS_ADMIN, { query: CALIBRATION })).json.data
      .calibration;
    const fullCal = (await call('POST', '/graphql', ADMIN, { query: CALIBRATION })).json.data.calibration;
    expect(scopedCal).toEqual(fullCal);
  });

  it('a viewer cannot record verdicts; bad input is a problem naming the value and stores nothing', async () => {
    const before = (await call('GET', '/validations', ADMIN)).json.verdicts.length;
    expect(
      (
        await call('POST', '/validations', VIEWER, {
          pathId: ids['vault-db'],
          outcome: 'confirmed',
          source: 'x',
        })
      ).status,
    ).toBe(403);
    expect((await call('POST', '/validations/import', VIEWER, bas)).status).toBe(403);
    const outcome = await call('POST', '/validations', ADMIN, {
      pathId: ids['vault-db'],
      outcome: 'maybe',
      source: 'x',
    });
    expect(outcome.status).toBe(400);
    expect(outcome.type).toContain('application/problem+json');
    expect(outcome.json.errors[0]).toMatchObject({ pointer: '/outcome', value: 'maybe' });
    const source = await call('POST', '/validations', ADMIN, {
      pathId: ids['vault-db'],
      outcome: 'confirmed',
    });
    expect(source.json.errors[0].pointer).toBe('/source');
    const unknown = await call('POST', '/validations', ADMIN, {
      pathId: 'ap-00000000000000ff',
      outcome: 'confirmed',
      source: 'x',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0].value).toBe('ap-00000000000000ff');
    const missedWithoutRoute = await call('POST', '/validations', ADMIN, { outcome: 'missed', source: 'x' });
    expect(missedWithoutRoute.status).toBe(400);
    expect(missedWithoutRoute.json.errors[0].pointer).toBe('/route');
    const badImport = await call('POST', '/validations/import', ADMIN, {
      source: 'bas',
      results: [
        { start: 'edge-lb', target: 'vault-db', outcome: 'confirmed' },
        { start: 'edge-lb', outcome: 'owned' },
      ],
    });
    expect(badImport.status).toBe(400);
    expect(badImport.json.errors.map((e: any) => e.pointer)).toContain('/results/1/outcome');
    expect((await call('GET', '/validations', ADMIN)).json.verdicts.length).toBe(before);
  });
});

describe('the detection axis (spec "Calibration")', () => {
  it('records whether the defenders detected an attempt, segments calibration by it and diagnoses detection-axis', async () => {
    const own = await makeService({ API_TOKENS: `${ADMIN}:admin` });
    try {
      const paths = await estate(own);
      const post = async (url: string, body: unknown) =>
        own.apiApp.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      // Detected attempts failed; the undetected ones worked, likelier than predicted.
      for (const [target, outcome] of [
        ['logs-db', 'refuted'],
        ['cache-db', 'refuted'],
      ] as const) {
        const r = await post('/validations', {
          pathId: paths[target],
          outcome,
          source: 'red team',
          detected: true,
        });
        expect(r.statusCode, r.body).toBe(201);
        expect(r.json()).toMatchObject({ detected: true });
      }
      const imported = await post('/validations/import', {
        source: 'bas',
        results: [
          { pathId: paths['vault-db'], outcome: 'confirmed', detected: false },
          { pathId: paths['archive-db'], outcome: 'confirmed', detected: false },
        ],
      });
      expect(imported.statusCode, imported.body).toBe(201);
      const query = '{ calibration { diagnosis diagnosisDetail byDetection { segment count gap } } }';
      const r = await own.apiApp.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ query }),
      });
      const c = r.json().data.calibration;
      expect(
        c.byDetection.map((row: { segment: string; count: number }) => [row.segment, row.count]),
      ).toEqual([
        ['detected', 2],
        ['undetected', 2],
      ]);
      expect(c.diagnosis).toBe('detection-axis');
      // A detected value that is not a boolean is refused, naming it.
      const bad = await post('/validations', {
        pathId: paths['vault-db'],
        outcome: 'confirmed',
        source: 'x',
        detected: 'yes',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('/detected');
    } finally {
      await own.dispose();
    }
  });
});
