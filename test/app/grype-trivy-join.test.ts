// A Grype scan and a Trivy scan of the same image through the service: one Image node, whose CVEs are the
// union, each CVE one node; and each scanner's complete rescan retracts only its own findings
// (src/ingest/sources/grype.ts, scopes qualified by source in src/ingest/context.ts).
// The Grype side is DefectDojo's real Grype 0.94 output for busybox:1.32.1 (fixtures/unseen/grype). No
// public Trivy report of that image exists in either repository: the Trivy side is BUILT FROM THE GRYPE
// FINDINGS (its first five CVE ids, plus one of its own), labelled as such here.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { edgeLines } from '../helpers/graph-lines.js';
import { makeService, type TestService } from '../helpers/service.js';

interface GrypeReport {
  matches: { vulnerability: { id: string } }[];
}
const grypeScan = (): GrypeReport =>
  JSON.parse(
    readFileSync(
      new URL('../../fixtures/unseen/grype/defectdojo-many_vulns_with_epss_values.json', import.meta.url),
      'utf8',
    ),
  ) as GrypeReport;
const grypeIds = grypeScan().matches.map((m) => m.vulnerability.id);
const trivyScan = (ids: string[]) => ({
  SchemaVersion: 2,
  ArtifactName: 'busybox:1.32.1',
  ArtifactType: 'container_image',
  Results: [
    {
      Target: 'busybox:1.32.1 (busybox 1.32.1)',
      Class: 'os-pkgs',
      Vulnerabilities: ids.map((id) => ({
        VulnerabilityID: id,
        PkgName: 'busybox',
        InstalledVersion: '1.32.1',
        Severity: 'HIGH',
      })),
    },
  ],
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

it('both scans of busybox:1.32.1 meet on one Image node; the CVEs are the union, each one node', async () => {
  service = await makeService();
  const post = async (source: string, body: unknown) => {
    const response = await service!.ingest(body, { source });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
    await service!.settle();
  };
  await post('grype', grypeScan());
  await post('trivy', trivyScan([...grypeIds.slice(0, 5), 'CVE-2099-0001']));
  const graph = service.engine.tenant('default')!.graph;
  const images = graph
    .filterNodes((_, a) => a.label === 'Image')
    .map((id) => graph.getNodeAttributes(id).name);
  expect(images).toHaveLength(1);
  const image = images[0];
  const cveNodes = graph
    .filterNodes((_, a) => a.label === 'CVE')
    .map((id) => graph.getNodeAttributes(id).name);
  expect(new Set(cveNodes).size).toBe(cveNodes.length);
  const affecting = () =>
    [
      ...new Set(
        edgeLines(graph)
          .filter((line) => line.startsWith('AFFECTS ') && line.endsWith(` -> ${image}`))
          .map((line) => line.split(' ')[1]),
      ),
    ].sort();
  expect(affecting()).toEqual([...new Set([...grypeIds, 'CVE-2099-0001'])].sort());
  expect(affecting()).toHaveLength(16);

  // Trivy's clean rescan retracts only what Trivy alone found; Grype's findings stay.
  await post('trivy', trivyScan([]));
  expect(affecting()).toEqual([...grypeIds].sort());
});

it("Grype's `pkg:pypi/Django` and Trivy's `pkg:pypi/django` of one image are one Library node", async () => {
  // DefectDojo's real Grype 0.28 output for `vulnerable-image:latest` (Django 3.2.9 and redis 4.0.2); the
  // Trivy side is BUILT for this test, Django written as Trivy writes a Python package (name as installed,
  // purl lower-cased), with a CVE Grype did not report.
  const grype = JSON.parse(
    readFileSync(
      new URL('../../fixtures/unseen/grype/defectdojo-check_all_fields.json', import.meta.url),
      'utf8',
    ),
  ) as unknown;
  const trivy = {
    SchemaVersion: 2,
    ArtifactName: 'vulnerable-image:latest',
    ArtifactType: 'container_image',
    Results: [
      {
        Target: 'Python',
        Class: 'lang-pkgs',
        Type: 'python-pkg',
        Vulnerabilities: [
          {
            VulnerabilityID: 'CVE-2022-28346',
            PkgName: 'Django',
            PkgIdentifier: { PURL: 'pkg:pypi/django@3.2.9' },
            InstalledVersion: '3.2.9',
            Severity: 'CRITICAL',
          },
        ],
      },
    ],
  };
  service = await makeService();
  for (const [source, body] of [
    ['grype', grype],
    ['trivy', trivy],
  ] as const) {
    const response = await service.ingest(body, { source });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
  }
  await service.settle();
  const graph = service.engine.tenant('default')!.graph;
  const djangos = graph
    .filterNodes((_, a) => a.label === 'Library' && /django/i.test(String(a.name)))
    .map((id) => graph.getNodeAttributes(id).name);
  expect(djangos).toEqual(['pkg:pypi/django@3.2.9']);
  const cves = edgeLines(graph)
    .filter((line) => line.startsWith('AFFECTS CVE-') && line.endsWith(' -> pkg:pypi/django@3.2.9'))
    .map((line) => line.split(' ')[1])
    .sort();
  // Grype's (its GHSA joined to CVE-2021-44420) and Trivy's, on the one node.
  expect(cves).toEqual(['CVE-2021-44420', 'CVE-2022-28346']);
});
