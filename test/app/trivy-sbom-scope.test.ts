// A `trivy sbom` report and an image scan of the same image through the service: each is complete for
// what it read, so neither retracts what only the other found (src/ingest/sources/trivy.ts, `#sbom`).
// The SBOM scan is trivy's own integration golden (fixtures/unseen/trivy); the image scans are built from
// it (the same findings, ArtifactType container_image, some results left out), as a rescan would list them.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { edgeLines } from '../helpers/graph-lines.js';
import { makeService, type TestService } from '../helpers/service.js';

const IMAGE = 'ghcr.io/aquasecurity/trivy-test-images:fluentd-multiple-lockfiles';
const NAME = 'aquasecurity/trivy-test-images:fluentd-multiple-lockfiles';

interface Report {
  ArtifactName: string;
  ArtifactType: string;
  Results: { Target: string; Vulnerabilities?: { VulnerabilityID: string }[] }[];
}
const sbomScan = (): Report =>
  JSON.parse(
    readFileSync(
      new URL('../../fixtures/unseen/trivy/fluentd-multiple-lockfiles.json', import.meta.url),
      'utf8',
    ),
  ) as Report;
/** The same findings as a `trivy image` scan of the image, keeping the results `keep` names by Target. */
const imageScan = (keep: (target: string) => boolean): Report => {
  const report = sbomScan();
  return {
    ...report,
    ArtifactName: IMAGE,
    ArtifactType: 'container_image',
    Results: report.Results.filter((r) => keep(r.Target)),
  };
};
const cvesOf = (service: TestService) =>
  edgeLines(service.engine.tenant('default')!.graph)
    .filter((line) => line.startsWith('AFFECTS ') && line.endsWith(` -> ${NAME}`))
    .map((line) => line.split(' ')[1])
    .sort();

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

it('an image rescan that omits a CVE the SBOM scan lists keeps it; the next SBOM scan that omits it retracts it', async () => {
  service = await makeService();
  const post = async (body: unknown, query?: string) => {
    const response = await service!.ingest(body, { source: 'trivy', query });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
    await service!.settle();
  };
  await post(sbomScan(), `image=${encodeURIComponent(IMAGE)}`);
  expect(cvesOf(service)).toEqual(['CVE-2019-18224', 'CVE-2019-18276', 'CVE-2020-8165']);

  // The image scan finds the Ruby CVE, then a rescan finds nothing: the SBOM scan still vouches for it.
  await post(imageScan((target) => target === 'Ruby'));
  await post(imageScan(() => false));
  expect(cvesOf(service)).toEqual(['CVE-2019-18224', 'CVE-2019-18276', 'CVE-2020-8165']);

  // A scan of a newer SBOM without the Ruby package: nobody vouches for CVE-2020-8165 any more.
  const newer = sbomScan();
  newer.Results = newer.Results.filter((r) => r.Target !== 'Ruby');
  await post(newer, `image=${encodeURIComponent(IMAGE)}`);
  expect(cvesOf(service)).toEqual(['CVE-2019-18224', 'CVE-2019-18276']);
});

it('negative twin: two image scans share one scope, so the rescan retracts what it omits', async () => {
  service = await makeService();
  for (const report of [imageScan(() => true), imageScan((target) => target === 'Ruby')]) {
    expect((await service.ingest(report, { source: 'trivy' })).status).toBe(202);
    await service.settle();
  }
  expect(cvesOf(service)).toEqual(['CVE-2020-8165']);
});
