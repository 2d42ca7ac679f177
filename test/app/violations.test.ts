// The policy invariant no-internet-exposed-sensitive-asset through the service: a publicly accessible
// database holding PII violates it (CRITICAL); a private one does not; app-bound credentials see their own.
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
