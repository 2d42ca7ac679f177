// Issue 31 item 3: the cost check priced every operation of a document, and a pricing failure let the
// request run unpriced. A second, never-executed operation whose variable cannot be coerced made the
// complexity library throw, so two full listings of 2,000 paths answered 200 where the same request alone
// is refused; a 22 MB variables object (300,000 `whatIf` cuts) held the event loop for seconds. The cost
// now prices exactly the operation that runs and fails closed, and the body, the variables and list
// arguments are capped before they become work (app/graphql/limits.ts, docs/security.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const PROBLEM_TYPE = 'urn:pathgate:problem:query-limit';
const LISTING = 'attackPaths { id score nodes { id name label } steps { from to type probability } }';

async function post(svc: TestService, body: unknown) {
  const response = await svc.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.statusCode,
    type: String(response.headers['content-type']),
    json: response.json(),
    bytes: response.rawPayload.length,
  };
}

/** 40 internet-facing load balancers x 50 databases through one service: 2,000 open paths. */
async function wideEstate(env: Record<string, string> = {}): Promise<TestService> {
  const svc = await makeService(env);
  const hub = node('Service', 'hub');
  const lbs = Array.from({ length: 40 }, (_, i) =>
    node('LoadBalancer', `lb-${i}`, { internet_exposed: true }),
  );
  const dbs = Array.from({ length: 50 }, (_, i) => node('Database', `db-${i}`, { crown_jewel: true }));
  const answer = await svc.ingest(
    envelope(
      [hub, ...lbs, ...dbs],
      [
        ...lbs.map((lb) => edge('ROUTES_TO', lb, hub, 0.9)),
        ...dbs.map((db) => edge('CONNECTS_TO', hub, db, 0.5)),
      ],
    ),
  );
  expect(answer.status).toBe(202);
  await svc.settle();
  return svc;
}

describe('the cost is the executed operation, and it cannot be skipped', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await wideEstate();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  const listings = `query Run { a: ${LISTING} b: ${LISTING} c: ${LISTING} d: ${LISTING} }`;

  it('refuses four full listings hidden behind a never-run operation whose variable cannot be coerced', async () => {
    const alone = await post(svc, { query: listings });
    expect(alone.status).toBe(400);
    expect(alone.json).toMatchObject({ type: PROBLEM_TYPE, limit: 'GRAPHQL_MAX_COST' });
    // The reported bypass: the decoy's `$n` is a string where an Int is declared.
    const decoy = `${listings} query Never($n: Int!) { attackPaths(first: $n) { id } }`;
    const hidden = await post(svc, { query: decoy, operationName: 'Run', variables: { n: 'x' } });
    expect(hidden.status).toBe(400);
    expect(hidden.type).toMatch(/^application\/problem\+json/);
    expect(hidden.json).toMatchObject({ type: PROBLEM_TYPE, status: 400, limit: 'GRAPHQL_MAX_COST' });
    expect(hidden.json.actual).toBeGreaterThan(250_000);
    expect(hidden.json).not.toHaveProperty('data');
    expect(hidden.bytes).toBeLessThan(2_000);
    // The decoy itself still runs when it is the one asked for, with a good variable.
    const decoyRun = await post(svc, { query: decoy, operationName: 'Never', variables: { n: 2 } });
    expect(decoyRun.status).toBe(200);
    expect(decoyRun.json.data.attackPaths).toHaveLength(2);
  });

  it('prices only the operation that runs: a cheap one beside an expensive one answers', async () => {
    const doc = `${listings} query Cheap { posture { openPaths } }`;
    const cheap = await post(svc, { query: doc, operationName: 'Cheap' });
    expect(cheap.status).toBe(200);
    expect(cheap.json.data).toEqual({ posture: { openPaths: 2000 } });
  });

  it('fails closed when the request cannot be priced: the problem says why', async () => {
    // Two operations and no operationName: nothing says which would run.
    const doc = `query A { posture { openPaths } } query B { ${LISTING} }`;
    const unnamed = await post(svc, { query: doc });
    expect(unnamed.status).toBe(400);
    expect(unnamed.type).toMatch(/^application\/problem\+json/);
    expect(unnamed.json).toMatchObject({ type: PROBLEM_TYPE, limit: 'GRAPHQL_MAX_COST' });
    expect(unnamed.json.detail).toMatch(/cannot be priced: .*operationName/);
    const unknown = await post(svc, { query: doc, operationName: 'Nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toMatch(/cannot be priced: .*"Nope"/);
  });
});

describe('variables and list arguments are capped before they become work', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await wideEstate();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  const whatIf = 'query W($cuts: [EdgeCut!]!) { whatIf(cuts: $cuts, iterations: 10) { removedEdges } }';
  const cuts = (n: number) => Array.from({ length: n }, (_, i) => ({ from: `lb-${i % 40}`, to: 'hub' }));

  it('refuses the reported 300,000-cut variables object (22 MB) by its size, before parsing it', async () => {
    const body = JSON.stringify({ query: whatIf, variables: { cuts: cuts(300_000) } });
    expect(body.length).toBeGreaterThan(8_000_000);
    const answer = await post(svc, body);
    expect(answer.status).toBe(413);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({ status: 413, limit: 'GRAPHQL_MAX_BODY_BYTES', max: 262_144 });
    expect(answer.json.detail).toContain('GRAPHQL_MAX_BODY_BYTES');
    // The listener keeps answering.
    expect((await svc.graphql('{ posture { openPaths } }')).posture.openPaths).toBe(2000);
  });

  it('refuses variables over GRAPHQL_MAX_VARIABLES_BYTES inside an allowed body', async () => {
    const padding = 'x'.repeat(70_000);
    const answer = await post(svc, {
      query: 'query P($p: String) { attackPaths(target: $p, first: 1) { id } }',
      variables: { p: padding },
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      type: PROBLEM_TYPE,
      limit: 'GRAPHQL_MAX_VARIABLES_BYTES',
      max: 65_536,
    });
    expect(answer.json.actual).toBeGreaterThan(70_000);
  });

  it('refuses more than GRAPHQL_MAX_LIST_ITEMS cuts, as a variable or written in the document', async () => {
    const asVariable = await post(svc, { query: whatIf, variables: { cuts: cuts(101) } });
    expect(asVariable.status).toBe(400);
    expect(asVariable.json).toMatchObject({
      type: PROBLEM_TYPE,
      limit: 'GRAPHQL_MAX_LIST_ITEMS',
      max: 100,
      actual: 101,
    });
    expect(asVariable.json.detail).toContain('whatIf(cuts:)');
    const literal = `{ whatIf(cuts: [${cuts(101)
      .map((c) => `{from: "${c.from}", to: "hub"}`)
      .join(' ')}], iterations: 10) { removedEdges } }`;
    const written = await post(svc, { query: literal });
    expect(written.status).toBe(400);
    expect(written.json).toMatchObject({ limit: 'GRAPHQL_MAX_LIST_ITEMS', actual: 101 });
    // 40 cuts (every load balancer's hop) answer.
    const ok = await post(svc, { query: whatIf, variables: { cuts: cuts(40) } });
    expect(ok.status).toBe(200);
    expect(ok.json.data.whatIf.removedEdges).toBe(40);
  });
});
