// GraphQL `search` on the demo estate `npm start` loads (through the real ingest path): nodes, findings and
// paths by prefix and with a typo, a CVE finding the routes its hops stand on, kinds and paging, bad input
// refused by value, and the answer's cost priced before it runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { makeService, type TestService } from '../helpers/service.js';

const SEARCH = /* GraphQL */ `
  query ($q: String!, $first: Int, $after: String, $kinds: [SearchKind!]) {
    search(query: $q, first: $first, after: $after, kinds: $kinds) {
      edges {
        cursor
        node {
          kind
          id
          name
          label
          score
          snippet
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

interface Hit {
  kind: string;
  id: string;
  name: string;
  label: string;
  score: number;
  snippet: string;
}

async function search(
  s: TestService,
  q: string,
  variables: Record<string, unknown> = {},
): Promise<{ hits: Hit[]; pageInfo: { hasNextPage: boolean; endCursor: string | null }; cursors: string[] }> {
  const data = await s.graphql(SEARCH, { variables: { q, ...variables } });
  return {
    hits: data.search.edges.map((e: { node: Hit }) => e.node),
    cursors: data.search.edges.map((e: { cursor: string }) => e.cursor),
    pageInfo: data.search.pageInfo,
  };
}

/**
 * The message of a search that should be refused. Resolvers' problems stay GraphQL errors (as a bad
 * attackPaths cursor does, app/graphql/limits.ts): no data, one error whose message names the value.
 */
async function refused(s: TestService, variables: Record<string, unknown>): Promise<string> {
  const response = await s.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query: SEARCH, variables }),
  });
  const body = response.json();
  expect(body.data).toBeNull();
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].path).toEqual(['search']);
  return body.errors[0].message as string;
}

/** The open paths whose route goes through a node of this name (read from the path listing itself). */
async function pathsThrough(s: TestService, name: string): Promise<string[]> {
  const data = await s.graphql(
    '{ attackPathsConnection(first: 100) { edges { node { id nodes { name } } } } }',
  );
  return data.attackPathsConnection.edges
    .filter((e: { node: { nodes: { name: string }[] } }) => e.node.nodes.some((n) => n.name === name))
    .map((e: { node: { id: string } }) => e.node.id)
    .sort();
}

describe('search on the demo estate', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await makeService();
    expect(await loadDemo(s)).toBe(true);
    await s.settle();
  });
  afterAll(() => s.dispose());

  it('finds a demo node by a prefix of its name, and with a one-letter typo', async () => {
    const prefix = await search(s, 'chec');
    expect(prefix.hits.find((h) => h.name === 'checkout-api')).toMatchObject({
      kind: 'NODE',
      label: 'Service',
    });
    const typo = await search(s, 'chekout-api');
    expect(typo.hits[0]).toMatchObject({ kind: 'NODE', name: 'checkout-api', label: 'Service' });
    const database = await search(s, 'ordrs', { kinds: ['NODE'] });
    expect(database.hits.map((h) => h.name)).toEqual(['orders-postgres']);
    // Three letters take no typo: `sqi` is no `sql`, and nothing else starts with it.
    expect((await search(s, 'sqi')).hits).toEqual([]);
  });

  it('finds a CVE by its id, and the routes its hops stand on (and no other)', async () => {
    const { hits } = await search(s, 'CVE-2022-22965');
    expect(hits.filter((h) => h.kind === 'FINDING')).toEqual([
      expect.objectContaining({ name: 'CVE-2022-22965', label: 'CVE' }),
    ]);
    const routes = hits.filter((h) => h.kind === 'PATH');
    // Spring4Shell is in checkout-api's image: the routes through checkout-api, as the path listing has them.
    expect(routes.map((h) => h.id).sort()).toEqual(await pathsThrough(s, 'checkout-api'));
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      expect(route.label).toBe('AttackPath');
      expect(route.snippet).toContain('CVE-2022-22965');
      const path = await s.graphql(`{ attackPath(id: "${route.id}") { state nodes { name } } }`);
      expect(path.attackPath.state).toBe('OPEN');
    }
    // A CVE no route stands on finds its finding only.
    const other = await search(s, 'CVE-2024-45490', { kinds: ['PATH'] });
    expect(other.hits.map((h) => h.id).sort()).toEqual(await pathsThrough(s, 'checkout-api'));
  });

  it('finds paths by their start and target, with snippets of the hops', async () => {
    const { hits } = await search(s, 'bastion orders', { kinds: ['PATH'] });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'PATH', name: 'bastion-1 → orders-postgres' });
    expect(hits[0].snippet).toContain('bastion-1 (VirtualMachine)');
  });

  it('keeps to the kinds asked for, and pages with cursors without repeating a hit', async () => {
    const all = await search(s, 'checkout', { first: 100 });
    expect(new Set(all.hits.map((h) => h.kind))).toEqual(new Set(['NODE', 'FINDING', 'PATH']));
    const findings = await search(s, 'checkout', { kinds: ['FINDING'] });
    expect(findings.hits.length).toBeGreaterThan(0);
    expect(findings.hits.every((h) => h.kind === 'FINDING')).toBe(true);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page++) {
      const next = await search(s, 'checkout', { first: 2, after });
      seen.push(...next.hits.map((h) => `${h.kind}:${h.id}`));
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.hits.map((h) => `${h.kind}:${h.id}`));
    const scores = all.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('refuses bad input with an error naming the value', async () => {
    expect(await refused(s, { q: '   ' })).toMatch(/search query is empty/);
    expect(await refused(s, { q: '--' })).toContain('"--" holds no word');
    for (const first of [0, 101, -3])
      expect(await refused(s, { q: 'checkout', first })).toContain(
        `first must be a whole number from 1 to 100, got ${first}`,
      );
    expect(await refused(s, { q: 'checkout', after: 'not-a-cursor' })).toContain(
      'cursor "not-a-cursor" is not a search cursor',
    );
    expect(await refused(s, { q: 'checkout', kinds: [] })).toMatch(/kinds is empty/);
    expect(await refused(s, { q: 'a'.repeat(300) })).toContain('300 characters long');
    // A cursor past the deepest page a search pages to is refused too, by value.
    const deep = Buffer.from('search:99999').toString('base64url');
    expect(await refused(s, { q: 'checkout', after: deep })).toContain(JSON.stringify(deep));
  });

  it('prices the answer by its page: a page past GRAPHQL_MAX_COST is refused before it runs', async () => {
    const tight = await makeService({ GRAPHQL_MAX_COST: '200' });
    try {
      const ask = (first: number) =>
        tight.apiApp.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ query: SEARCH, variables: { q: 'x', first } }),
        });
      expect((await ask(5)).statusCode).toBe(200);
      const over = await ask(100);
      expect(over.statusCode).toBe(400);
      expect(over.json()).toMatchObject({ limit: 'GRAPHQL_MAX_COST', max: 200 });
    } finally {
      await tight.dispose();
    }
  });
});

describe('search after a report that names a known CVE on the demo image', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await makeService();
    await loadDemo(s);
    await s.settle();
    expect((await search(s, 'CVE-2021-44228')).hits).toEqual([]);
    // grype's CycloneDX of a log4j-core jar, scanned in checkout-api's image (real tool output).
    const sbom = JSON.parse(
      await readFile(
        path.join(import.meta.dirname, '../../fixtures/unseen/sbom/defectdojo-grype-log4j.cdx.json'),
        'utf8',
      ),
    );
    const response = await s.ingest(sbom, {
      source: 'supplychain',
      query: `image=${encodeURIComponent('acme/checkout-api:1.14.2')}`,
    });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
    await s.settle();
  });
  afterAll(() => s.dispose());

  // The routes were indexed before the report: their documents are rebuilt because a node they read changed.
  it('`log4` finds log4j-core; CVE-2021-44228 finds the routes through the image it is in', async () => {
    const library = await search(s, 'log4', { kinds: ['NODE'] });
    expect(library.hits.map((h) => h.name)).toContain('pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2');
    const { hits } = await search(s, 'CVE-2021-44228');
    expect(hits.find((h) => h.kind === 'FINDING')).toMatchObject({ name: 'CVE-2021-44228' });
    const routes = hits.filter((h) => h.kind === 'PATH').map((h) => h.id);
    expect(routes.sort()).toEqual(await pathsThrough(s, 'checkout-api'));
    expect(routes.length).toBeGreaterThan(0);
  });
});
