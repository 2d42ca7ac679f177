// OPENSEARCH_URL: the search index in OpenSearch through the official client, against the stand-in on
// loopback (test/helpers/opensearch-standin.ts, real HTTP): an index per tenant written in bulk, the demo's
// names found as the embedded index finds them, only changes sent after a pass, an OpenSearch that is away
// answered as unavailable and the index rebuilt once it is back, credentials never logged.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { OpenSearchStandIn } from '../helpers/opensearch-standin.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const SEARCH = /* GraphQL */ `
  query ($q: String!, $kinds: [SearchKind!]) {
    search(query: $q, first: 100, kinds: $kinds) {
      edges {
        node {
          kind
          id
          name
          snippet
        }
      }
    }
  }
`;

async function hits(s: TestService, q: string, tenant?: string): Promise<string[]> {
  const data = await s.graphql(SEARCH, { variables: { q }, tenant });
  return (data.search.edges as { node: { kind: string; name: string } }[])
    .map((e) => `${e.node.kind} ${e.node.name}`)
    .sort();
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function standIn(): Promise<OpenSearchStandIn> {
  const server = new OpenSearchStandIn();
  await server.start();
  cleanup.push(() => server.stop());
  return server;
}

async function service(env: Record<string, string>, options: Parameters<typeof makeService>[1] = {}) {
  const s = await makeService(env, options);
  cleanup.push(() => s.dispose());
  return s;
}

const bulks = (server: OpenSearchStandIn) => server.requests.filter((r) => r.path.endsWith('/_bulk'));
/** The actions of a bulk request (NDJSON: an action line, then a source line for index actions). */
function actions(body: unknown): string[] {
  return String(body)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .flatMap((line) => (line.index ? ['index'] : line.delete ? ['delete'] : []));
}

describe('search in OpenSearch (OPENSEARCH_URL)', () => {
  it('indexes the demo per tenant in bulk and finds what the embedded index finds', async () => {
    const server = await standIn();
    const remote = await service({ OPENSEARCH_URL: server.url });
    const local = await service({});
    for (const s of [remote, local]) {
      await loadDemo(s);
      expect((await s.ingest(envelope([node('Service', 'zephyr-api')]), { tenant: 'acme' })).status).toBe(
        202,
      );
      await s.settle();
    }
    // One index per tenant, written by the bulk API with the mapping created first.
    expect([...server.indices.keys()].sort()).toEqual(['pathgate-search-acme', 'pathgate-search-default']);
    const order = server.requests.map((r) => `${r.method} ${r.path}`);
    expect(order.indexOf('PUT /pathgate-search-default')).toBeLessThan(
      order.indexOf('PUT /pathgate-search-default/_bulk'),
    );
    const graph = remote.engine.tenant('default')!.graph;
    const paths = remote.engine.tenant('default')!.paths.open().length;
    expect(server.docs('pathgate-search-default').size).toBe(graph.order + paths);
    expect(bulks(server).every((r) => r.query.refresh === 'wait_for')).toBe(true);

    for (const q of [
      'chec',
      'chekout-api',
      'CVE-2022-22965',
      'ordrs',
      'bastion orders',
      'stripe',
      'spring',
      'zephyr',
    ])
      expect(await hits(remote, q), q).toEqual(await hits(local, q));
    expect(await hits(remote, 'chekout-api')).toContain('NODE checkout-api');
    expect(await hits(remote, 'CVE-2022-22965')).toContain('FINDING CVE-2022-22965');
    // Tenants stay apart: acme's index alone answers acme.
    expect(await hits(remote, 'zephyr')).toEqual([]);
    expect(await hits(remote, 'zephyr', 'acme')).toEqual(['NODE zephyr-api']);
    expect(await hits(remote, 'checkout', 'acme')).toEqual([]);
  });

  it('sends only what a pass changed; a retraction deletes the documents', async () => {
    const server = await standIn();
    const s = await service({ OPENSEARCH_URL: server.url });
    const lb = node('LoadBalancer', 'harbor-lb', { internet_exposed: true });
    const vault = node('Database', 'vault-db', { crown_jewel: true });
    const snapshot = (api: ReturnType<typeof node>) =>
      envelope([lb, api, vault], [edge('ROUTES_TO', lb, api, 0.5), edge('CONNECTS_TO', api, vault, 0.5)]);
    expect(
      (await s.ingest(snapshot(node('Service', 'falcon-api')), { query: 'snapshot=cluster:harbor' })).status,
    ).toBe(202);
    await s.settle();
    expect(await hits(s, 'falcon')).toEqual(['NODE falcon-api', 'PATH harbor-lb → vault-db']);

    const before = bulks(server).length;
    expect((await s.ingest(envelope([node('Service', 'osprey-worker')]))).status).toBe(202);
    await s.settle();
    const sent = bulks(server).slice(before);
    expect(sent.map((r) => actions(r.body))).toEqual([['index']]);
    expect(await hits(s, 'osprey')).toEqual(['NODE osprey-worker']);

    const retracting = bulks(server).length;
    expect(
      (await s.ingest(snapshot(node('Service', 'heron-api')), { query: 'snapshot=cluster:harbor' })).status,
    ).toBe(202);
    await s.settle();
    expect(
      bulks(server)
        .slice(retracting)
        .flatMap((r) => actions(r.body)),
    ).toContain('delete');
    expect(await hits(s, 'falcon')).toEqual([]);
    expect(await hits(s, 'heron')).toEqual(['NODE heron-api', 'PATH harbor-lb → vault-db']);
    expect([...server.docs('pathgate-search-default').keys()].some((k) => k.includes('falcon'))).toBe(false);
  });

  it('answers unavailable while OpenSearch is away, and rebuilds the index once it is back', async () => {
    const server = await standIn();
    const s = await service({ OPENSEARCH_URL: server.url });
    expect((await s.ingest(envelope([node('Service', 'falcon-api')]))).status).toBe(202);
    await s.settle();
    expect(await hits(s, 'falcon')).toEqual(['NODE falcon-api']);

    server.failNext = 1_000;
    expect((await s.ingest(envelope([node('Service', 'osprey-worker')]))).status).toBe(202);
    // The pass goes on; its index update fails and is logged, not thrown.
    await s.settle();
    expect(s.engine.tenant('default')!.graph.order).toBe(2);
    const away = await s.apiApp.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: SEARCH, variables: { q: 'osprey' } }),
    });
    expect(away.json().errors[0].message).toMatch(/search index \(opensearch\) did not answer/);

    server.failNext = 0;
    // Back: the next query rebuilds what the failed update missed.
    expect(await hits(s, 'osprey')).toEqual(['NODE osprey-worker']);
    expect(await hits(s, 'falcon')).toEqual(['NODE falcon-api']);
  });

  it('fills an empty OpenSearch at a restart, and never logs the credentials in OPENSEARCH_URL', async () => {
    const server = await standIn();
    const url = new URL(server.url);
    url.username = 'pathgate';
    url.password = 'hunter2-opensearch-secret';
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        logs.push(String(chunk));
        done();
      },
    });
    const dataDir = await tempDir();
    const first = await makeService(
      { OPENSEARCH_URL: url.toString() },
      { dataDir, logger: pino({ level: 'debug' }, sink) },
    );
    await loadDemo(first);
    await first.settle();
    expect(await hits(first, 'stripe')).toEqual([
      'NODE shop/stripe-api-key',
      'PATH shop-public-alb → shop/stripe-api-key',
    ]);
    await first.dispose({ keepData: true });
    expect(
      server.requests.every(
        (r) =>
          r.authorization === `Basic ${Buffer.from('pathgate:hunter2-opensearch-secret').toString('base64')}`,
      ),
    ).toBe(true);
    expect(logs.join('')).toContain('search: index in OpenSearch');
    expect(logs.join('')).not.toContain('hunter2-opensearch-secret');

    // A new, empty OpenSearch: the restarted service rebuilds its index from the restored graph.
    const fresh = await standIn();
    const second = await service({ OPENSEARCH_URL: fresh.url }, { dataDir });
    expect(await hits(second, 'stripe')).toEqual([
      'NODE shop/stripe-api-key',
      'PATH shop-public-alb → shop/stripe-api-key',
    ]);
    expect(fresh.docs('pathgate-search-default').size).toBeGreaterThan(0);
  });
});
