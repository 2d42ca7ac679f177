// GraphQL request limits through the real API listener (app/graphql/limits.ts): the aliases, depth,
// directives, tokens and cost of a request are checked before any resolver runs, the path records of an
// answer are bounded, a refusal is one `query-limit` problem (400, application/problem+json) naming the
// setting, and introspection is off under API auth unless GRAPHQL_INTROSPECTION asks for it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { loadSettings, SettingsError } from '../../src/config/settings.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const PATH_FIELDS =
  'id score logScore priority directAccess openForSeconds reopens nodes { id name label } steps { from to type probability weightBasis }';
const PROBLEM_TYPE = 'urn:pathgate:problem:query-limit';

async function post(svc: TestService, query: string, headers: Record<string, string> = {}) {
  const response = await svc.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ query }),
  });
  return {
    status: response.statusCode,
    type: String(response.headers['content-type']),
    json: response.json(),
  };
}

const aliases = (n: number, selection: string) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;

function expectLimit(
  answer: { status: number; type: string; json: Record<string, unknown> },
  limit: string,
  extra: Record<string, unknown> = {},
) {
  expect(answer.status).toBe(400);
  expect(answer.type).toMatch(/^application\/problem\+json/);
  expect(answer.json).toMatchObject({ type: PROBLEM_TYPE, status: 400, limit, ...extra });
  expect(answer.json.detail).toContain(limit);
  expect(answer.json).not.toHaveProperty('data');
}

describe('limits on the demo estate (API open: playground and introspection on)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await makeService();
    expect(await loadDemo(svc)).toBe(true);
    await svc.settle();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  it('refuses 1,000 aliases with a 400 before parsing them, and keeps serving', async () => {
    // 1,000 aliases take more than GRAPHQL_MAX_TOKENS (2,000) to write: counted, never parsed.
    const answer = await post(svc, aliases(1000, `attackPaths { ${PATH_FIELDS} }`));
    expectLimit(answer, 'GRAPHQL_MAX_TOKENS', { max: 2000 });
    const after = await svc.graphql(`{ attackPaths { ${PATH_FIELDS} } }`);
    expect(after.attackPaths.length).toBeGreaterThanOrEqual(4);
  });

  it('refuses 1,000 and 5,000 aliases with GRAPHQL_MAX_ALIASES when tokens allow them', async () => {
    const loose = await makeService({ GRAPHQL_MAX_TOKENS: '1000000', GRAPHQL_MAX_BODY_BYTES: '4194304' });
    try {
      await loadDemo(loose);
      await loose.settle();
      for (const n of [1000, 5000]) {
        const answer = await post(loose, aliases(n, `attackPaths { ${PATH_FIELDS} }`));
        expectLimit(answer, 'GRAPHQL_MAX_ALIASES', { max: 15, actual: n });
      }
      expect((await loose.graphql(aliases(15, 'attackPaths { id }'))).a14.length).toBeGreaterThanOrEqual(4);
    } finally {
      await loose.dispose();
    }
  });

  it('refuses aliases hidden in fragments, and over GET too', async () => {
    const fragments = `query { ...A ...B } fragment A on Query { ${aliases(10, 'posture { openPaths }').slice(1, -1)} } fragment B on Query { ${aliases(
      10,
      'status { prunedNodes }',
    )
      .slice(1, -1)
      .replace(/a(\d+):/g, 'b$1:')} }`;
    expectLimit(await post(svc, fragments), 'GRAPHQL_MAX_ALIASES', { actual: 20 });
    const response = await svc.apiApp.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(aliases(16, 'posture { openPaths }'))}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ limit: 'GRAPHQL_MAX_ALIASES', actual: 16 });
  });

  it('refuses a deep query with GRAPHQL_MAX_DEPTH', async () => {
    const deep =
      '{ __type(name: "AttackPath") { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } }';
    expectLimit(await post(svc, deep), 'GRAPHQL_MAX_DEPTH', { max: 10, actual: 12 });
  });

  it('refuses many directives, and a document of too many tokens before parsing it', async () => {
    const directives = `{ attackPaths(first: 1) { ${Array.from({ length: 51 }, () => 'id @include(if: true)').join(' ')} } }`;
    expectLimit(await post(svc, directives), 'GRAPHQL_MAX_DIRECTIVES', { max: 50, actual: 51 });
    // 2,001 tokens, and not even valid GraphQL: the count comes first.
    const tokens = `{ attackPaths { ${'id '.repeat(1997)}} } }`;
    expectLimit(await post(svc, tokens), 'GRAPHQL_MAX_TOKENS', { max: 2000 });
  });

  it('refuses fragments that spread fragments past the cost', async () => {
    // Three levels of 300 spreads: about 1,200 tokens and depth 8 (a spread counts two), but 90,000 posture
    // fields once expanded.
    const levels = 3;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1
        ? `fragment F${i} on Query { posture { openPaths } }`
        : `fragment F${i} on Query { ${Array.from({ length: 300 }, () => `...F${i + 1}`).join(' ')} }`,
    ).join(' ');
    expectLimit(await post(svc, `{ ...F0 } ${fragments}`), 'GRAPHQL_MAX_COST');
  });

  it('answers a dashboard-sized query, and the full introspection query GraphiQL sends', async () => {
    const dashboard = await svc.graphql(`{
      posture { criticalPaths kevOnPaths runtimeConfirmed openPaths }
      status { prunedNodes graph { nodes edges pendingEdges } analyzer { passes upToDate lastPassSeconds } }
      critical: attackPaths(priority: P1, first: 50) { ${PATH_FIELDS} start { name } target { name } }
      top: attackPaths(first: 20) { id score }
      violations { id invariant severity node { id name label } }
    }`);
    expect(dashboard.posture.openPaths).toBeGreaterThanOrEqual(4);
    expect(dashboard.critical.length).toBeGreaterThan(0);
    const introspection = await post(
      svc,
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
      }),
    );
    expect(introspection.status).toBe(200);
    expect(introspection.json.data.__schema.queryType.name).toBe('Query');
  });

  it('leaves ordinary GraphQL errors in GraphQL form', async () => {
    const unknown = await post(svc, '{ nope }');
    expect(unknown.status).toBe(400);
    expect(unknown.type).toMatch(/^application\/json/);
    expect(unknown.json.errors[0].message).toMatch(/Cannot query field "nope"/);
    const negative = await post(svc, '{ attackPaths(first: -1) { id } }');
    expect(negative.json.errors[0].message).toMatch(/first must be 0 or more/);
  });
});

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

describe('an estate of 2,000 open paths (the size of the reported crash)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await wideEstate();
  });
  afterAll(async () => {
    await svc.dispose();
  });

  it('lists every path with its route in one query, but not twice over', async () => {
    const { attackPaths } = await svc.graphql(`{ attackPaths { ${PATH_FIELDS} } }`);
    expect(attackPaths).toHaveLength(2000);
    expect(attackPaths[0].nodes).toHaveLength(3);
    // Two aliases stay under GRAPHQL_MAX_ALIASES; the answer's cost, priced by the tenant's real list, does not.
    const twice = await post(svc, aliases(2, `attackPaths { ${PATH_FIELDS} }`));
    expectLimit(twice, 'GRAPHQL_MAX_COST', { max: 250_000 });
    expect(twice.json.actual).toBeGreaterThan(250_000);
    // The same two lists, paged, are fine.
    const paged = await svc.graphql(aliases(2, `attackPaths(first: 500) { ${PATH_FIELDS} }`));
    expect(paged.a1).toHaveLength(500);
  });

  it('prices attackPaths by the tenant paths it can return, or by first', async () => {
    const small = await wideEstate({ GRAPHQL_MAX_COST: '100' });
    try {
      // One value for the list, then per path one for the entry and one for its id.
      expectLimit(await post(small, '{ attackPaths { id } }'), 'GRAPHQL_MAX_COST', {
        max: 100,
        actual: 1 + 2000 * 2,
      });
      expectLimit(await post(small, '{ attackPaths(first: 60) { id } }'), 'GRAPHQL_MAX_COST', {
        actual: 121,
      });
      expect((await small.graphql('{ attackPaths(first: 40) { id } }')).attackPaths).toHaveLength(40);
    } finally {
      await small.dispose();
    }
  });

  it('bounds the path records of one answer across aliases (GRAPHQL_MAX_PATHS)', async () => {
    // Six light lists pass the cost (about 24,000 values) but would carry 12,000 path records.
    const answer = await post(svc, aliases(6, 'attackPaths { id }'));
    expectLimit(answer, 'GRAPHQL_MAX_PATHS', { max: 10_000 });
    expect(answer.json.actual).toBeGreaterThan(10_000);
    const five = await svc.graphql(aliases(5, 'attackPaths { id }'));
    expect(five.a4).toHaveLength(2000);
  });

  it('refuses 100 aliases of attackPaths by cost even when aliases are allowed', async () => {
    const loose = await wideEstate({ GRAPHQL_MAX_ALIASES: '1000' });
    try {
      const answer = await post(loose, aliases(100, 'attackPaths { nodes { id } steps { from } }'));
      expectLimit(answer, 'GRAPHQL_MAX_COST');
      expect(answer.json.actual).toBeGreaterThan(2_000_000);
      expect((await loose.graphql('{ posture { openPaths } }')).posture.openPaths).toBe(2000);
    } finally {
      await loose.dispose();
    }
  });
});

describe('introspection and API auth', () => {
  const TOKEN = 'graphql-limits-viewer-token-0123';
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const SCHEMA_QUERY = '{ __schema { queryType { name } } }';

  it('is refused under auth by default, with the setting that allows it named', async () => {
    const svc = await makeService({ API_TOKENS: `${TOKEN}:viewer` });
    try {
      expectLimit(await post(svc, SCHEMA_QUERY, bearer), 'GRAPHQL_INTROSPECTION', { max: false });
      expectLimit(
        await post(svc, '{ __type(name: "AttackPath") { name } }', bearer),
        'GRAPHQL_INTROSPECTION',
      );
      // __typename is not introspection of the schema.
      expect((await post(svc, '{ posture { __typename openPaths } }', bearer)).status).toBe(200);
      // Unauthenticated callers still get 401 before any GraphQL work.
      expect((await post(svc, SCHEMA_QUERY)).status).toBe(401);
    } finally {
      await svc.dispose();
    }
  });

  it('is allowed under auth with GRAPHQL_INTROSPECTION=true, and refused without auth with false', async () => {
    const allowed = await makeService({ API_TOKENS: `${TOKEN}:viewer`, GRAPHQL_INTROSPECTION: 'true' });
    try {
      const answer = await post(allowed, SCHEMA_QUERY, bearer);
      expect(answer.status).toBe(200);
      expect(answer.json.data.__schema.queryType.name).toBe('Query');
    } finally {
      await allowed.dispose();
    }
    const closed = await makeService({ GRAPHQL_INTROSPECTION: 'false' });
    try {
      expectLimit(await post(closed, SCHEMA_QUERY), 'GRAPHQL_INTROSPECTION');
    } finally {
      await closed.dispose();
    }
  });
});

describe('the audit log', () => {
  it('writes one view.attack_paths record for a query reading paths under many aliases', async () => {
    const TOKEN = 'graphql-limits-audit-token-0123';
    const file = path.join(await tempDir('pathgate-graphql-audit-'), 'audit.log');
    const svc = await makeService({ API_TOKENS: `${TOKEN}:viewer`, AUDIT_LOG_PATH: file });
    try {
      await loadDemo(svc);
      await svc.settle();
      const headers = { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'aliases-7' };
      const one = (await post(svc, '{ attackPaths(first: 1) { id } }', headers)).json.data.attackPaths[0].id;
      const answer = await post(
        svc,
        `{ ${aliases(12, 'attackPaths { id }').slice(1, -1)} single: attackPath(id: "${one}") { id } }`,
        headers,
      );
      expect(answer.status).toBe(200);
      const shown = answer.json.data.a0.map((p: { id: string }) => p.id);
      const views = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((r) => r.event === 'view.attack_paths');
      // The first request's record, then exactly one for the thirteen reads of the second.
      expect(views).toHaveLength(2);
      expect(views[1].fields.request_id).toBe('aliases-7');
      expect([...views[1].fields.path_ids].sort()).toEqual([...shown].sort());
    } finally {
      await svc.dispose();
    }
  });

  it('runs no resolver for a request refused before execution: no view record', async () => {
    const TOKEN = 'graphql-limits-audit-token-4567';
    const file = path.join(await tempDir('pathgate-graphql-audit-'), 'audit.log');
    const svc = await makeService({
      API_TOKENS: `${TOKEN}:viewer`,
      AUDIT_LOG_PATH: file,
      GRAPHQL_MAX_COST: '20',
    });
    try {
      await loadDemo(svc);
      await svc.settle();
      const bearer = { authorization: `Bearer ${TOKEN}` };
      const many = await post(svc, aliases(5000, 'attackPaths { id }'), bearer);
      expect(many.json.limit).toBe('GRAPHQL_MAX_TOKENS');
      const costly = await post(svc, '{ attackPaths { id nodes { id } } }', bearer);
      expect(costly.json.limit).toBe('GRAPHQL_MAX_COST');
      const records = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(records.map((r) => r.event)).toEqual(['request', 'request']);
      expect(records.map((r) => r.fields.status)).toEqual([400, 400]);
    } finally {
      await svc.dispose();
    }
  });
  it('writes no view record for an answer GRAPHQL_MAX_PATHS stopped half-way, and all of a complete one', async () => {
    const TOKEN = 'graphql-limits-audit-token-8901';
    const file = path.join(await tempDir('pathgate-graphql-audit-'), 'audit.log');
    const svc = await makeService({
      API_TOKENS: `${TOKEN}:viewer`,
      AUDIT_LOG_PATH: file,
      GRAPHQL_MAX_PATHS: '3',
    });
    try {
      await loadDemo(svc);
      await svc.settle();
      const bearer = { authorization: `Bearer ${TOKEN}` };
      // The first list is built (two paths, routes read) before the second passes the limit.
      const stopped = await post(
        svc,
        '{ a: attackPaths(first: 2) { id nodes { id } } b: attackPaths(first: 2) { id } }',
        bearer,
      );
      expectLimit(stopped, 'GRAPHQL_MAX_PATHS', { max: 3, actual: 4 });
      const complete = await post(
        svc,
        '{ a: attackPaths(first: 2) { id nodes { id } } b: attackPath(id: "x") { id } }',
        bearer,
      );
      expect(complete.status).toBe(200);
      const records = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(records.map((r) => r.event)).toEqual(['request', 'view.attack_paths', 'view.graph', 'request']);
      const ids = complete.json.data.a.map((p: { id: string }) => p.id);
      expect(records[1].fields.path_ids).toEqual(ids);
      expect(records[2].fields.path_ids).toEqual(ids);
    } finally {
      await svc.dispose();
    }
  });
});

describe('settings', () => {
  it('reads the limits, and refuses values out of range naming the variable', () => {
    const s = loadSettings({
      GRAPHQL_MAX_ALIASES: '3',
      GRAPHQL_MAX_COST: '1000',
      GRAPHQL_INTROSPECTION: 'yes',
    });
    expect(s.auth.graphql).toMatchObject({ maxAliases: 3, maxCost: 1000, maxDepth: 10, introspection: true });
    expect(loadSettings({}).auth.graphql?.introspection).toBeUndefined();
    let error: unknown;
    try {
      loadSettings({ GRAPHQL_MAX_DEPTH: '0', GRAPHQL_MAX_TOKENS: 'lots' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      'GRAPHQL_MAX_DEPTH="0" is not a whole number from 1 to 1000',
      'GRAPHQL_MAX_TOKENS="lots" is not a whole number from 100 to 1000000',
    ]);
  });
});
