// Cloud sources through the service: `snapshot=<provider>:<account_id>/<region>` makes a report complete
// for that scope, so what the next one omits is retracted; the same names in two accounts stay apart.
import { expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { custodianBody } from '../helpers/placebo.js';
import { makeService } from '../helpers/service.js';

it('retracts what a complete account snapshot omits, and keeps accounts apart', async () => {
  const service = await makeService();
  const buckets = (account: string, names: string[]) =>
    custodianBody(account, [{ resource: 'aws.s3', resources: names.map((Name) => ({ Name })) }]);
  const scope = 'snapshot=aws:111122223333/us-east-1&account=111122223333';
  expect(
    (
      await service.ingest(buckets('111122223333', ['logs', 'exports']), {
        source: 'custodian',
        query: scope,
      })
    ).status,
  ).toBe(202);
  expect(
    (
      await service.ingest(buckets('444455556666', ['logs']), {
        source: 'custodian',
        query: 'account=444455556666',
      })
    ).status,
  ).toBe(202);
  await service.settle();
  const graph = service.engine.tenant('default')!.graph;
  expect(graph.hasNode(nodeId('Bucket', '111122223333/logs'))).toBe(true);
  expect(graph.hasNode(nodeId('Bucket', '444455556666/logs'))).toBe(true);
  // The next complete snapshot of the first account no longer lists `exports`.
  expect(
    (await service.ingest(buckets('111122223333', ['logs']), { source: 'custodian', query: scope })).status,
  ).toBe(202);
  await service.settle();
  expect(graph.hasNode(nodeId('Bucket', '111122223333/exports'))).toBe(false);
  expect(graph.hasNode(nodeId('Bucket', '111122223333/logs'))).toBe(true);
  expect(graph.hasNode(nodeId('Bucket', '444455556666/logs'))).toBe(true);
  // A malformed account is refused, storing nothing.
  const bad = await service.ingest(buckets('111122223333', ['new']), {
    source: 'custodian',
    query: 'account=prod',
  });
  expect(bad.status).toBe(400);
  expect(bad.json.errors[0]).toMatchObject({ pointer: '/query/account', value: 'prod' });
  await service.settle();
  expect(graph.hasNode(nodeId('Bucket', '111122223333/new'))).toBe(false);
  await service.dispose();
});
