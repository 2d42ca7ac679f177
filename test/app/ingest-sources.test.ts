// The image, code and supply-chain sources through the real ingest listener: every real report in the
// fixture folders ingests (or is refused for a stated reason), identities join across sources, complete
// scans retract what they no longer list, and pull-request scans are stamped and never complete.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { findEdge } from '../../src/graph/model.js';
import { makeService, type TestService } from '../helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const real = path.resolve(root, '../shared/fixtures/real');

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : name.endsWith('.json') ? [full] : [];
    });
}

const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

function graphOf(s: TestService) {
  return s.engine.tenant('default')!.graph;
}

async function metric(s: TestService, name: string): Promise<string[]> {
  const response = await s.tenantMetrics();
  return response.body.split('\n').filter((l) => l.startsWith(name));
}

describe('every real report ingests through the listener', () => {
  const cases: [string, string, string | undefined][] = [
    ...filesUnder(path.join(real, 'trivy')).map((f): [string, string, string | undefined] => [
      f,
      'trivy',
      undefined,
    ]),
    ...filesUnder(path.join(real, 'semgrep')).map((f): [string, string, string | undefined] => [
      f,
      'semgrep',
      'repo=github.com/acme/shop',
    ]),
    ...filesUnder(path.join(real, 'sbom')).map((f): [string, string, string | undefined] => [
      f,
      'supplychain',
      // An SBOM of an archive with no reference in it: the caller names the image.
      f.endsWith('short-with-vulns.cdx.json')
        ? 'image=ghcr.io/aquasecurity/trivy-test-images:fluentd-multiple-lockfiles'
        : undefined,
    ]),
  ];

  it.each(cases)('%s', async (file, source, query) => {
    service = await makeService();
    const response = await service.ingest(read(file), { source, query });
    if (path.basename(file) === 'defectdojo-issue_9333-debian-node.json') {
      // A real report with ArtifactName "": refused, naming the field, never a node named "".
      expect(response.status).toBe(400);
      expect(response.json.errors[0].pointer).toBe('/ArtifactName');
      return;
    }
    expect(response.status, JSON.stringify(response.json)).toBe(202);
    expect(response.json.nodes).toBeGreaterThan(0);
    await service.settle();
    expect(graphOf(service).order).toBe(response.json.nodes);
  });
});

const ALPINE = path.join(real, 'trivy', 'alpine-310-registry.json');
const ALPINE_DIGEST = 'sha256:b1c5a500182b21d0bfa5a584a8526b56d8be316f89e87d951be04abed2446e60';
const alpineImage = nodeId('Image', 'alpine:3.10');

/** The alpine scan with every finding of one CVE removed, as a rescan after the fix would report. */
function alpineWithout(cve: string): unknown {
  const report = read(ALPINE) as { Results: { Vulnerabilities?: { VulnerabilityID: string }[] }[] };
  for (const result of report.Results)
    result.Vulnerabilities = result.Vulnerabilities?.filter((v) => v.VulnerabilityID !== cve);
  return report;
}

describe('identity joins across sources', () => {
  it('joins a build by a registry-prefixed tag (0.85) and an attestation by digest (1.0) to the scanned image', async () => {
    service = await makeService();
    expect((await service.ingest(read(ALPINE), { source: 'trivy' })).status).toBe(202);
    const build = await service.ingest(
      { image: 'docker.io/library/alpine:3.10', repository: 'github.com/alpinelinux/docker-alpine' },
      { source: 'build' },
    );
    expect(build.status, JSON.stringify(build.json)).toBe(202);
    await service.settle();
    const graph = graphOf(service);
    const repo = nodeId('Repository', 'github.com/alpinelinux/docker-alpine');
    const built = findEdge(graph, 'BUILT_FROM', alpineImage, repo);
    expect(built).toBeDefined();
    expect(graph.getEdgeAttribute(built!, 'joinConfidence')).toBe(0.85);
    expect(graph.getNodeAttributes(alpineImage).props).toMatchObject({
      resolution_method: 'tag',
      resolution_confidence: 0.85,
      resolution_alias: 'docker.io/library/alpine:3.10',
    });

    const attested = await service.ingest(
      { image: `registry.example.com/mirror/alpine@${ALPINE_DIGEST}`, signed: true, slsa_level: 2 },
      { source: 'supplychain' },
    );
    expect(attested.status, JSON.stringify(attested.json)).toBe(202);
    await service.settle();
    const props = graph.getNodeAttributes(alpineImage).props;
    expect(props).toMatchObject({
      signed: true,
      slsaLevel: 2,
      resolution_method: 'digest',
      resolution_confidence: 1,
    });
    // Every report landed on the one Image node.
    expect(graph.filterNodes((_id, a) => a.label === 'Image')).toEqual([alpineImage]);
  });
});

describe('complete scans', () => {
  it('retracts a CVE a newer scan of the same image no longer lists, and counts the sweep', async () => {
    service = await makeService();
    await service.ingest(read(ALPINE), { source: 'trivy' });
    await service.ingest(alpineWithout('CVE-2019-1551'), { source: 'trivy' });
    await service.settle();
    const graph = graphOf(service);
    expect(graph.hasNode(nodeId('CVE', 'CVE-2019-1551'))).toBe(false);
    expect(graph.hasNode(nodeId('CVE', 'CVE-2019-1549'))).toBe(true);
    expect(await metric(service, 'service_graph_sweeps_total')).toEqual([
      'service_graph_sweeps_total{tenant="default",source="trivy",result="unchanged"} 1',
      'service_graph_sweeps_total{tenant="default",source="trivy",result="retracted"} 1',
    ]);
  });

  it('does not retract on a partial scan (snapshot=none) or a pull-request scan, which it stamps', async () => {
    service = await makeService();
    await service.ingest(read(ALPINE), { source: 'trivy' });
    expect(
      (await service.ingest(alpineWithout('CVE-2019-1551'), { source: 'trivy', query: 'snapshot=none' }))
        .status,
    ).toBe(202);
    const sha = 'b'.repeat(40);
    const pr = await service.ingest(alpineWithout('CVE-2019-1551'), {
      source: 'trivy',
      query: `slug=acme/shop&pr=12&sha=${sha}`,
    });
    expect(pr.status).toBe(202);
    await service.settle();
    const graph = graphOf(service);
    expect(graph.hasNode(nodeId('CVE', 'CVE-2019-1551'))).toBe(true);
    expect(graph.getNodeAttributes(alpineImage).props).toMatchObject({
      repo_slug: 'acme/shop',
      pr_number: 12,
      commit_sha: sha,
    });
  });

  it('refuses a snapshot request on a pull-request scan, and one a self-scoped source does not take', async () => {
    service = await makeService();
    const onPr = await service.ingest(read(ALPINE), { source: 'trivy', query: 'pr=5&snapshot=cluster:prod' });
    expect(onPr.status).toBe(400);
    expect(onPr.json.type).toBe('urn:pathgate:problem:snapshot-refused');
    const selfScoped = await service.ingest(read(ALPINE), {
      source: 'trivy',
      query: 'snapshot=cluster:prod',
    });
    expect(selfScoped.status).toBe(400);
    expect(selfScoped.json.errors[0].pointer).toBe('/query/snapshot');
    await service.settle();
    expect(service.engine.tenant('default')?.graph.order ?? 0).toBe(0);
  });

  it('retracts a code finding a newer scan of the repository no longer reports', async () => {
    service = await makeService();
    const report = read(path.join(real, 'semgrep', 'defectdojo-many_vulns.json')) as { results: unknown[] };
    const repo = 'repo=github.com/acme/shop';
    await service.ingest(report, { source: 'semgrep', query: repo });
    await service.settle();
    const before = graphOf(service).filterNodes((_id, a) => a.label === 'Weakness').length;
    await service.ingest({ ...report, results: report.results.slice(1) }, { source: 'semgrep', query: repo });
    await service.settle();
    const after = graphOf(service).filterNodes((_id, a) => a.label === 'Weakness').length;
    expect(after).toBe(before - 1);
  });
});
