// Merge gate latency (BENCH_SUITES=gate): a 200-vulnerability Trivy report of an image the 100k-node
// synthetic estate runs (a no-op for the routes: the estate's hops carry their own probabilities), through
// POST /gate/impact of a service in a child process: p50/p95 of sequential calls, then of 8 concurrent calls
// while ingest keeps running (BENCH_GATE_ROUNDS rounds, 3 by default), and the median ingest request
// meanwhile. Then a route-opening report (raw events: a new internet-facing load balancer routing to the
// services a live one routes to, by id), sequentially. Both against the yardstick's full path search
// (../shared/bench/limit.cpp) on the same file in the same run (median of 3).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startBenchService } from './child.js';
import { estateRequests } from './estate.js';
import { ensureYardstick } from './yardstick.js';

const SEQUENTIAL = Number(process.env.BENCH_GATE_CALLS ?? 20);
const CONCURRENT = 8;
const ROUNDS = Number(process.env.BENCH_GATE_ROUNDS ?? 3);

interface GateBenchAnswer {
  verdict: string;
  analysed: boolean;
  opened?: unknown[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The first image of the estate (the generator names them `<app>:<n>`). */
function firstImage(file: string): string {
  const match = /"label":"Image","name":"([^"]+)"/.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error('bench: the estate has no Image node');
  return match[1];
}

function report(image: string, vulnerabilities = 200): string {
  const findings = Array.from({ length: vulnerabilities }, (_, i) => ({
    VulnerabilityID: `CVE-2099-${String(20000 + i)}`,
    PkgName: `libbench${i % 40}`,
    InstalledVersion: '1.0.0',
    FixedVersion: '1.0.1',
    Severity: ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'][i % 4],
    CVSS: { nvd: { V3Score: 3 + (i % 7) } },
    Title: `bench finding ${i}`,
  }));
  return JSON.stringify({
    SchemaVersion: 2,
    ArtifactName: image,
    ArtifactType: 'container_image',
    Results: [{ Target: image, Class: 'os-pkgs', Type: 'debian', Vulnerabilities: findings }],
  });
}

/**
 * A raw-events report that opens routes: a new internet-facing load balancer with ROUTES_TO edges to the
 * services the estate's first internet-facing load balancer routes to, those services named by id only.
 */
function routeOpeningReport(file: string): string {
  const text = readFileSync(file, 'utf8');
  const start =
    /\{"id":"(LoadBalancer:[0-9a-f]{16})","label":"LoadBalancer","name":"[^"]+","properties":\{"internet_exposed":true\}/.exec(
      text,
    );
  if (!start) throw new Error('bench: the estate has no internet-facing LoadBalancer');
  const targets = [
    ...text.matchAll(
      new RegExp(`\\{"type":"ROUTES_TO","from":"${start[1]}","to":"(Service:[0-9a-f]{16})"`, 'g'),
    ),
  ].map((m) => m[1]);
  if (!targets.length) throw new Error('bench: the load balancer routes nowhere');
  const name = 'bench-pr-alb';
  const id = `LoadBalancer:${createHash('sha1').update(name).digest('hex').slice(0, 16)}`;
  const lb = { id, label: 'LoadBalancer', name, properties: { internet_exposed: true } };
  return JSON.stringify({
    source: 'bench-pr',
    kind: 'asset',
    observed_at: '2025-01-01T00:00:00.000Z',
    nodes: [lb],
    edges: targets.map((to) => ({
      type: 'ROUTES_TO',
      from: id,
      to,
      exploit_probability: 0.95,
    })),
  });
}

/** The yardstick's full best-path search on the same file, seconds, `runs` times. */
function limitSeconds(estateFile: string, binary: string, source: string, runs = 3): number[] | null {
  try {
    ensureYardstick(binary, source);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const out = execFileSync(binary, [estateFile, '--iters', '0'], { encoding: 'utf8' });
      const line = out.split('\n').find((l) => l.startsWith('paths:'))!;
      times.push(Number(/time_s=([\d.e-]+)/.exec(line)![1]));
    }
    return times;
  } catch (error) {
    console.log(`  yardstick unavailable: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
}

export async function runGateBench(
  root: string,
  outDir: string,
  estateFile: string,
  yardstick?: { binary: string; source: string },
): Promise<void> {
  const service = await startBenchService(root, `${outDir}/data-gate`);
  try {
    const { ingestUrl, apiUrl } = service;
    for await (const body of estateRequests(estateFile)) {
      const r = await fetch(`${ingestUrl}/ingest/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (r.status !== 202) throw new Error(`bench: ingest answered ${r.status}`);
    }
    // Ready: every node in, and a pass over all of it.
    for (;;) {
      const r = await fetch(`${apiUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ status { graph { nodes } analyzer { upToDate passes } } }' }),
      });
      const { data } = (await r.json()) as {
        data: { status: { graph: { nodes: number }; analyzer: { upToDate: boolean; passes: number } } };
      };
      if (
        data.status.graph.nodes >= 100_000 &&
        data.status.analyzer.upToDate &&
        data.status.analyzer.passes > 0
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const body = report(firstImage(estateFile));
    let bytes = 0;
    const gate = async (what = body, source = 'trivy', expect?: (answer: GateBenchAnswer) => boolean) => {
      const began = performance.now();
      const r = await fetch(`${apiUrl}/gate/impact?source=${source}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: what,
      });
      const text = await r.text();
      const elapsed = performance.now() - began;
      const answer = JSON.parse(text) as GateBenchAnswer;
      if (r.status !== 200 || !answer.analysed || (expect && !expect(answer)))
        throw new Error(`bench: the gate answered ${r.status} ${text.slice(0, 2000)}`);
      bytes = text.length;
      return elapsed;
    };
    // The yardstick runs before and after the gate calls (3 + 3 runs, the median of all): on a shared host
    // both then see the same load.
    const limitRuns = yardstick ? limitSeconds(estateFile, yardstick.binary, yardstick.source) : null;
    let limit = limitRuns ? percentile(limitRuns, 50) : null;
    const ratio = (ms: number) => (limit ? ` (${(ms / 1000 / limit).toFixed(2)}x the limit)` : '');
    await gate(); // warm-up
    const sequential: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await gate());
    console.log('merge gate, 200-vulnerability Trivy report against the 100k-node estate');
    const p50 = percentile(sequential, 50);
    const noopBytes = bytes;
    const opening = routeOpeningReport(estateFile);
    const opens = (answer: GateBenchAnswer) => (answer.opened?.length ?? 0) > 0;
    await gate(opening, 'events', opens); // warm-up
    const openingTimes: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) openingTimes.push(await gate(opening, 'events', opens));
    const after = limitRuns && yardstick && limitSeconds(estateFile, yardstick.binary, yardstick.source);
    if (limitRuns && after) {
      limit = percentile([...limitRuns, ...after], 50);
      console.log(
        `  yardstick: full path search p50 ${(limit * 1000).toFixed(0)} ms (runs ${[...limitRuns, ...after].map((t) => (t * 1000).toFixed(0)).join(' / ')} ms)`,
      );
    }
    const p50o = percentile(openingTimes, 50);
    console.log(
      `  no-op report, sequential (${SEQUENTIAL} calls): p50 ${p50.toFixed(0)} ms${ratio(p50)}, p95 ${percentile(sequential, 95).toFixed(0)} ms, answer ${(noopBytes / 1024).toFixed(1)} KiB`,
    );
    console.log(
      `  route-opening report (a new load balancer, by id to live services), sequential (${SEQUENTIAL} calls): p50 ${p50o.toFixed(0)} ms${ratio(p50o)}, p95 ${percentile(openingTimes, 95).toFixed(0)} ms, answer ${(bytes / 1024).toFixed(1)} KiB`,
    );

    // Ingest keeps running: small reports back to back, each timed, until the gate calls are done. Several
    // rounds of eight concurrent calls, so that the ingest median rests on enough requests.
    const concurrent: number[] = [];
    const ingestTimes: number[] = [];
    const walls: number[] = [];
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let ingesting = true;
      const ingestLoop = (async () => {
        while (ingesting) {
          const began = performance.now();
          const r = await fetch(`${ingestUrl}/ingest/events`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              source: 'bench',
              kind: 'asset',
              observed_at: '2025-01-01T00:00:00.000Z',
              nodes: Array.from({ length: 50 }, (_, i) => ({
                label: 'Service',
                name: `bench-extra-${n}-${i}`,
              })),
              edges: [],
            }),
          });
          if (r.status !== 202) throw new Error(`bench: ingest answered ${r.status} during the gate calls`);
          ingestTimes.push(performance.now() - began);
          n++;
        }
      })();
      const began = performance.now();
      concurrent.push(...(await Promise.all(Array.from({ length: CONCURRENT }, () => gate()))));
      walls.push(performance.now() - began);
      ingesting = false;
      await ingestLoop;
    }
    console.log(
      `  ${CONCURRENT} concurrent calls while ingest runs (${ROUNDS} rounds): p50 ${percentile(concurrent, 50).toFixed(0)} ms, p95 ${percentile(concurrent, 95).toFixed(0)} ms (each round done in ${walls.map((w) => w.toFixed(0)).join(' / ')} ms)`,
    );
    console.log(
      `  ingest during the concurrent calls: median ${percentile(ingestTimes, 50).toFixed(1)} ms over ${ingestTimes.length} requests of 50 nodes (goal <= 10 ms), p95 ${percentile(ingestTimes, 95).toFixed(0)} ms, max ${Math.max(...ingestTimes).toFixed(0)} ms`,
    );
  } finally {
    service.stop();
  }
}
