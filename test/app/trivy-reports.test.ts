// Real Trivy reports through the real ingest listener: a `trivy k8s` report and a Kubernetes dump of the same
// cluster give a route whose hop into the workload is priced from the image's CVE (no hand-drawn DEPENDS_ON:
// the dump's container image joins the report's image by identity), its checks land on the dump's workload,
// an empty report is a warning and a malformed one a 400 that stores nothing; a rescan by another Trivy
// version keeps its finding nodes (no retraction and re-adding by the snapshot sweep).
import { readFileSync } from 'node:fs';
import { nodeId } from '../../src/graph/ids.js';
import { findEdge } from '../../src/graph/model.js';
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

/**
 * The guestbook's redis-leader as the real 2022 EKS report scanned it (Deployment `redis-leader` running
 * `docker.io/redis:6.0.5` in `default`), behind a LoadBalancer Service, privileged so that the route reaches
 * its node.
 */
const guestbook = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'redis-leader', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'redis', role: 'leader' } },
        template: {
          metadata: { labels: { app: 'redis', role: 'leader' } },
          spec: {
            containers: [
              { name: 'leader', image: 'docker.io/redis:6.0.5', securityContext: { privileged: true } },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'redis-leader', namespace: 'default' },
      spec: { type: 'LoadBalancer', selector: { app: 'redis', role: 'leader' }, ports: [{ port: 6379 }] },
    },
  ],
};

async function routes(s: TestService) {
  await s.settle();
  const { attackPaths } = await s.graphql(
    '{ attackPaths { nodes { name label } steps { probability weightBasis } } }',
  );
  return attackPaths as {
    nodes: { name: string; label: string }[];
    steps: { probability: number; weightBasis: string }[];
  }[];
}

describe('a trivy k8s report and the Kubernetes dump of the same cluster', () => {
  it("price the hop into the workload from its image's CVE, and put its checks on the dump's workload", async () => {
    service = await makeService();
    await ingest(service, guestbook, 'k8s', 'cluster=eks');
    // Twin: before the report, the workload's image was never scanned: the hop keeps its edge-type price.
    const [unscanned] = await routes(service);
    expect(unscanned.steps[0]).toMatchObject({ weightBasis: 'heuristic', probability: 0.8 });

    await ingest(service, unseen('defectdojo-kubernetes'), 'trivy', 'cluster=eks');
    const live = await routes(service);
    expect(live).toHaveLength(1);
    expect(live[0].nodes.map((n) => `${n.label} ${n.name}`)).toEqual([
      'LoadBalancer eks/default/service/redis-leader',
      'Service eks/default/redis-leader',
      'VirtualMachine eks/node/unscheduled',
    ]);
    // CVE-2019-18276: CVSS 7.8 (nvd), the highest of the image's, scaled by the tag join of the dump's
    // reference (docker.io/redis:6.0.5) to the scanned image.
    expect(live[0].steps[0].weightBasis).toBe('cvss');
    expect(live[0].steps[0].probability).toBeCloseTo(0.78 * 0.8 * 0.85, 9);

    const graph = service.engine.tenant('default')!.graph;
    const workload = nodeId('Service', 'eks/default/redis-leader');
    const check = nodeId('Misconfiguration', 'eks/default/redis-leader:Deployment/redis-leader:KSV-0001');
    expect(findEdge(graph, 'AFFECTS', check, workload)).toBeDefined();
    // The report's other workload, which the dump does not hold, is a node of its own (no route).
    expect(graph.hasNode(nodeId('Service', 'eks/default/redis-follower'))).toBe(true);
  });

  it('an empty report is accepted with warnings; a malformed one is a 400 naming the value, storing nothing', async () => {
    service = await makeService();
    await ingest(service, guestbook, 'k8s', 'cluster=eks');
    await service.settle();
    const before = service.engine.tenant('default')!.graph.order;
    const empty = await ingest(service, { ClusterName: 'docker-desktop' }, 'trivy', 'cluster=eks');
    expect(empty.warnings).toEqual([
      'trivy k8s report of cluster "docker-desktop" lists no object (no Resources, Findings, Vulnerabilities or Misconfigurations): nothing to map',
      expect.stringMatching(/^the report yielded no node and no edge; expected .*trivy k8s/),
    ]);
    const malformed = await service.ingest(
      { ClusterName: 'eks', Resources: [{ Kind: 'Deployment', Name: 'redis-leader', Results: 'none' }] },
      { source: 'trivy', query: 'cluster=eks' },
    );
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(malformed.json.errors).toEqual([
      expect.objectContaining({ pointer: '/Resources/0/Results', value: 'none' }),
    ]);
    await service.settle();
    expect(service.engine.tenant('default')!.graph.order).toBe(before);
  });
});
