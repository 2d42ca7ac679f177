// `pathgate genload`: synthetic load against a running service, bounded in rate, duration, size and requests
// in flight. Each tick either posts a synthetic estate (an event envelope of internet-facing load balancers,
// services and databases, seeded, so two runs with one seed send the same reports) to the ingest listener,
// or asks the API for the posture, alternately (`-mix`). Loopback only unless -allow-remote: load is never
// aimed at another machine by a typo. Ingest is signed (v2) with $INGEST_HMAC_SECRET, the API asked with
// $PATHGATE_API_TOKEN, when set.
import { performance } from 'node:perf_hooks';
import { signedPostHeaders } from '../src/auth/ingest-signature.js';
import { parseDuration } from '../src/config/duration.js';
import { nodeId } from '../src/graph/ids.js';
import type { NodeLabel } from '../src/graph/vocabulary.js';
import { describeError, EXIT_USAGE, parseOrExit, type CommandSpec } from './cli-flags.js';
import type { CliIo } from './cli-commands.js';
import { isLoopbackUrl } from './loopback.js';

export const GENLOAD_COMMAND = {
  name: 'genload',
  summary: 'send synthetic load (ingest and API reads) to a running service, bounded in rate and duration',
  synopsis: '[-ingest URL] [-api URL] [-rate N] [-duration D] [-nodes N] [-mix M] [-seed S] [-allow-remote]',
  description:
    'Posts seeded synthetic estates (POST /ingest/events, partial reports: nothing is retracted) and asks GET-like GraphQL reads (posture, status), at most -rate requests a second for -duration, at most 16 in flight (a tick finding 16 in flight is skipped and counted). Only loopback addresses unless -allow-remote. Signs ingest (v2) with $INGEST_HMAC_SECRET and sends $PATHGATE_API_TOKEN to the API when set. Prints requests by kind and status and latency percentiles.',
  flags: {
    ingest: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8081',
      help: 'the ingest listener',
    },
    api: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8080',
      help: 'the API listener',
    },
    rate: { type: 'string', value: 'N', default: '10', help: 'requests per second, 1 to 1000' },
    duration: { type: 'string', value: 'D', default: '30s', help: 'how long, 1s to 1h (e.g. 30s, 5m)' },
    nodes: { type: 'string', value: 'N', default: '30', help: 'nodes per synthetic report, 3 to 10000' },
    mix: {
      type: 'string',
      value: 'M',
      default: 'both',
      choices: ['both', 'ingest', 'read'],
      help: 'what the requests are',
    },
    seed: { type: 'string', value: 'S', default: '1', help: 'the generator seed (whole number)' },
    tenant: { type: 'string', value: 'T', help: 'the tenant (X-Tenant on ingest)' },
    'allow-remote': { type: 'boolean', help: 'allow a -ingest or -api that is not a loopback address' },
  },
  exits:
    '0 every request answered 2xx, 1 some did not (or none reached the service), 2 the first request could not reach the service',
} as const satisfies CommandSpec;

const MAX_IN_FLIGHT = 16;

/** mulberry32: the same sequence for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One synthetic estate of `nodes` nodes: a tenth internet-facing load balancers, a tenth crown-jewel
 * databases, services between; each load balancer routes to services, services reach databases. Names
 * carry the seed and round, so rounds add to the graph instead of rewriting it.
 */
export function syntheticEstate(nodes: number, seed: number, round: number): Record<string, unknown> {
  const random = prng(seed * 1_000_003 + round);
  const lbs = Math.max(1, Math.floor(nodes / 10));
  const dbs = Math.max(1, Math.floor(nodes / 10));
  const services = Math.max(1, nodes - lbs - dbs);
  const name = (kind: string, i: number) => `genload-${seed}-${round}-${kind}-${i}`;
  const out: { nodes: unknown[]; edges: unknown[] } = { nodes: [], edges: [] };
  const node = (label: NodeLabel, n: string, properties: Record<string, unknown> = {}) =>
    out.nodes.push({ id: nodeId(label, n), label, name: n, properties });
  for (let i = 0; i < lbs; i++) node('LoadBalancer', name('lb', i), { internet_exposed: true });
  for (let i = 0; i < services; i++) node('Service', name('svc', i));
  for (let i = 0; i < dbs; i++) node('Database', name('db', i), { crown_jewel: true });
  const pick = (n: number) => Math.floor(random() * n);
  const p = () => Math.round((0.2 + random() * 0.7) * 100) / 100;
  for (let i = 0; i < lbs; i++)
    out.edges.push({
      type: 'ROUTES_TO',
      from: nodeId('LoadBalancer', name('lb', i)),
      to: nodeId('Service', name('svc', pick(services))),
      exploit_probability: p(),
    });
  for (let i = 0; i < services; i++) {
    // Another service (never itself: an edge may not loop), or a database.
    const other = (i + 1 + pick(Math.max(1, services - 1))) % services;
    out.edges.push({
      type: random() < 0.5 ? 'CONNECTS_TO' : 'HAS_PERMISSION',
      from: nodeId('Service', name('svc', i)),
      to:
        services === 1 || random() < 0.3
          ? nodeId('Database', name('db', pick(dbs)))
          : nodeId('Service', name('svc', other)),
      exploit_probability: p(),
    });
  }
  return { source: 'genload', kind: 'asset', observed_at: new Date(0).toISOString(), ...out };
}

function bounded(flag: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value >= min && value <= max))
    throw new RangeError(`-${flag} ${JSON.stringify(text)} is not a whole number from ${min} to ${max}`);
  return value;
}

function percentile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export async function genloadCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(GENLOAD_COMMAND, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  let rate: number, nodes: number, seed: number, durationMs: number;
  try {
    rate = bounded('rate', values.rate, 1, 1000);
    nodes = bounded('nodes', values.nodes, 3, 10_000);
    seed = bounded('seed', values.seed, 0, 2 ** 31);
    try {
      durationMs = parseDuration(values.duration);
    } catch {
      durationMs = NaN;
    }
    if (!(durationMs >= 1000 && durationMs <= 3_600_000))
      throw new RangeError(`-duration ${JSON.stringify(values.duration)} is not a duration from 1s to 1h`);
  } catch (error) {
    io.err(`pathgate genload: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  const mix = values.mix;
  const targets = [...(mix !== 'read' ? [values.ingest] : []), ...(mix !== 'ingest' ? [values.api] : [])];
  const remote = targets.filter((u) => !isLoopbackUrl(u));
  if (remote.length && !values['allow-remote']) {
    io.err(
      `pathgate genload: ${remote.map((u) => JSON.stringify(u)).join(' and ')} is not a loopback address; load goes to this machine only unless -allow-remote is given\n`,
    );
    return EXIT_USAGE;
  }
  const secret = io.env.INGEST_HMAC_SECRET || undefined;
  const token = io.env.PATHGATE_API_TOKEN || undefined;
  const counts = new Map<string, number>();
  const latencies: number[] = [];
  let round = 0;
  let inFlight = 0;
  let skipped = 0;
  let unreachable: unknown;
  let reached = false;
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const firstDetail = new Map<string, string>();

  async function send(kind: 'ingest' | 'read'): Promise<void> {
    const startedAt = performance.now();
    try {
      let response: Response;
      if (kind === 'ingest') {
        const url = new URL('/ingest/events', values.ingest);
        const body = JSON.stringify(syntheticEstate(nodes, seed, round++));
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (values.tenant) headers['x-tenant'] = values.tenant;
        if (secret) Object.assign(headers, signedPostHeaders(secret, url, body));
        response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
      } else {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (token) headers.authorization = `Bearer ${token}`;
        response = await fetch(new URL('/graphql', values.api), {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: '{ posture { criticalPaths } status { nodes edges } }' }),
          signal: AbortSignal.timeout(30_000),
        });
      }
      const text = await response.text();
      reached = true;
      const key = `${kind} ${response.status}`;
      count(key);
      // The first refusal of each kind is shown: its problem detail says what was wrong.
      if (!response.ok && !firstDetail.has(key))
        firstDetail.set(
          key,
          ((JSON.parse(text || '{}') as { detail?: string }).detail ?? text).slice(0, 300),
        );
      latencies.push(performance.now() - startedAt);
    } catch (error) {
      unreachable ??= error;
      count(`${kind} unreachable`);
    }
  }

  const started = performance.now();
  const pending = new Set<Promise<void>>();
  let tick = 0;
  while (performance.now() - started < durationMs) {
    const kind = mix === 'both' ? (tick % 2 === 0 ? 'ingest' : 'read') : (mix as 'ingest' | 'read');
    tick++;
    if (inFlight >= MAX_IN_FLIGHT) skipped++;
    else {
      inFlight++;
      const request = send(kind).finally(() => {
        inFlight--;
        pending.delete(request);
      });
      pending.add(request);
    }
    // Paced from the start, so a slow answer does not slow the rate of the ones after it.
    const next = started + (tick * 1000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    if (!reached && unreachable && pending.size === 0) break;
  }
  await Promise.all(pending);
  if (!reached) {
    io.err(`pathgate genload: cannot reach the service: ${describeError(unreachable)}\n`);
    return 2;
  }
  latencies.sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  io.out(
    `${total} requests in ${seconds.toFixed(1)}s (${(total / seconds).toFixed(1)}/s), ${skipped} ticks skipped (${MAX_IN_FLIGHT} in flight)\n`,
  );
  for (const [key, n] of [...counts].sort())
    io.out(`  ${key}: ${n}${firstDetail.has(key) ? ` (first: ${firstDetail.get(key)})` : ''}\n`);
  io.out(
    `  latency ms: p50 ${percentile(latencies, 0.5).toFixed(1)}, p95 ${percentile(latencies, 0.95).toFixed(1)}, max ${(latencies.at(-1) ?? 0).toFixed(1)}\n`,
  );
  const failed = [...counts].filter(([key]) => !/ 2\d\d$/.test(key)).reduce((a, [, n]) => a + n, 0);
  return failed ? 1 : 0;
}
