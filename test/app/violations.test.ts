// The policy invariant no-internet-exposed-sensitive-asset through the service: a publicly accessible
// database holding PII violates it (CRITICAL); a private one does not; app-bound credentials see their own.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { custodianBody } from '../helpers/placebo.js';
import { makeService, type TestService } from '../helpers/service.js';

const ACCOUNT = '111122223333';
let service: TestService;
beforeAll(async () => {
  service = await makeService({
    API_TOKENS: 'violations-admin-token-0123:viewer,violations-shop-token-01234:viewer::2030-01-01:shop',
  });
  const response = await service.ingest(
    custodianBody(ACCOUNT, [
      {
        resource: 'aws.rds',
        resources: [
          {
            DBInstanceIdentifier: 'orders',
            PubliclyAccessible: true,
            Engine: 'postgres',
            TagList: [{ Key: 'classification', Value: 'pii' }],
          },
          { DBInstanceIdentifier: 'payroll-archive', PubliclyAccessible: false },
          { DBInstanceIdentifier: 'metrics', PubliclyAccessible: true },
        ],
      },
    ]),
    { source: 'custodian' },
  );
  expect(response.status).toBe(202);
  await service.settle();
});
afterAll(async () => {
  await service.dispose();
});

const violations = async (token: string) => {
  const r = await service.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    payload: JSON.stringify({ query: '{ violations { id invariant severity node { name label } detail } }' }),
  });
  return r.json().data.violations;
};

it('lists each crown jewel reachable from the internet as a CRITICAL violation', async () => {
  expect(await violations('violations-admin-token-0123')).toEqual([
    {
      id: expect.stringMatching(/^no-internet-exposed-sensitive-asset:Database:[0-9a-f]{16}$/),
      invariant: 'no-internet-exposed-sensitive-asset',
      severity: 'CRITICAL',
      node: { name: `${ACCOUNT}/orders`, label: 'Database' },
      detail: `Database ${ACCOUNT}/orders is a crown jewel reachable from the internet (publicly-accessible; tag:classification=pii)`,
    },
  ]);
  // An app-bound credential sees violations of its applications only.
  expect(await violations('violations-shop-token-01234')).toEqual([]);
});

it('raises no-internet-to-unsigned-image for an unsigned image the internet reaches, not for an unknown one', async () => {
  const s = await makeService();
  const body = {
    source: 't',
    kind: 'asset',
    observed_at: '2026-11-01T00:00:00Z',
    nodes: [
      { label: 'LoadBalancer', name: 'edge', properties: { internet_exposed: true } },
      { label: 'Service', name: 'web', properties: {} },
      { label: 'Service', name: 'batch', properties: {} },
      { label: 'Image', name: 'acme/web:1', properties: {} },
      { label: 'Image', name: 'acme/batch:1', properties: {} },
      { label: 'Image', name: 'acme/other:1', properties: {} },
    ],
    edges: [],
  };
  await s.ingest(body);
  const id = (label: string, name: string) =>
    `${label}:${createHash('sha1').update(name.toLowerCase()).digest('hex').slice(0, 16)}`;
  await s.ingest({
    ...body,
    nodes: [],
    edges: [
      { type: 'ROUTES_TO', from: id('LoadBalancer', 'edge'), to: id('Service', 'web') },
      { type: 'DEPENDS_ON', from: id('Service', 'web'), to: id('Image', 'acme/web:1') },
      { type: 'DEPENDS_ON', from: id('Service', 'web'), to: id('Image', 'acme/other:1') },
      { type: 'DEPENDS_ON', from: id('Service', 'batch'), to: id('Image', 'acme/batch:1') },
    ],
  });
  // Supply-chain facts: web's image is unsigned, batch's too (but nothing reaches batch), other's unknown.
  await s.ingest({ image: 'acme/web:1', signed: false }, { source: 'supplychain' });
  await s.ingest({ image: 'acme/batch:1', signed: false }, { source: 'supplychain' });
  await s.settle();
  const { violations } = await s.graphql('{ violations { invariant severity node { name } } }');
  expect(violations).toEqual([
    { invariant: 'no-internet-to-unsigned-image', severity: 'HIGH', node: { name: 'acme/web:1' } },
  ]);
  await s.dispose();
});
