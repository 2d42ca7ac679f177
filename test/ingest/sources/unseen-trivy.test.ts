// Trivy integration goldens the trivy source had not seen (fixtures/unseen/trivy, provenance in
// fixtures/unseen/SOURCES.md), read as `pathgate ingestreal` reads them and mapped by the real normalizer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const trivy = createTrivySource();
const report = (name: string): unknown => {
  const { body } = readReport(
    readFileSync(new URL(`../../../fixtures/unseen/trivy/${name}.json`, import.meta.url), 'utf8'),
  );
  expect(recognizeReport(body)).toBe('trivy');
  return body;
};
const REPO = 'github.com/acme/app';

describe('trivy repo scans of local paths (pom, gomod, pip, gradle)', () => {
  it('pom.xml: the repository depends on jackson-databind, whose two CVEs affect it', () => {
    const out = normalize(trivy, report('pom'), { repo: REPO });
    const library = 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.1';
    expect(out.names('Library')).toEqual([library]);
    expect(out.edges).toEqual(
      [
        `DEPENDS_ON ${REPO} -> ${library}`,
        `AFFECTS CVE-2020-9548 -> ${library}`,
        `AFFECTS CVE-2020-9548 -> ${REPO}`,
        `AFFECTS CVE-2021-20190 -> ${library}`,
        `AFFECTS CVE-2021-20190 -> ${REPO}`,
      ].sort(),
    );
    expect(out.node('CVE', 'CVE-2020-9548').properties).toMatchObject({ severity: 'CRITICAL' });
    expect(out.scope).toBe(`repo:${REPO}`);
  });

  it('gomod: a CVE found in three go.mod files is one library, one CVE, one edge each', () => {
    const out = normalize(trivy, report('gomod'), { repo: REPO });
    expect(out.names('Library')).toEqual([
      // Trivy writes `%2Bincompatible`; named with the escape decoded, as Go and Syft write it.
      'pkg:golang/github.com/docker/distribution@v2.7.1+incompatible',
      'pkg:golang/github.com/open-policy-agent/opa@v0.35.0',
      'pkg:golang/golang.org/x/text@v0.3.6',
    ]);
    expect(out.names('CVE')).toEqual(['CVE-2021-38561', 'CVE-2022-23628', 'GMS-2022-20']);
    expect(out.edges.filter((e) => e.startsWith('AFFECTS GMS-2022-20'))).toHaveLength(2);
  });

  it('pip and gradle: every vulnerable package is a library its CVEs affect', () => {
    for (const name of ['pip', 'gradle']) {
      const body = report(name) as { Results: { Vulnerabilities?: { VulnerabilityID: string }[] }[] };
      const out = normalize(trivy, body, { repo: REPO });
      const cves = new Set(
        body.Results.flatMap((r) => (r.Vulnerabilities ?? []).map((v) => v.VulnerabilityID)),
      );
      expect(out.names('CVE'), name).toEqual([...cves].sort());
      for (const cve of cves)
        expect(
          out.edges.some((e) => e.startsWith(`AFFECTS ${cve} -> pkg:`)),
          `${name} ${cve}`,
        ).toBe(true);
    }
  });

  it('without ?repo= a local path is a 400 naming /query/repo and the path', () => {
    expect(rejection(trivy, report('pom'))).toEqual([
      {
        pointer: '/query/repo',
        value: null,
        detail: 'required: /ArtifactName "testdata/fixtures/repo/pom" is a path, not a repository URL',
      },
    ]);
  });
});

describe('trivy config scans and a clean one', () => {
  it('helm: each failed check of the chart is a misconfiguration of the repository (a check twice, once)', () => {
    const out = normalize(trivy, report('helm'), { repo: REPO });
    expect(out.names('Misconfiguration')).toHaveLength(17);
    expect(out.edges).toContain(`AFFECTS ${REPO}:testchart.tar.gz:templates/pod.yaml:KSV-0001 -> ${REPO}`);
  });

  it('helm scanned before and after trivy-checks v2 (KSV001 + AVD-KSV-0001, then KSV-0001): the same nodes', () => {
    const before = normalize(trivy, report('helm-fe7d20a31c'), { repo: REPO });
    const after = normalize(trivy, report('helm'), { repo: REPO });
    const ids = (out: typeof before) =>
      out.nodes.filter((n) => n.label === 'Misconfiguration').map((n) => n.id);
    expect(ids(before)).toHaveLength(17);
    expect(ids(before)).toEqual(ids(after));
    const name = `${REPO}:testchart.tar.gz:templates/pod.yaml:KSV-0001`;
    expect(before.node('Misconfiguration', name).properties).toMatchObject({
      check_id: 'KSV-0001',
      reported_id: 'KSV001',
      reported_avd_id: 'AVD-KSV-0001',
    });
    expect(after.node('Misconfiguration', name).properties).toMatchObject({
      check_id: 'KSV-0001',
      reported_id: 'KSV-0001',
    });
    // Twin: the chart's different checks stay different nodes (17 checks failed, KSV-0118 twice: one node).
    expect(new Set(ids(after)).size).toBe(17);
  });

  it('terraform-remote-module: the remote module findings, no library', () => {
    const out = normalize(trivy, report('terraform-remote-module'), { repo: REPO });
    expect(out.names('Misconfiguration')).toHaveLength(3);
    expect(out.names('Library')).toEqual([]);
  });

  it('helm_badname: a scan with no Results is the repository alone, complete (its old findings retract)', () => {
    const out = normalize(trivy, report('helm_badname'), { repo: REPO });
    expect(out.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([`Repository ${REPO}`]);
    expect(out.node('Repository', REPO).properties).toMatchObject({ vulnerability_count: 0 });
    expect(out.scope).toBe(`repo:${REPO}`);
  });
});

describe('trivy image archives with language packages', () => {
  it('busybox-with-lockfile: named by its reference, its Cargo.lock crate a library its CVEs affect', () => {
    const out = normalize(trivy, report('busybox-with-lockfile'));
    const image = 'aquasecurity/trivy-test-images:busybox-with-lockfile';
    expect(out.scope).toBe(`image:${image}`);
    expect(out.edges).toContain(`DEPENDS_ON ${image} -> pkg:cargo/ammonia@1.9.0`);
    expect(out.edges).toContain('AFFECTS CVE-2019-15542 -> pkg:cargo/ammonia@1.9.0');
  });

  it('spring4shell-jre11: CVE-2022-22965 in spring-beans, affecting the image and the jar', () => {
    const out = normalize(trivy, report('spring4shell-jre11'));
    const image = 'aquasecurity/trivy-test-images:spring4shell-jre11';
    expect(out.edges).toContain(`AFFECTS CVE-2022-22965 -> ${image}`);
    expect(
      out.edges.some((e) =>
        /^AFFECTS CVE-2022-22965 -> pkg:maven\/org\.springframework\/spring-beans@/.test(e),
      ),
    ).toBe(true);
  });
});

describe('scans the source does not read are refused by name', () => {
  it('a VM image scan: 400 naming /ArtifactType vm', () => {
    expect(rejection(trivy, report('amazonlinux2-gp2-x86-vm'))).toEqual([
      expect.objectContaining({ pointer: '/ArtifactType', value: 'vm' }),
    ]);
  });
});

it('a report of Trivy 0.19 or older (a bare list of results): recognised, refused by name at /', () => {
  const body = JSON.parse(
    readFileSync(
      new URL('../../../fixtures/unseen/trivy/defectdojo-legacy_trivy_mix.json', import.meta.url),
      'utf8',
    ),
  ) as unknown;
  expect(recognizeReport(body)).toBe('trivy');
  const [error] = rejection(trivy, body);
  expect(error).toMatchObject({ pointer: '/' });
  expect(error.detail).toContain('Trivy 0.20 or later');
  // Twins: a list of Falco alerts stays Falco's; a list of anything else is no report.
  expect(recognizeReport([{ rule: 'Terminal shell in container', output_fields: {} }])).toBe('falco');
  expect(recognizeReport([{ Target: 'x' }])).toBeUndefined();
  expect(recognizeReport([])).toBeUndefined();
});

describe('a `trivy sbom` run (ArtifactType cyclonedx): a scan of what the SBOM describes', () => {
  // The SBOM of the image trivy's integration tests build (its ImageID is all the report keeps of it).
  const IMAGE = 'ghcr.io/aquasecurity/trivy-test-images:fluentd-multiple-lockfiles';
  /** The image node's name (docs/identity.md: the registry kept as a property). */
  const NAME = 'aquasecurity/trivy-test-images:fluentd-multiple-lockfiles';
  const CVES = ['CVE-2019-18224', 'CVE-2019-18276', 'CVE-2020-8165'];

  it('?image= names the image: its CVEs affect it, complete for it as an SBOM scan', () => {
    const out = normalize(trivy, report('fluentd-multiple-lockfiles'), { image: IMAGE });
    expect(out.names('Image')).toEqual([NAME]);
    expect(out.names('CVE')).toEqual(CVES);
    for (const cve of CVES) expect(out.edges).toContain(`AFFECTS ${cve} -> ${NAME}`);
    expect(out.edges).toContain(`AFFECTS CVE-2020-8165 -> pkg:gem/activesupport@6.0.2.1`);
    // Never the SBOM file's path as an image, never the scope an image scan of the same image has.
    expect(out.names('Image')).not.toContain(
      'testdata/fixtures/sbom/fluentd-multiple-lockfiles-cyclonedx.json',
    );
    expect(out.scope).toBe(`image:${NAME}#sbom`);
  });

  it('?repo= makes it a code scan of that repository', () => {
    const out = normalize(trivy, report('fluentd-multiple-lockfiles'), { repo: REPO });
    expect(out.names('Repository')).toEqual([REPO]);
    expect(out.names('Image')).toEqual([]);
    for (const cve of CVES) expect(out.edges).toContain(`AFFECTS ${cve} -> ${REPO}`);
    expect(out.scope).toBe(`repo:${REPO}#sbom`);
  });

  it('without either, an SBOM that names no image: 400 at /query/image naming the path and the image ID', () => {
    const [error] = rejection(trivy, report('fluentd-multiple-lockfiles'));
    expect(error).toMatchObject({ pointer: '/query/image', value: null });
    expect(error.detail).toContain('testdata/fixtures/sbom/fluentd-multiple-lockfiles-cyclonedx.json');
    expect(error.detail).toContain('sha256:5a992077baba');
  });

  it('without either, the image reference Trivy carried over from the SBOM names it', () => {
    const body = report('fluentd-multiple-lockfiles') as { Metadata: Record<string, unknown> };
    body.Metadata.RepoTags = [IMAGE];
    const out = normalize(trivy, body);
    expect(out.names('Image')).toEqual([NAME]);
    expect(out.scope).toBe(`image:${NAME}#sbom`);
  });

  it('an ?image= that is not a reference (an image ID): 400 naming it', () => {
    const id = 'sha256:5a992077baba51b97f27591a10d54d2f2723dc9c81a3fe419e261023f2554933';
    expect(rejection(trivy, report('fluentd-multiple-lockfiles'), { image: id })).toEqual([
      expect.objectContaining({ pointer: '/query/image', value: id }),
    ]);
  });

  it('negative twin: an image scan keeps its own scope, with no #sbom', () => {
    const out = normalize(trivy, report('spring4shell-jre11'));
    expect(out.scope).toMatch(/^image:[^#]+$/);
  });
});
