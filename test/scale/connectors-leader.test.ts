// Connectors on two replicas (real NATS JetStream and PostgreSQL): both schedule, only the leader pulls; the
// follower gets the pulled estate through the bus like any report; when the leader goes, the replica that
// takes the lock pulls from its next tick on.
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../app/package-root.js';
import { makeService, type TestService } from '../helpers/service.js';
import {
  describeWithServices,
  missingServices,
  NATS_URL,
  schemaDsn,
  uniqueName,
  waitFor,
} from '../helpers/services.js';

const reason = await missingServices({ nats: true, postgres: true });
const FIXTURES = path.join(packageRoot(), 'fixtures', 'connectors');

describeWithServices('connectors on two replicas (real NATS and PostgreSQL)', reason, () => {
  let schema: Awaited<ReturnType<typeof schemaDsn>>;
  const services: TestService[] = [];
  const prefix = uniqueName('conn');
  beforeAll(async () => {
    schema = await schemaDsn('conn');
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await schema?.drop();
  });

  const start = async (name: string) => {
    const service = await makeService({
      BUS_URL: NATS_URL,
      BUS_SUBJECT_PREFIX: prefix,
      BUS_CONSUMER: name,
      DB_DSN: schema.dsn,
      LEADER_POLL_INTERVAL: '200ms',
      CONNECTORS_ENABLED: 'clouda',
      CLOUDA_CONNECTOR_MODE: 'fixtures',
      CLOUDA_FIXTURES_DIR: path.join(FIXTURES, 'clouda'),
      CONNECTOR_INTERVAL: '1s',
    });
    services.push(service);
    service.connectors.start();
    return service;
  };
  const runs = (s: TestService) => s.connectors.status().connectors[0].runs;
  const hasJump = (s: TestService) => {
    let found = false;
    s.engine.tenant('default')?.graph.forEachNode((_id, a) => {
      if (a.name === '111122223333/jump-1') found = true;
    });
    return found;
  };

  it('only the leader pulls; the follower takes over when it goes', async () => {
    const a = await start('replica-a');
    const b = await start('replica-b');
    await waitFor('one leader', () => a.engine.isLeader() !== b.engine.isLeader(), 10_000);
    const [leader, follower] = a.engine.isLeader() ? [a, b] : [b, a];
    await waitFor('the leader to pull twice', () => runs(leader) >= 2, 15_000);
    expect(runs(follower)).toBe(0);
    expect(follower.connectors.status().leader).toBe(false);
    // The follower holds what the leader pulled: it came over the bus.
    await waitFor('the follower to apply the pull', async () => {
      await follower.engine.drain();
      return hasJump(follower);
    });
    await leader.dispose();
    services.splice(services.indexOf(leader), 1);
    await waitFor('the follower to lead', () => follower.engine.isLeader(), 15_000);
    await waitFor('the new leader to pull', () => runs(follower) >= 1, 15_000);
    expect(follower.connectors.status().connectors[0]).toMatchObject({ lastResult: 'ok', lastError: null });
  });
});
