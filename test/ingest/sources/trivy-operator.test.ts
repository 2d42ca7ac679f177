// Trivy Operator's reports (fixtures/unseen/trivy-operator: DefectDojo's copies of real reports, SOURCES.md)
// read by the trivy source as a `trivy k8s` report's image scans and manifest findings are.
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ingestReal } from '../../../app/ingest-real.js';
import { recognizeReport } from '../../../src/ingest/recognize.js';
import { controllerOfReplicaSet } from '../../../src/ingest/sources/k8s.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { edgeLines } from '../../helpers/graph-lines.js';
import { normalize, rejection } from '../../helpers/normalize.js';
import { makeService, tempDir, type TestService } from '../../helpers/service.js';

const trivy = createTrivySource();
const report = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(
      new URL(`../../../fixtures/unseen/trivy-operator/defectdojo-${name}.json`, import.meta.url),
      'utf8',
    ),
  ) as Record<string, unknown>;

describe('Trivy Operator reports, one at a time', () => {
  it('a VulnerabilityReport: the image it scanned, its CVE with the score the operator kept', () => {
    const body = report('vulnerabilityreport_single_vuln');
    expect(recognizeReport(body)).toBe('trivy');
    const out = normalize(trivy, body);
    expect(out.names('Image')).toEqual(['nginx:alpine']);
    expect(out.edges).toEqual(['AFFECTS CVE-2023-23914 -> nginx:alpine']);
    expect(out.node('CVE', 'CVE-2023-23914')?.properties).toMatchObject({
      severity: 'CRITICAL',
      cvss_score: 4.2,
    });
    expect(out.node('Image', 'nginx:alpine')?.properties).toMatchObject({ vulnerability_count: 1 });
    // Partial: a cluster's reports never say what they left out.
    expect(out.scope).toBeUndefined();
  });

  it('a digest-pinned VulnerabilityReport names the image by its tag and keeps the digest', () => {
    const out = normalize(trivy, report('vulnerabilityreport_extended'));
    expect(out.names('Image')).toEqual(['ubuntu:20.04']);
    expect(out.node('Image', 'ubuntu:20.04')?.properties?.digests).toEqual([
      'sha256:f78909c2b360d866b3220655c0b079838258b8891a12ac25fc670f0cbb54229f',
    ]);
    expect(out.names('CVE')).toEqual(['CVE-2024-0553', 'CVE-2024-22365']);
  });

  it('an ExposedSecretReport: a Secret in the file it was found in, never the matched text', () => {
    const body = report('exposedsecretreport_single_vuln');
    const out = normalize(trivy, body);
    expect(out.edges).toEqual([
      'AFFECTS secret:latest:root/aws_secret.txt:aws-secret-access-key -> secret:latest',
    ]);
    expect(JSON.stringify(out.nodes)).not.toContain('AWS_secret_KEY');
    // It looked for secrets only: the image is not priced as scanned clean of CVEs.
    expect(out.node('Image', 'secret:latest')?.properties?.vulnerability_count).toBeUndefined();
  });

  it("a ConfigAuditReport of a Deployment's ReplicaSet: the failed check on the Deployment's workload", () => {
    const out = normalize(trivy, report('configauditreport_single_vuln'), { cluster: 'prod' });
    expect(out.edges).toEqual([
      'AFFECTS prod/default/nginx-deployment:Deployment/nginx-deployment:KSV-0014 -> prod/default/nginx-deployment',
    ]);
  });

  it('a bare list of reports (`jq .items`): each read', () => {
    const body = report('findings_in_list');
    expect(recognizeReport(body)).toBe('trivy');
    const out = normalize(trivy, body);
    expect(out.names('Image')).toEqual(['ubuntu:20.04']);
    expect(out.names('Service')).toEqual(['default/nginx-deployment']);
  });
});

describe('what is not read, and what is refused', () => {
  it('a kind the source does not map (a compliance report): a warning, nothing drawn', () => {
    const body = { ...report('vulnerabilityreport_single_vuln'), kind: 'ClusterComplianceReport' };
    const out = trivy.normalize({ body, query: {}, receivedAt: '2026-11-24T00:00:00Z' });
    expect(out.envelopes[0].nodes).toEqual([]);
    expect(out.warnings).toEqual(['Trivy Operator reports of kinds not mapped: ClusterComplianceReport (1)']);
  });

  it('a VulnerabilityReport whose vulnerabilities are not a list: 400 naming the pointer', () => {
    const body = report('vulnerabilityreport_single_vuln');
    (body.report as Record<string, unknown>).vulnerabilities = 'none';
    expect(rejection(trivy, body)).toEqual([
      expect.objectContaining({ pointer: '/report/vulnerabilities', value: 'none' }),
    ]);
  });

  it("negative twins: a dump mixing reports with workloads is the k8s source's; a Pod is no report", () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [] } };
    expect(
      recognizeReport({
        apiVersion: 'v1',
        kind: 'List',
        items: [pod, report('vulnerabilityreport_single_vuln')],
      }),
    ).toBe('k8s');
    expect(recognizeReport(pod)).toBe('k8s');
    expect(
      recognizeReport({ ...report('vulnerabilityreport_single_vuln'), apiVersion: 'example.com/v1' }),
    ).toBe('k8s');
  });

  it("a ReplicaSet's Deployment from its name: the pod-template-hash in either alphabet, nothing else cut", () => {
    expect(controllerOfReplicaSet('nginx-deployment-965685897')).toBe('nginx-deployment');
    expect(controllerOfReplicaSet('checkout-7d4b9c8f6d')).toBe('checkout');
    expect(controllerOfReplicaSet('web-v2')).toBeUndefined();
    expect(controllerOfReplicaSet('api-2024')).toBeUndefined();
  });
});

/** Minimal manifest written for these tests: the Deployment the operator's reports name. */
const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx-deployment', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:alpine' }] },
    },
  },
};

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

it('through the service: the workload a dump says runs nginx:alpine depends on the image the operator scanned', async () => {
  service = await makeService();
  const dump = { apiVersion: 'v1', kind: 'List', items: [DEPLOYMENT] };
  for (const [source, body] of [
    ['k8s', dump],
    ['trivy', report('vulnerabilityreport_single_vuln')],
  ] as const) {
    const response = await service.ingest(body, { source });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
  }
  await service.settle();
  const edges = edgeLines(service.engine.tenant('default')!.graph);
  expect(edges).toContain('DEPENDS_ON default/nginx-deployment -> nginx:alpine');
  expect(edges).toContain('AFFECTS CVE-2023-23914 -> nginx:alpine');
});

it('ingestreal: a dump listing the operator reports beside the objects sends each to its source, in the cluster', async () => {
  const dir = await tempDir('pathgate-ingestreal-operator-');
  // The cluster's objects with two of the operator's real reports.
  const items = [
    DEPLOYMENT,
    report('vulnerabilityreport_single_vuln'),
    report('configauditreport_single_vuln'),
  ];
  await writeFile(path.join(dir, 'all.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  service = await makeService();
  const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  const lines: string[] = [];
  const summary = await ingestReal({ dir, url, cluster: 'lab', out: (l) => lines.push(l) });
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^all\.json \(its 2 Trivy Operator reports\): trivy -> 202/),
      expect.stringMatching(/^all\.json: k8s -> 202/),
    ]),
  );
  expect(summary).toEqual({ accepted: 1, rejected: 0, skipped: 0 });
  await service.settle();
  const edges = edgeLines(service.engine.tenant('default')!.graph);
  expect(edges).toContain('DEPENDS_ON lab/default/nginx-deployment -> nginx:alpine');
  expect(edges).toContain('AFFECTS CVE-2023-23914 -> nginx:alpine');
  expect(edges).toContain(
    'AFFECTS lab/default/nginx-deployment:Deployment/nginx-deployment:KSV-0014 -> lab/default/nginx-deployment',
  );
  await rm(dir, { recursive: true, force: true });
});
