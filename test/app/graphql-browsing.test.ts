// Issue 32 item 8 through the real API listener: attackPathsConnection (edges, pageInfo, totalCount) beside
// the deprecated attackPaths list, numbers without float noise and within their ranges, and a body that is
// not a GraphQL request answered as a 400 problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { presentFloat, floatRange } from '../../app/graphql/numbers.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

describe('attackPathsConnection on the demo estate', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await makeService();
    expect(await loadDemo(svc)).toBe(true);
    await svc.settle();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  it('pages the same listing as attackPaths, with cursors, pageInfo and totalCount', async () => {
    const { attackPaths } = await svc.graphql('{ attackPaths { id } }');
    expect(attackPaths.length).toBeGreaterThanOrEqual(4);
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { attackPathsConnection: page } = await svc.graphql(
        `query($after: String) { attackPathsConnection(first: 2, after: $after) {
           totalCount edges { cursor node { id score } } pageInfo { hasNextPage endCursor } } }`,
        { variables: { after } },
      );
      pages++;
      expect(page.totalCount).toBe(attackPaths.length);
      for (const e of page.edges) expect(e.cursor).toBe(e.node.id);
      ids.push(...page.edges.map((e: { node: { id: string } }) => e.node.id));
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.node.id ?? null);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(ids).toEqual(attackPaths.map((p: { id: string }) => p.id));
    expect(pages).toBe(Math.ceil(attackPaths.length / 2));
  });

  it('filters like attackPaths and counts the filtered listing; an empty page has no endCursor', async () => {
    const { attackPaths } = await svc.graphql('{ attackPaths(priority: P1) { id } }');
    const { attackPathsConnection: c } = await svc.graphql(
      '{ attackPathsConnection(priority: P1, first: 0) { totalCount edges { cursor } pageInfo { hasNextPage endCursor } } }',
    );
    expect(c).toEqual({
      totalCount: attackPaths.length,
      edges: [],
      pageInfo: { hasNextPage: attackPaths.length > 0, endCursor: null },
    });
  });

  it('is priced by its page: GRAPHQL_MAX_COST counts first (or 100) edges, not the whole listing', async () => {
    const tight = await makeService({ GRAPHQL_MAX_COST: '10' });
    try {
      await loadDemo(tight);
      await tight.settle();
      const actual = async (first: number) => {
        const response = await tight.apiApp.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({
            query: `{ attackPathsConnection(first: ${first}) { edges { cursor node { id } } } }`,
          }),
        });
        expect(response.json()).toMatchObject({ status: 400, limit: 'GRAPHQL_MAX_COST' });
        return response.json().actual as number;
      };
      // One for the connection, then per edge: the entry, its cursor, the node and its id.
      expect(await actual(3)).toBe(1 + 4 * 3);
      expect(await actual(4)).toBe(1 + 4 * 4);
      const { attackPathsConnection } = await tight.graphql(
        '{ attackPathsConnection(first: 2) { edges { cursor node { id } } } }',
      );
      expect(attackPathsConnection.edges).toHaveLength(2);
    } finally {
      await tight.dispose();
    }
  });

  it('marks attackPaths deprecated in introspection, with the replacement named', async () => {
    const { __type } = await svc.graphql(
      '{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }',
    );
    const listing = __type.fields.find((f: { name: string }) => f.name === 'attackPaths');
    expect(listing).toMatchObject({ isDeprecated: true });
    expect(listing.deprecationReason).toContain('attackPathsConnection');
  });
});

describe('numbers at the edge', () => {
  it('rounds float noise to 12 significant digits and clamps probabilities and percentages', () => {
    const p = floatRange('AttackPath', 'score');
    expect(presentFloat(0.6330800000000001, p)).toBe(0.63308);
    expect(presentFloat(1.0000000000000002, p)).toBe(1);
    expect(presentFloat(-1e-17, p)).toBe(0);
    expect(presentFloat(100.00000000000001, floatRange('RemediationPlanItem', 'coveragePct'))).toBe(100);
    expect(presentFloat(100.5, floatRange('TrendPoint', 'riskPct'))).toBe(100);
    // Not probabilities: rounded, never clamped.
    expect(presentFloat(-3.2188758248682006, floatRange('AttackPath', 'logScore'))).toBe(-3.21887582487);
    expect(presentFloat(1.5, floatRange('RiskSimulation', 'expectedCompromised'))).toBe(1.5);
    expect(presentFloat(-0.25, floatRange('WhatIfResult', 'riskReduction'))).toBe(-0.25);
    expect(presentFloat(1e-300, p)).toBe(1e-300);
  });

  it('answers a score of 0.9 × 0.7 × 0.7 as 0.441, not 0.44099999999999995', async () => {
    const svc = await makeService();
    try {
      const lb = node('LoadBalancer', 'lb', { internet_exposed: true });
      const app = node('Service', 'app');
      const pod = node('Service', 'app-backend');
      const db = node('Database', 'db', { crown_jewel: true });
      const answer = await svc.ingest(
        envelope(
          [lb, app, pod, db],
          [
            edge('ROUTES_TO', lb, app, 0.9),
            edge('CONNECTS_TO', app, pod, 0.7),
            edge('CONNECTS_TO', pod, db, 0.7),
          ],
        ),
      );
      expect(answer.status).toBe(202);
      await svc.settle();
      expect(0.9 * 0.7 * 0.7).toBe(0.44099999999999995);
      const { attackPaths } = await svc.graphql('{ attackPaths { score logScore steps { probability } } }');
      expect(attackPaths).toHaveLength(1);
      expect(attackPaths[0].score).toBe(0.441);
      expect(attackPaths[0].logScore).toBe(Number(Math.log(0.441).toPrecision(12)));
      expect(attackPaths[0].steps.map((s: { probability: number }) => s.probability)).toEqual([
        0.9, 0.7, 0.7,
      ]);
    } finally {
      await svc.dispose();
    }
  });
});

describe('a body that is not a GraphQL request', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await makeService();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  async function post(payload: string, contentType = 'application/json') {
    const response = await svc.apiApp.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': contentType },
      payload,
    });
    return {
      status: response.statusCode,
      type: String(response.headers['content-type']),
      json: response.json(),
    };
  }

  it.each([
    ['not JSON', 'hello', 'malformed-json', /not valid JSON/],
    ['a number as the query', '{"query": 5}', 'invalid-payload', /\/query must be a non-empty string/],
    ['an array', '[1]', 'invalid-payload', /the body must be a JSON object/],
    ['no query', '{"variables": {}}', 'invalid-payload', /\/query must be/],
    [
      'variables as a list',
      '{"query": "{ posture { openPaths } }", "variables": [1]}',
      'invalid-payload',
      /\/variables must be an object/,
    ],
    [
      'operationName as a number',
      '{"query": "{ posture { openPaths } }", "operationName": 3}',
      'invalid-payload',
      /\/operationName must be a string/,
    ],
  ])('%s: 400 problem+json naming what is wrong', async (_name, payload, code, detail) => {
    const answer = await post(payload);
    expect(answer.status).toBe(400);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({ type: `urn:pathgate:problem:${code}`, status: 400 });
    expect(answer.json.detail).toMatch(detail);
    expect(answer.json).not.toHaveProperty('data');
  });

  it('a well-formed request still answers', async () => {
    const answer = await post(
      '{"query": "{ posture { openPaths } }", "variables": null, "operationName": null}',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { posture: { openPaths: 0 } } });
  });
});
