// Kubernetes path truth end to end, through the real ingest listener and from real reports: a dump of an
// internet-facing Deployment and a Trivy scan of its image give one route whose hop into the workload is
// priced from the image's CVE (no hand-drawn DEPENDS_ON: the dump's container image is joined to the scan
// by identity); the gate sees a fixed scan improve the route and a worse one block it; two clusters with
// the same names never share a route; a Deployment and its Pods give each route once; an image built from
// a repository a `trivy repo` scan describes is priced from that repository's CVEs.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readReal } from '../helpers/normalize.js';
import { registryDump, SCANNED, type Json } from '../helpers/registry-dump.js';
import { makeService, type TestService } from '../helpers/service.js';
import { gateImpact, ingestOk } from '../helpers/service-calls.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const SCAN = 'trivy/debian-buster-archive.json';
const CRITICAL = 'CVE-2019-18224';

const ingest = ingestOk;

async function routes(s: TestService) {
  await s.settle();
  const { attackPaths } = await s.graphql(
    '{ attackPaths { id score priority nodes { name label } steps { from to probability weightBasis } } }',
  );
  return attackPaths as {
    id: string;
    score: number;
    priority: string;
    nodes: { name: string; label: string }[];
    steps: { from: string; to: string; probability: number; weightBasis: string }[];
  }[];
}

const gate = (s: TestService, body: unknown, query: string) => gateImpact(s, body, `source=trivy&${query}`);

describe('a Kubernetes dump and a Trivy scan of its image', () => {
  it('give one route whose hop into the workload is priced from the CVE; the gate sees a fix and a worse CVE', async () => {
    service = await makeService();
    await ingest(service, registryDump(), 'k8s', 'cluster=prod');
    await ingest(service, readReal(SCAN), 'trivy');
    // The build record the pull request's image succeeds (docs/gate.md, successor images).
    await ingest(
      service,
      {
        image: SCANNED,
        repository: 'github.com/aquasecurity/trivy-test-images',
        slug: 'aquasecurity/trivy-test-images',
      },
      'build',
    );
    const live = await routes(service);
    expect(live).toHaveLength(1);
    const [route] = live;
    expect(route.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([
      'LoadBalancer prod/docker-registry/ingress/docker-registry',
      'LoadBalancer prod/docker-registry/service/docker-registry',
      'Service prod/docker-registry/docker-registry',
      'VirtualMachine prod/node/unscheduled',
    ]);
    const intoWorkload = route.steps[1];
    expect(intoWorkload.weightBasis).toBe('cvss');
    // CVE-2019-18224: CVSS 9.8 (nvd), scaled by the tag join of the dump's reference to the scan.
    expect(intoWorkload.probability).toBeCloseTo(0.98 * 0.8 * 0.85, 9);
    expect(route.priority).toBe('P1');

    // The pull request's image: the same scan, the critical CVE fixed.
    const prImage = 'ghcr.io/aquasecurity/trivy-test-images:pr-7';
    const pr = (mutate: (report: Json) => void) => {
      const report = readReal(SCAN) as Json;
      report.Metadata.Reference = prImage;
      report.Metadata.RepoTags = [prImage];
      mutate(report);
      return report;
    };
    const query = 'slug=aquasecurity/trivy-test-images&pr=7&sha=abcdef1';
    const fixed = await gate(
      service,
      pr((r) => {
        for (const result of r.Results)
          result.Vulnerabilities = result.Vulnerabilities?.filter(
            (v: Json) => v.VulnerabilityID !== CRITICAL,
          );
      }),
      query,
    );
    expect(fixed.verdict).toBe('clean');
    expect(fixed.improved.map((p: Json) => p.id)).toEqual([route.id]);
    const worse = await gate(
      service,
      pr((r) =>
        r.Results[0].Vulnerabilities.push({
          VulnerabilityID: 'CVE-2021-44228',
          PkgName: 'log4j-core',
          InstalledVersion: '2.14.1',
          FixedVersion: '2.15.0',
          Severity: 'CRITICAL',
          CVSS: { nvd: { V3Score: 10 } },
        }),
      ),
      query,
    );
    expect(worse.verdict).toBe('blocked');
    expect(worse.worsened.map((p: Json) => p.id)).toEqual([route.id]);
  });

  it('a Deployment and its Pods report each route once, to the node the pod runs on', async () => {
    service = await makeService();
    await ingest(service, registryDump({ pod: true }), 'k8s', 'cluster=prod');
    await ingest(service, readReal(SCAN), 'trivy');
    const live = await routes(service);
    expect(live).toHaveLength(1);
    expect(live[0].nodes.at(-1)).toEqual({ name: 'prod/node/ip-10-0-1-7', label: 'VirtualMachine' });
  });

  it('two clusters with the same object names never share a route', async () => {
    service = await makeService();
    // Cluster a exposes the registry; cluster b, not exposed, binds cluster-admin to the same account name.
    const dump = registryDump();
    for (const o of dump.items)
      if (o.kind === 'Deployment') delete o.spec.template.spec.containers[0].securityContext;
    await ingest(service, dump, 'k8s', 'snapshot=cluster:a');
    await ingest(
      service,
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: 'registry-admin' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
            subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'docker-registry' }],
          },
        ],
      },
      'k8s',
      'cluster=b',
    );
    expect(await routes(service)).toEqual([]);
    // Twin: the same binding in cluster a opens the route, inside cluster a only.
    await ingest(
      service,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'registry-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'docker-registry' }],
      },
      'k8s',
      'cluster=a',
    );
    const opened = await routes(service);
    expect(opened).toHaveLength(1);
    expect(opened[0].nodes.every((n) => n.name.startsWith('a/'))).toBe(true);
  });

  it('prices an image built from a scanned repository from that repository’s CVEs', async () => {
    service = await makeService();
    const image = 'ghcr.io/steadybit/checkout-go:main';
    const dump = registryDump();
    for (const o of dump.items) if (o.kind === 'Deployment') o.spec.template.spec.containers[0].image = image;
    await ingest(service, dump, 'k8s', 'cluster=prod');
    // The image's own scan is clean; its repository's `trivy repo` scan finds jquery's CVE-2019-11358.
    await ingest(service, readReal('trivy/steadybit-checkout-go-registry-clean.json'), 'trivy');
    await ingest(
      service,
      JSON.parse(
        readFileSync(new URL('../ingest/sources/fixtures/trivy-repo/npm.json', import.meta.url), 'utf8'),
      ),
      'trivy',
      'repo=github.com/steadybit/checkout-go',
    );
    await ingest(service, { image, repository: 'github.com/steadybit/checkout-go' }, 'build');
    const [route] = await routes(service);
    const intoWorkload = route.steps[1];
    expect(intoWorkload.weightBasis).toBe('cvss');
    // CVSS 6.1, through two tag joins: the workload runs the image, the image was built from the repository.
    expect(intoWorkload.probability).toBeCloseTo(0.61 * 0.8 * 0.85 * 0.85, 9);
  });

  it('raises no-internet-to-unsigned-image for the unsigned image an exposed Deployment runs, not for an unexposed one', async () => {
    service = await makeService();
    await ingest(service, readReal(SCAN), 'trivy');
    await ingest(service, { image: SCANNED, signed: false }, 'supplychain');
    // Twin first: the Deployment without its Ingress runs the unsigned image where the internet does not reach.
    const hidden = registryDump();
    hidden.items = hidden.items.filter((o: Json) => o.kind !== 'Ingress');
    await ingest(service, hidden, 'k8s', 'cluster=staging');
    await service.settle();
    expect((await service.graphql('{ violations { invariant } }')).violations).toEqual([]);
    await ingest(service, registryDump(), 'k8s', 'cluster=prod');
    await service.settle();
    const { violations } = await service.graphql('{ violations { invariant node { name } detail } }');
    expect(violations).toEqual([
      {
        invariant: 'no-internet-to-unsigned-image',
        node: { name: 'aquasecurity/trivy-test-images:debian-buster' },
        detail: expect.stringContaining('prod/docker-registry/docker-registry'),
      },
    ]);
  });
});
