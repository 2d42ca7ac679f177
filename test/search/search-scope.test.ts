// Who finds what: a tenant's search never returns another tenant's names, and a credential bound to
// applications finds only its applications' nodes and the paths through them (scope.ts's rule), through
// the API listener with real tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const VIEWER = 'viewer-token-0123456789abcdef';
const ACME = 'acme-token-0123456789abcdef';
const SHOP = 'shop-token-0123456789abcdef';
const TOKENS = [`${VIEWER}:viewer`, `${ACME}:viewer:acme`, `${SHOP}:viewer::2030-12-31:shop`].join(',');

const SEARCH = 'query ($q: String!) { search(query: $q, first: 100) { edges { node { kind id name } } } }';

async function search(s: TestService, token: string, q: string, tenant?: string) {
  const response = await s.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(tenant ? { 'x-tenant': tenant } : {}),
    },
    payload: JSON.stringify({ query: SEARCH, variables: { q } }),
  });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expect(body.errors).toBeUndefined();
  return (body.data.search.edges as { node: { kind: string; id: string; name: string } }[]).map(
    (e) => e.node,
  );
}

/** Two routes through two applications' services to two crown jewels. */
function twoAppEstate() {
  const lb = node('LoadBalancer', 'edge-lb', { internet_exposed: true });
  const shop = node('Service', 'kestrel-web', { app: 'shop' });
  const billing = node('Service', 'billing-api', { apps: ['billing'] });
  const orders = node('Database', 'orders-ledger-db', { crown_jewel: true, app: 'shop' });
  const ledger = node('Database', 'billing-ledger', { crown_jewel: true });
  return envelope(
    [lb, shop, billing, orders, ledger],
    [
      edge('ROUTES_TO', lb, shop, 0.5),
      edge('ROUTES_TO', lb, billing, 0.5),
      edge('CONNECTS_TO', shop, orders, 0.5),
      edge('CONNECTS_TO', billing, ledger, 0.5),
    ],
  );
}

describe('search scoping', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await makeService({ API_TOKENS: TOKENS });
    await loadDemo(s);
    // Tenant acme: its own estate, whose names the default tenant must never see (and the other way round).
    expect((await s.ingest(twoAppEstate(), { tenant: 'acme' })).status).toBe(202);
    await s.settle();
  });
  afterAll(() => s.dispose());

  it("finds only the caller's tenant's names", async () => {
    // acme's names, asked in the default tenant (the demo's): nothing.
    for (const q of ['billing', 'kestrel-web', 'edge-lb', 'ledger'])
      expect(await search(s, VIEWER, q), q).toEqual([]);
    // The demo's names, asked by acme's token: nothing; its own: found.
    for (const q of ['checkout', 'orders-postgres', 'CVE-2022-22965', 'bastion'])
      expect(await search(s, ACME, q), q).toEqual([]);
    expect((await search(s, ACME, 'billing')).map((h) => h.name)).toContain('billing-api');
    // A tenant header cannot take a tenant-bound token elsewhere (api-auth refuses it first).
    const crossing = await s.apiApp.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ACME}`, 'x-tenant': 'default' },
      payload: JSON.stringify({ query: SEARCH, variables: { q: 'checkout' } }),
    });
    expect(crossing.statusCode).toBe(403);
  });

  it("an app-scoped token finds only its applications' nodes and the paths through them", async () => {
    // The shop token reads the default tenant: give it the two-application estate there too.
    expect((await s.ingest(twoAppEstate())).status).toBe(202);
    await s.settle();
    const all = await search(s, VIEWER, 'ledger');
    expect(all.map((h) => `${h.kind} ${h.name}`).sort()).toEqual([
      'NODE billing-ledger',
      'NODE orders-ledger-db',
      'PATH edge-lb → billing-ledger',
      'PATH edge-lb → orders-ledger-db',
    ]);
    const shop = await search(s, SHOP, 'ledger');
    expect(shop.map((h) => `${h.kind} ${h.name}`).sort()).toEqual([
      'NODE orders-ledger-db',
      'PATH edge-lb → orders-ledger-db',
    ]);
    // Nodes of no application (the load balancer, the demo's) and billing's are hidden from it.
    expect(await search(s, SHOP, 'billing')).toEqual([]);
    expect(await search(s, SHOP, 'checkout')).toEqual([]);
    expect((await search(s, SHOP, 'edge-lb')).map((h) => h.kind)).toEqual(['PATH']);
    expect((await search(s, VIEWER, 'edge-lb')).map((h) => h.kind).sort()).toEqual(['NODE', 'PATH', 'PATH']);
  });
});
