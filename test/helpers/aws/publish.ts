// What the connector runtime does with a pull, done by a test: each account's reports sent to the ingest
// listener as complete snapshots of their scope (`snapshot=<scope>&account=<id>`, as src/connectors/runtime.ts
// sends them), the failed accounts' not at all.
import { expect } from 'vitest';
import type { PullResult } from '../../../src/connectors/connector.js';
import type { TestService } from '../service.js';

export async function publishPull(service: TestService, result: PullResult): Promise<void> {
  for (const account of result.accounts)
    for (const report of account.reports) {
      const answer = await service.ingest(report.body, {
        source: report.source,
        query: `snapshot=${encodeURIComponent(report.scope)}&account=${account.account}`,
      });
      expect(answer.status, `${report.source} ${report.scope}: ${JSON.stringify(answer.json)}`).toBe(202);
    }
  await service.settle();
}

const PATHS = `{ attackPaths { priority score nodes { id name } steps { type probability } } }`;

/** The analyzer's paths, each as its node names. */
export async function pathNames(service: TestService): Promise<string[][]> {
  const data = await service.graphql(PATHS);
  return data.attackPaths.map((p: { nodes: { name: string }[] }) => p.nodes.map((n) => n.name));
}
