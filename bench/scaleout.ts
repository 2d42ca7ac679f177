// The scale-out suite (BENCH_SUITES=scaleout): the 100k estate through NATS JetStream (docs/deployment.md).
// Two replicas in child processes on the real servers (scripts/services.sh): the estate is sent to one,
// then: ingest throughput (acknowledged by JetStream), and ingest -> paths ready on the replica that took the
// reports and on the other one, which only reads the stream. Figures beside the embedded ones in docs/perf.md.
//   BENCH_NATS_URL (nats://127.0.0.1:4222)  BENCH_PG_DSN (postgres://postgres@127.0.0.1:5432/test)
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { connect } from 'nats';
import pg from 'pg';
import { streamNames } from '../src/bus/jetstream.js';
import { startBenchService, type BenchService } from './child.js';
import { estateRequests } from './estate.js';

const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const PG_DSN = process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Replica extends BenchService {
  name: string;
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function startReplica(
  root: string,
  outDir: string,
  name: string,
  env: Record<string, string>,
): Promise<Replica> {
  const dataDir = path.join(outDir, `scaleout-${name}`);
  return startBenchService(root, dataDir, { ...env, BUS_CONSUMER: name }).then((service) => ({
    name,
    ...service,
  }));
}

async function status(apiUrl: string): Promise<{ nodes: number; passes: number; upToDate: boolean }> {
  const response = await fetch(`${apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ status { graph { nodes } analyzer { passes upToDate } } }' }),
  });
  const { data } = (await response.json()) as {
    data: { status: { graph: { nodes: number }; analyzer: { passes: number; upToDate: boolean } } };
  };
  return { nodes: data.status.graph.nodes, ...data.status.analyzer };
}

export async function runScaleOutBench(root: string, outDir: string, estate: string, nodes: number) {
  console.log(`scale-out: estate ${nodes} nodes through NATS JetStream (${NATS_URL}), two replicas`);
  if (!(await reachable(NATS_URL)) || !(await reachable(PG_DSN))) {
    console.log('  skipped: NATS or PostgreSQL unreachable (run: bash scripts/services.sh)');
    return;
  }
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const schema = prefix;
  const admin = new pg.Client({ connectionString: PG_DSN });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dsn = new URL(PG_DSN);
  dsn.searchParams.set('options', `-c search_path=${schema}`);
  const env = { BUS_URL: NATS_URL, BUS_SUBJECT_PREFIX: prefix, DB_DSN: dsn.toString() };
  const replicas: Replica[] = [];
  try {
    const [a, b] = [
      await startReplica(root, outDir, 'bench-a', env),
      await startReplica(root, outDir, 'bench-b', env),
    ];
    replicas.push(a, b);
    const bodies: string[] = [];
    for await (const body of estateRequests(estate)) bodies.push(body);
    let records = 0;
    const began = performance.now();
    for (const body of bodies) {
      const response = await fetch(`${a.ingestUrl}/ingest/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (response.status !== 202)
        throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
      const receipt = (await response.json()) as { nodes: number; edges: number };
      records += receipt.nodes + receipt.edges;
    }
    const acknowledged = performance.now();
    const ready = new Map<string, number>();
    const deadline = Date.now() + 15 * 60_000;
    while (ready.size < replicas.length) {
      if (Date.now() > deadline) throw new Error('bench: the replicas did not catch up within 15 minutes');
      for (const r of replicas) {
        if (ready.has(r.name)) continue;
        const s = await status(r.apiUrl);
        if (s.nodes === nodes && s.upToDate && s.passes > 0) ready.set(r.name, performance.now());
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (acknowledged - began) / 1000;
    console.log(
      `  ingest: ${records} records in ${seconds.toFixed(2)} s = ${Math.round(records / seconds)} nodes+edges/s (${bodies.length} requests, acknowledged by JetStream)`,
    );
    for (const r of replicas)
      console.log(
        `  ingest -> paths ready on ${r.name}${r === a ? ' (took the reports)' : ' (reads the stream only)'}: ${((ready.get(r.name)! - began) / 1000).toFixed(2)} s`,
      );
  } finally {
    for (const r of replicas) r.stop();
    await admin.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await admin.end();
    // The bench's streams go too.
    const nc = await connect({ servers: NATS_URL }).catch(() => undefined);
    if (nc) {
      const jsm = await nc.jetstreamManager();
      const names = streamNames(prefix);
      await jsm.streams.delete(names.events).catch(() => undefined);
      await jsm.streams.delete(names.deadLetter).catch(() => undefined);
      await nc.close();
    }
  }
}
