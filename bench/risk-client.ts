// riskSimulation at the client (BENCH_SUITES=riskclient; issue 38): the 100k estate (the shared generator's
// file) sent through the service's real ingest path (envelopes of at most 30 MiB, nodes first) into a
// service built in this process, analyzed until its paths are ready; then `riskSimulation(iterations: 1000)`
// asked as a client asks it (POST /graphql through the API listener, fastify inject: routing, auth, limits,
// the resolver, the analysis slot and its worker thread, the answer serialized) in turns with the yardstick
// (../shared/bench/limit.cpp, `--iters 1000`, phase mc_bitpar), several rounds, medians compared. Also the
// first request after a write (the graph forked again), and where a request's time goes.
// Also runnable alone: npx tsx bench/risk-client.ts [estate.json] [--limit path/to/limit] [--rounds N]
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadSettings } from '../src/config/settings.js';
import { nodeId } from '../src/graph/ids.js';
import { buildService, type Service } from '../app/service.js';
import { ingestEstate, postEvents } from './estate.js';
import { ensureYardstick } from './yardstick.js';

const QUERY = `query Risk($seed: Int!) {
  riskSimulation(iterations: 1000, seed: $seed) {
    iterations seed anyCompromiseProbability anyCiLow anyCiHigh expectedCompromised mixtureCompromiseProbability
    profileCompromise { profile weight correlation anyCompromiseProbability expectedCompromised }
    crownJewels { name node { id label } compromiseProbability ciLow ciHigh mixtureCompromiseProbability }
  }
}`;

interface Answer {
  data?: {
    riskSimulation: {
      expectedCompromised: number;
      crownJewels: { compromiseProbability: number }[];
    } | null;
  };
  errors?: { message: string }[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const ms = (x: number) => x.toFixed(1);

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

/** The yardstick's mc_bitpar line (1,000 worlds). */
function yardstickMonteCarlo(file: string, binary: string): { seconds: number; mean: number } {
  const out = execFileSync(binary, [file, '--iters', '1000'], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.startsWith('mc_bitpar:'))!;
  const field = (k: string) => Number(new RegExp(`${k}=([-\\d.e]+)`).exec(line)![1]);
  return { seconds: field('time_s'), mean: field('mean_target_p') };
}

/** One riskSimulation request at the client: wall time, bytes, the mean target compromise. */
async function ask(service: Service, seed: number) {
  const began = performance.now();
  const response = await service.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query: QUERY, variables: { seed } }),
  });
  const wall = performance.now() - began;
  const body = response.json() as Answer;
  const sim = body.data?.riskSimulation;
  if (response.statusCode !== 200 || !sim)
    throw new Error(`bench: riskSimulation answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  const mean = sim.expectedCompromised / Math.max(1, sim.crownJewels.length);
  return {
    wall,
    bytes: response.rawPayload.length,
    mean,
    timings: structuredClone(service.analyses.lastTimings),
  };
}

function breakdown(r: Awaited<ReturnType<typeof ask>>): string {
  const t = r.timings;
  const p = t.phases;
  const inside = p ? p.world + p.worlds + p.comonotone + p.shape : 0;
  const rest = r.wall - t.wait - t.graph - t.compute;
  return (
    `slot wait ${ms(t.wait)}, graph fork ${ms(t.graph)}, ` +
    (p
      ? `world graph (pruning) ${ms(p.world)}, simulation ${ms(p.worlds)}, shared-skill part ${ms(p.comonotone)}, ` +
        `answer shaped ${ms(p.shape)}, worker round trip ${ms(t.compute - inside)}, `
      : `analysis ${ms(t.compute)}, `) +
    `request, resolver view and serialization ${ms(rest)} (ms; ${r.bytes} bytes)`
  );
}

export async function runRiskClientBench(
  estateFile: string,
  yardstick: { binary: string; source: string },
  rounds = Number(process.env.BENCH_RISK_ROUNDS ?? 7),
): Promise<void> {
  console.log(
    `\n== riskSimulation(iterations: 1000) at the client on ${path.basename(estateFile)} (${os.availableParallelism()} cores, shared; load ${loadAverage()}) ==`,
  );
  ensureYardstick(yardstick.binary, yardstick.source);
  const dataDir = path.resolve(path.dirname(estateFile), 'data-risk-client');
  rmSync(dataDir, { recursive: true, force: true });
  const service = await buildService({
    settings: loadSettings({ DATA_DIR: dataDir, API_RATE_RPS: '100000', ANALYZER_THREADS: '1' }),
    logger: pino({ level: 'silent' }),
  });
  try {
    const began = performance.now();
    await ingestEstate(service.ingestApp, estateFile);
    await service.engine.drain();
    await service.engine.analyzeAll();
    const tenant = service.engine.tenant('default')!;
    console.log(
      `  ingest -> paths ready ${((performance.now() - began) / 1000).toFixed(2)} s: ${tenant.graph.order} nodes, ${tenant.graph.size} edges, ${tenant.paths.open().length} open paths`,
    );

    // The first request starts the worker thread (and JIT-compiles the simulation): not counted.
    const first = await ask(service, 1);
    console.log(`  first request (worker started, graph forked): ${ms(first.wall)} ms; ${breakdown(first)}`);

    const ours: Awaited<ReturnType<typeof ask>>[] = [];
    const theirs: { seconds: number; mean: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      ours.push(await ask(service, round + 1));
      theirs.push(yardstickMonteCarlo(estateFile, yardstick.binary));
    }
    const oursMs = ours.map((r) => r.wall);
    const theirsMs = theirs.map((r) => r.seconds * 1000);
    const typical = ours.find((r) => r.wall === median(oursMs))!;
    const ratio = median(oursMs) / median(theirsMs);
    console.log(
      `  at the client, ${rounds} rounds in turns with the yardstick: median ${ms(median(oursMs))} ms ` +
        `(${oursMs.map(ms).join(', ')}); mc_bitpar median ${ms(median(theirsMs))} ms (${theirsMs.map(ms).join(', ')}): ` +
        `ratio of medians ${ratio.toFixed(2)}x (goal <= 1.5x: ${ratio <= 1.5 ? 'met' : 'NOT met'})`,
    );
    console.log(`  the median request: ${breakdown(typical)}`);
    const meanOurs = median(ours.map((r) => r.mean));
    const meanTheirs = median(theirs.map((r) => r.mean));
    console.log(
      `  mean target compromise: ours ${meanOurs.toFixed(4)} (median over seeds 1..${rounds}), the yardstick ${meanTheirs.toFixed(4)}` +
        ` (${Math.abs(meanOurs - meanTheirs) < 0.01 ? 'the same within Monte Carlo noise' : 'DIFFERENT'})`,
    );

    // After a write the graph is forked again (one node's properties changed, a pass not yet run).
    const afterWrite: number[] = [];
    let last!: Awaited<ReturnType<typeof ask>>;
    for (let i = 0; i < 3; i++) {
      await postEvents(service.ingestApp, {
        source: 'bench',
        kind: 'asset',
        observed_at: '2025-01-01T00:00:00.000Z',
        nodes: [
          {
            id: nodeId('Service', 'bench-touch'),
            label: 'Service',
            name: 'bench-touch',
            properties: { n: i },
          },
        ],
        edges: [],
      });
      await service.engine.drain();
      last = await ask(service, 1);
      afterWrite.push(last.wall);
    }
    console.log(
      `  first request after a write (graph forked again): median ${ms(median(afterWrite))} ms (${afterWrite.map(ms).join(', ')}); ${breakdown(last)}`,
    );
    console.log(`  load after: ${loadAverage()}`);
  } finally {
    await service.analyses.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('bench/risk-client.ts')) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const named = process.argv[2]?.startsWith('--') ? undefined : process.argv[2];
  const file = named ?? path.join(root, 'bench-out', 'e100000-s64-t32.json');
  const at = process.argv.indexOf('--limit');
  const roundsAt = process.argv.indexOf('--rounds');
  await runRiskClientBench(
    file,
    {
      binary: at > 0 ? process.argv[at + 1] : path.join(root, 'bench-out', 'limit'),
      source: path.resolve(root, '..', 'shared', 'bench', 'limit.cpp'),
    },
    roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : undefined,
  );
}
