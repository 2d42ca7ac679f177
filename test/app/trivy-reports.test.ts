// Real Trivy reports through the real ingest listener: a rescan by another Trivy version keeps its finding
// nodes (no retraction and re-adding by the snapshot sweep).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeService, type TestService } from '../helpers/service.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

type Json = Record<string, any>;

const unseen = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/unseen/trivy/${name}.json`, import.meta.url), 'utf8'));

async function ingest(s: TestService, body: unknown, source: string, query = '') {
  const response = await s.ingest(body, { source, query });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
  return response.json as Json;
}

const misconfigurations = (s: TestService) => {
  const graph = s.engine.tenant('default')!.graph;
  return graph.filterNodes((_id, attrs) => attrs.label === 'Misconfiguration').sort();
};

describe('a rescan by another Trivy version', () => {
  it('keeps the misconfiguration nodes of a chart whose check ids Trivy renamed (KSV001 -> KSV-0001)', async () => {
    service = await makeService();
    // Both scans are complete for the repository: the second retracts what it does not list.
    await ingest(service, unseen('helm-fe7d20a31c'), 'trivy', 'repo=github.com/acme/app');
    await service.settle();
    const before = misconfigurations(service);
    expect(before).toHaveLength(17);
    await ingest(service, unseen('helm'), 'trivy', 'repo=github.com/acme/app');
    await service.settle();
    expect(misconfigurations(service)).toEqual(before);
  });
});
