// The JetStream bus against real NATS (scripts/services.sh) and PostgreSQL for the leader lock: two
// replicas reading one stream hold the same paths after the demo estate's real reports; a poison record
// is dead-lettered after BUS_MAX_DELIVER deliveries while later reports still land; a NATS server killed
// mid-ingest makes ingest answer 503 (not 202) until it is back, and nothing acknowledged is lost.
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { streamNames } from '../../src/bus/jetstream.js';
import { envelope, node } from '../helpers/envelope.js';
import { OwnNatsServer } from '../helpers/nats-server.js';
import { makeService, type TestService } from '../helpers/service.js';
import {
  describeWithServices,
  missingServices,
  NATS_URL,
  PG_DSN,
  schemaDsn,
  uniqueName,
  waitFor,
} from '../helpers/services.js';

const reason = await missingServices({ nats: true, postgres: true, natsServerBinary: true });

let dsn = PG_DSN;

function scaleEnv(prefix: string, consumer: string, url = NATS_URL): Record<string, string> {
  return {
    BUS_URL: url,
    BUS_SUBJECT_PREFIX: prefix,
    BUS_CONSUMER: consumer,
    BUS_MAX_DELIVER: '2',
    DB_DSN: dsn,
    LEADER_POLL_INTERVAL: '200ms',
    // The outage test sends reports back to back from one address: the per-IP rate limit is not under test.
    INGEST_RATE_RPS: '100000',
  };
}

const openPaths = (service: TestService) =>
  [...(service.engine.tenant('default')?.paths.open() ?? [])]
    .map((r) => `${r.id} ${r.score.toFixed(6)} ${r.priority}`)
    .sort();

describeWithServices('JetStream bus (real NATS)', reason, () => {
  const services: TestService[] = [];
  const servers: OwnNatsServer[] = [];
  const connections: NatsConnection[] = [];
  let dropSchema: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const schema = await schemaDsn('bus');
    dsn = schema.dsn;
    dropSchema = schema.drop;
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await Promise.allSettled(connections.map((c) => c.close()));
    await Promise.allSettled(servers.map((s) => s.dispose()));
    await dropSchema?.();
  });

  it('two replicas on one stream hold the same paths after the same ingest', async () => {
    const prefix = uniqueName('t');
    const a = await makeService(scaleEnv(prefix, 'replica-a'));
    services.push(a);
    const b = await makeService(scaleEnv(prefix, 'replica-b'));
    services.push(b);
    // The demo's real reports (Trivy, build, Semgrep, cloud network, IAM, Kubernetes) through replica a.
    expect(await loadDemo(a)).toBe(true);
    await a.settle();
    await b.settle();
    const pathsA = openPaths(a);
    expect(pathsA.length).toBeGreaterThan(0);
    expect(openPaths(b)).toEqual(pathsA);
    // A replica started later from nothing reads the whole stream and gets there too.
    const c = await makeService(scaleEnv(prefix, 'replica-c'));
    services.push(c);
    await c.settle();
    expect(openPaths(c)).toEqual(pathsA);
    const metrics = await a.apiApp.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^service_broker_connected 1$/m);
  });

  it('dead-letters a poison record after BUS_MAX_DELIVER deliveries and keeps flowing', async () => {
    const prefix = uniqueName('t');
    const service = await makeService(scaleEnv(prefix, 'replica-a'));
    services.push(service);
    const nc = await connect({ servers: NATS_URL });
    connections.push(nc);
    const js = nc.jetstream();
    // Not a bus record: no record header, and not JSON.
    await js.publish(`${prefix}.events.default`, StringCodec().encode('{"nodes": [truncated'));
    const after = await service.ingest(
      envelope([node('Service', 'after-the-poison'), node('Service', 'and-more')]),
    );
    expect(after.status).toBe(202);
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.order).toBe(2);
    expect(graph.someNode((_id, a) => a.name === 'after-the-poison')).toBe(true);
    const jsm = await nc.jetstreamManager();
    const dead = await waitFor('a dead letter', async () => {
      const info = await jsm.streams.info(streamNames(prefix).deadLetter);
      return info.state.messages === 1 && info;
    });
    expect(dead.state.messages).toBe(1);
    const letter = await jsm.streams.getMessage(streamNames(prefix).deadLetter, {
      seq: dead.state.first_seq,
    });
    expect(letter.subject).toBe(`${prefix}.deadletter.default`);
    expect(StringCodec().decode(letter.data)).toBe('{"nodes": [truncated');
    expect(letter.header.get('Pathgate-Origin-Seq')).toBe('1');
    expect(letter.header.get('Pathgate-Dead-Reason')).toMatch(/record header/);
  });

  it('carries a report cut into several chunks whole, each chunk sent from its pieces', async () => {
    const prefix = uniqueName('t');
    const service = await makeService(scaleEnv(prefix, 'replica-a'));
    services.push(service);
    // Over the bus's 1 MiB message limit, names and properties not ASCII: cut into slices whose JSON the
    // bus is handed in pieces (src/ingest/envelope-json.ts) and encodes one after another.
    const nodes = Array.from({ length: 6000 }, (_, i) =>
      node('Service', `svc-${i}-naïve-☃`, { note: `“${'p'.repeat(300)}”` }),
    );
    const answer = await service.ingest(envelope(nodes));
    expect(answer.status).toBe(202);
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    expect(graph.order).toBe(nodes.length);
    const names = new Set<string>();
    graph.forEachNode((_id, a) => void names.add(a.name));
    expect(names).toEqual(new Set(nodes.map((n) => n.name)));
    expect(
      graph.someNode((_id, a) => (a.props as { note?: string }).note === nodes[0].properties!.note),
    ).toBe(true);
  });

  it('answers 503 while NATS is down, resumes, and loses nothing acknowledged', async () => {
    const server = await OwnNatsServer.create();
    servers.push(server);
    await server.start();
    const prefix = uniqueName('t');
    const service = await makeService(scaleEnv(prefix, 'replica-a', server.url));
    services.push(service);
    const accepted: string[] = [];
    const statuses: number[] = [];
    let n = 0;
    async function send(): Promise<{ status: number; json: any; headers: Record<string, unknown> }> {
      const name = `service-${n++}`;
      const response = await service.ingest(envelope([node('Service', name)]));
      statuses.push(response.status);
      if (response.status === 202) accepted.push(name);
      return response;
    }
    // Ingest runs while the broker dies.
    let stop = false;
    const ingesting = (async () => {
      while (!stop) await send();
    })();
    await waitFor('some reports in', () => accepted.length >= 20);
    await server.kill();
    const refused = await waitFor('a 503', async () => {
      const response = await send();
      return response.status === 503 && response;
    });
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.headers['retry-after']).toBe('5');
    await waitFor('the gauge at 0', async () =>
      /^service_broker_connected 0$/m.test((await service.apiApp.inject({ url: '/metrics' })).body),
    );
    const whileDown = accepted.length;
    await send();
    expect(accepted.length).toBe(whileDown);
    await server.start();
    await waitFor('a 202 again', () => accepted.length > whileDown + 20, 30_000);
    stop = true;
    await ingesting;
    expect([...new Set(statuses)].filter((s) => s !== 202 && s !== 503)).toEqual([]);
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    const missing = accepted.filter((name) => !graph.someNode((_id, a) => a.name === name));
    expect(missing).toEqual([]);
  });

  it("starts a new replica from the leader's snapshot in PostgreSQL plus the stream after it", async () => {
    const prefix = uniqueName('t');
    const a = await makeService(scaleEnv(prefix, 'replica-a'));
    services.push(a);
    await waitFor('replica-a to lead', () => a.engine.isLeader());
    expect(await loadDemo(a)).toBe(true);
    await a.settle();
    await a.engine.takeSnapshot();
    // After the snapshot: one more report, then everything the snapshot covers ages out of the stream.
    const late = await a.ingest(envelope([node('Service', 'after-the-snapshot')]));
    expect(late.status).toBe(202);
    await a.settle();
    const nc = await connect({ servers: NATS_URL });
    connections.push(nc);
    const jsm = await nc.jetstreamManager();
    const { state } = await jsm.streams.info(streamNames(prefix).events);
    await jsm.streams.purge(streamNames(prefix).events, { seq: state.last_seq });
    expect((await jsm.streams.info(streamNames(prefix).events)).state.messages).toBe(1);

    const c = await makeService(scaleEnv(prefix, 'replica-c'));
    services.push(c);
    await c.settle();
    expect(openPaths(c)).toEqual(openPaths(a));
    expect(openPaths(c).length).toBeGreaterThan(0);
    const graph = c.engine.tenant('default')!.graph;
    expect(graph.order).toBe(a.engine.tenant('default')!.graph.order);
    expect(graph.someNode((_id, attrs) => attrs.name === 'after-the-snapshot')).toBe(true);
  });
});
