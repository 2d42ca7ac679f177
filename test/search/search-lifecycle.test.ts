// The index follows the graph: a new report is found after the pass that applies it, a complete snapshot
// that retracts a node takes it (and the routes through it) out, a changed property is found by its new
// value; after a restart the index is rebuilt from the restored graph and path store, before any pass.
import { afterEach, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const SEARCH = 'query ($q: String!) { search(query: $q, first: 100) { edges { node { kind name } } } }';

async function found(s: TestService, q: string): Promise<string[]> {
  const data = await s.graphql(SEARCH, { variables: { q } });
  return (data.search.edges as { node: { kind: string; name: string } }[])
    .map((e) => `${e.node.kind} ${e.node.name}`)
    .sort();
}

const lb = node('LoadBalancer', 'harbor-lb', { internet_exposed: true });
const vault = node('Database', 'vault-db', { crown_jewel: true });

/** The estate's complete snapshot: the load balancer reaches the vault through `api`. */
function snapshot(api: ReturnType<typeof node>) {
  return envelope([lb, api, vault], [edge('ROUTES_TO', lb, api, 0.5), edge('CONNECTS_TO', api, vault, 0.5)]);
}

let services: TestService[] = [];
afterEach(async () => {
  for (const s of services) await s.dispose();
  services = [];
});

describe('search index lifecycle', () => {
  it('finds a new report after its pass; a retraction takes the node and its routes out', async () => {
    const s = await makeService();
    services.push(s);
    const falcon = node('Service', 'falcon-api', { team: 'raptors' });
    expect((await s.ingest(snapshot(falcon), { query: 'snapshot=cluster:harbor' })).status).toBe(202);
    await s.settle();
    expect(await found(s, 'falcon')).toEqual(['NODE falcon-api', 'PATH harbor-lb → vault-db']);

    // A partial report adds a worker: found after the pass that applies it.
    const osprey = node('Service', 'osprey-worker', { owner: 'team-magpie' });
    expect((await s.ingest(envelope([osprey], [edge('CONNECTS_TO', osprey, vault, 0.5)]))).status).toBe(202);
    await s.settle();
    expect(await found(s, 'osprey')).toEqual(['NODE osprey-worker']);
    expect(await found(s, 'magpie')).toEqual(['NODE osprey-worker']);

    // A property changes: found by its new value, no longer by the old one.
    const renamedOwner = node('Service', 'osprey-worker', { owner: 'team-kingfisher' });
    expect((await s.ingest(envelope([renamedOwner]))).status).toBe(202);
    await s.settle();
    expect(await found(s, 'kingfisher')).toEqual(['NODE osprey-worker']);
    expect(await found(s, 'magpie')).toEqual([]);

    // The next complete snapshot of the scope has heron-api instead: falcon-api is retracted, and the route
    // through it resolves; the new route is found by the new hop.
    const heron = node('Service', 'heron-api');
    expect((await s.ingest(snapshot(heron), { query: 'snapshot=cluster:harbor' })).status).toBe(202);
    await s.settle();
    expect(s.engine.tenant('default')!.graph.hasNode(falcon.id!)).toBe(false);
    expect(await found(s, 'falcon')).toEqual([]);
    expect(await found(s, 'raptors')).toEqual([]);
    expect(await found(s, 'heron')).toEqual(['NODE heron-api', 'PATH harbor-lb → vault-db']);
  });

  it('after a restart, rebuilds the index from the restored graph and paths, before any pass', async () => {
    const dataDir = await tempDir();
    const first = await makeService({}, { dataDir });
    expect(
      (await first.ingest(snapshot(node('Service', 'falcon-api')), { query: 'snapshot=cluster:harbor' }))
        .status,
    ).toBe(202);
    await first.settle();
    expect(await found(first, 'falcon')).toEqual(['NODE falcon-api', 'PATH harbor-lb → vault-db']);
    await first.dispose({ keepData: true });

    const second = await makeService({}, { dataDir });
    services.push(second);
    // No pass has run in this process: the first query builds the index from what the start restored.
    expect(second.engine.tenant('default')!.passes).toBe(0);
    expect(await found(second, 'falcon')).toEqual(['NODE falcon-api', 'PATH harbor-lb → vault-db']);
    expect(await found(second, 'vault')).toEqual(['NODE vault-db', 'PATH harbor-lb → vault-db']);
    // And it goes on following the graph from there.
    expect((await second.ingest(envelope([node('Service', 'heron-api')]))).status).toBe(202);
    await second.settle();
    expect(await found(second, 'heron')).toEqual(['NODE heron-api']);
    expect(await found(second, 'falcon')).toEqual(['NODE falcon-api', 'PATH harbor-lb → vault-db']);
  });
});
