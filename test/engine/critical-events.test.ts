// The Critical Attack Path event: emitted once for each new critical route an analyzer pass finds (and
// again when one reopens), counted in service_analyzer_critical_path_events_total.
import { expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService } from '../helpers/service.js';

it('emits a Critical Attack Path event for each new critical route, once', async () => {
  const service = await makeService();
  const events: unknown[] = [];
  service.engine.onCriticalPath((e) => events.push(e));
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const db = node('Database', 'orders', { crown_jewel: true });
  const bucket = node('Bucket', 'logs', { crown_jewel: true });
  await service.ingest(
    envelope([lb, db, bucket], [edge('CONNECTS_TO', lb, db, 0.9), edge('CONNECTS_TO', lb, bucket, 0.05)]),
  );
  await service.settle();
  expect(events).toEqual([
    expect.objectContaining({
      tenant: 'default',
      start: 'edge',
      target: 'orders',
      score: 0.9,
      reopened: false,
    }),
  ]);
  // Another pass over a changed graph: the route is not new, no event.
  await service.ingest(envelope([node('Service', 'unrelated')]));
  await service.settle();
  expect(events).toHaveLength(1);
  // The weak route turns critical: a new critical route, an event for it.
  await service.ingest(envelope([lb, bucket], [edge('CONNECTS_TO', lb, bucket, 0.8)]));
  await service.settle();
  expect(events).toHaveLength(2);
  expect(events[1]).toMatchObject({ target: 'logs' });
  const metrics = await service.tenantMetrics();
  expect(metrics.body).toContain('service_analyzer_critical_path_events_total{tenant="default"} 2');
  await service.dispose();
});
