// Makes fixtures/stores/format-1/: a DATA_DIR written by the engine of the day (snapshot format 1, the
// graphology tenant graph), and expected.json, what that code holds once it is open (issue 38: stores written
// by the current version open after the upgrade; test/engine/store-upgrade.test.ts opens it with the code of
// its own day). Real reports (fixtures/real): an ingress-nginx Kubernetes manifest as a complete snapshot of
// its cluster (a non-empty scope ledger and a path), Falco alerts of that cluster, a Trivy image scan
// (self-declared scope) and an IAM export; then one event envelope of the ingest contract whose edge names a
// workload not reported yet (a parked edge). Run only from code whose store is the one to keep:
//   npx tsx scripts/make-store-fixture.ts
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { nodeId } from '../src/graph/ids.js';
import { ndjsonToArray, yamlToList } from '../src/ingest/yaml.js';
import { REAL } from '../test/helpers/normalize.js';
import { makeService, tempDir } from '../test/helpers/service.js';
import { describeTenant, FIXTURE_MADE_AT, FIXTURE_TENANT } from '../test/helpers/store-fixture.js';

const OUT = new URL('../fixtures/stores/format-1/', import.meta.url).pathname;

const read = (relative: string): unknown => {
  const text = readFileSync(path.join(REAL, relative), 'utf8');
  if (relative.endsWith('.ndjson')) return ndjsonToArray(text);
  return relative.endsWith('.json') ? JSON.parse(text) : yamlToList(text);
};

/** The reports, in order: [fixture, source, query]. */
export const REPORTS: [string, string, string | undefined][] = [
  ['k8s/ingress-nginx/deploy-cloud.yaml', 'k8s', 'cluster=lab&snapshot=cluster:lab'],
  ['falco/falco-website-syscall-alerts.ndjson', 'falco', 'cluster=lab'],
  ['trivy/alpine-310-registry.json', 'trivy', undefined],
  ['iam/cloudsplaining-test-example-authz-details.json', 'iam', undefined],
];

/** An edge of the ingest contract into a workload of the cluster that no report has carried yet: parked. */
const controller = nodeId('Service', 'lab/ingress-nginx/ingress-nginx-controller');
const PARKED_ENVELOPE = {
  source: 'events',
  kind: 'relationship',
  observed_at: new Date(FIXTURE_MADE_AT).toISOString(),
  nodes: [],
  edges: [
    {
      type: 'CONNECTS_TO',
      from: controller,
      to: nodeId('Service', 'lab/shop/checkout'),
      exploit_probability: 0.5,
    },
  ],
};

async function main(): Promise<void> {
  const dataDir = await tempDir('pathgate-store-fixture-');
  let tick = 0;
  // A fixed clock: the receipts, passes and snapshot times of the fixture do not depend on when it was made.
  const now = () => FIXTURE_MADE_AT + tick;
  const service = await makeService({ SNAPSHOT_INTERVAL: '1h' }, { dataDir, now });
  for (const [fixture, source, query] of REPORTS) {
    tick += 1_000;
    const answer = await service.ingest(read(fixture), { source, query });
    if (answer.status !== 202) throw new Error(`${fixture}: ${answer.status} ${JSON.stringify(answer.json)}`);
    await service.settle();
  }
  tick += 1_000;
  const parked = await service.ingest(PARKED_ENVELOPE);
  if (parked.status !== 202) throw new Error(`parked edge: ${parked.status} ${JSON.stringify(parked.json)}`);
  await service.settle();
  const state = service.engine.tenant(FIXTURE_TENANT)!;
  const expected = describeTenant(state);
  if (!expected.paths.length || !expected.pendingEdges || !expected.scopes.scopes.length)
    throw new Error(`the fixture lacks a path, a parked edge or a scope: ${JSON.stringify(expected)}`);
  // Closing writes the final snapshot.
  await service.dispose({ keepData: true });

  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  // What reopening needs: the snapshot and the path log (the journal is covered by the snapshot).
  await cp(path.join(dataDir, 'state'), path.join(OUT, 'data', 'state'), { recursive: true });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  await writeFile(
    path.join(OUT, 'expected.json'),
    `${JSON.stringify({ madeWith: commit, madeAt: new Date(FIXTURE_MADE_AT).toISOString(), tenant: FIXTURE_TENANT, ...expected }, null, 2)}\n`,
  );
  console.log(`data dir had: ${(await readdir(dataDir)).join(', ')}`);
  console.log(
    `fixtures/stores/format-1 written (commit ${commit}): ${expected.nodes} nodes, ${expected.edges} edges, ` +
      `${expected.pendingEdges} parked, ${expected.paths.length} open paths`,
  );
  await rm(dataDir, { recursive: true, force: true });
}

await main();
