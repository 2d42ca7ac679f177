// The spec's startup refusals include "a bus connection or consumer that stops for good": the process exits
// rather than reconnecting for ever. A consumer deleted on a broker that is up is for good (onFatal, which
// `pathgate serve` turns into exit 1); a broker that goes away and comes back is not (its negative twin).
import { connect } from 'nats';
import { afterEach, expect, it, vi } from 'vitest';
import { streamNames } from '../../src/bus/jetstream.js';
import { OwnNatsServer } from '../helpers/nats-server.js';
import { makeService, type TestService } from '../helpers/service.js';
import { describeWithServices, missingServices, schemaDsn, uniqueName } from '../helpers/services.js';

const reason = await missingServices({ postgres: true, natsServerBinary: true });

describeWithServices('a bus that stops for good', reason, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  async function replica(
    nats: OwnNatsServer,
    onFatal: (error: Error) => void,
  ): Promise<TestService & { prefix: string }> {
    const db = await schemaDsn('fatal');
    cleanups.push(() => db.drop());
    const prefix = uniqueName('fatal');
    const service = await makeService(
      { BUS_URL: nats.url, BUS_SUBJECT_PREFIX: prefix, BUS_CONSUMER: 'r1', DB_DSN: db.dsn },
      { onFatal },
    );
    cleanups.push(() => service.dispose());
    return Object.assign(service, { prefix });
  }

  it('calls onFatal, naming the consumer, when its durable consumer is deleted on a live broker', async () => {
    const nats = await OwnNatsServer.create();
    await nats.start();
    cleanups.push(() => nats.dispose());
    const onFatal = vi.fn();
    const service = await replica(nats, onFatal);
    const nc = await connect({ servers: nats.url });
    cleanups.push(() => nc.close());
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.delete(streamNames(service.prefix).events, 'r1');
    await vi.waitFor(() => expect(onFatal).toHaveBeenCalledTimes(1), { timeout: 30_000, interval: 100 });
    expect(onFatal.mock.calls[0][0].message).toMatch(/bus: the consumer "r1" on stream .* is gone/);
  }, 60_000);

  it('does not call onFatal when the broker goes away and comes back (the negative twin)', async () => {
    const nats = await OwnNatsServer.create();
    await nats.start();
    cleanups.push(() => nats.dispose());
    const onFatal = vi.fn();
    const service = await replica(nats, onFatal);
    await nats.kill();
    await vi.waitFor(() => expect(service.engine.health.ok).toBe(false), { timeout: 15_000, interval: 100 });
    await nats.start();
    await vi.waitFor(() => expect(service.engine.health.ok).toBe(true), { timeout: 20_000, interval: 100 });
    // A few consume cycles after the return: the consumer is found again, nothing is fatal.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(onFatal).not.toHaveBeenCalled();
  }, 60_000);
});
