// GraphQL request limits (BENCH_SUITES=graphql): on estates of 2,000 and 10,000 open paths (internet-facing
// load balancers x databases through one service), the time and size of one full listing, and how fast
// the API refuses what used to freeze it: 1,000 aliases, and 100 aliases of `attackPaths { nodes steps }`
// with the alias limit lifted (refused by cost). Through the whole API listener (fastify inject).
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { loadSettings } from '../src/config/settings.js';
import { nodeId } from '../src/graph/ids.js';
import type { NodeLabel } from '../src/graph/vocabulary.js';
import { buildService, type Service } from '../app/service.js';
import { postEvents } from './estate.js';

const PATH_FIELDS =
  'id score logScore priority directAccess openForSeconds reopens nodes { id name label } steps { from to type probability weightBasis }';

const aliases = (n: number, selection: string) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;

async function wideEstate(starts: number, targets: number, env: Record<string, string>): Promise<Service> {
  const dataDir = 'bench-out/data-graphql';
  rmSync(dataDir, { recursive: true, force: true });
  const service = await buildService({
    settings: loadSettings({ DATA_DIR: dataDir, API_RATE_RPS: '100000', ANALYZER_THREADS: '1', ...env }),
    logger: pino({ level: 'silent' }),
  });
  const node = (label: NodeLabel, name: string, properties: object = {}) => ({
    id: nodeId(label, name),
    label,
    name,
    properties,
  });
  const hub = node('Service', 'hub');
  const lbs = Array.from({ length: starts }, (_, i) =>
    node('LoadBalancer', `lb-${i}`, { internet_exposed: true }),
  );
  const dbs = Array.from({ length: targets }, (_, i) => node('Database', `db-${i}`, { crown_jewel: true }));
  const edges = [
    ...lbs.map((lb) => ({ type: 'ROUTES_TO', from: lb.id, to: hub.id, exploit_probability: 0.9 })),
    ...dbs.map((db) => ({ type: 'CONNECTS_TO', from: hub.id, to: db.id, exploit_probability: 0.5 })),
  ];
  await postEvents(service.ingestApp, {
    source: 'bench',
    kind: 'asset',
    observed_at: '2026-11-01T00:00:00Z',
    nodes: [hub, ...lbs, ...dbs],
    edges,
  });
  await service.engine.drain();
  await service.engine.analyzeAll();
  return service;
}

/** Milliseconds and bytes of one POST /graphql, and the limit named when refused. */
async function timed(service: Service, query: string) {
  const began = performance.now();
  const response = await service.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query }),
  });
  const ms = performance.now() - began;
  const limit = response.statusCode === 400 ? (response.json() as { limit?: string }).limit : undefined;
  return { ms, bytes: response.rawPayload.length, status: response.statusCode, limit };
}

export async function runGraphqlBench(): Promise<void> {
  console.log('GraphQL request limits');
  for (const [starts, targets] of [
    [40, 50],
    [100, 100],
  ]) {
    const service = await wideEstate(starts, targets, { GRAPHQL_MAX_ALIASES: '1000' });
    try {
      const paths = starts * targets;
      const report = (label: string, r: Awaited<ReturnType<typeof timed>>) =>
        console.log(
          `  ${paths} paths, ${label}: ${r.status}${r.limit ? ` ${r.limit}` : ''} in ${r.ms.toFixed(1)} ms, ${(r.bytes / 1048576).toFixed(2)} MiB`,
        );
      report('one full listing', await timed(service, `{ attackPaths { ${PATH_FIELDS} } }`));
      report('one page of 500', await timed(service, `{ attackPaths(first: 500) { ${PATH_FIELDS} } }`));
      report('1,000 aliases', await timed(service, aliases(1000, `attackPaths { ${PATH_FIELDS} }`)));
      report(
        '100 aliases of attackPaths { nodes steps } (alias limit lifted)',
        await timed(service, aliases(100, 'attackPaths { nodes { id } steps { from } }')),
      );
    } finally {
      await service.close();
    }
  }
}
