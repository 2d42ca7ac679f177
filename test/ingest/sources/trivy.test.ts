// The trivy normalizer on every real Trivy report: image naming (registry, archive, image ID), CVEs with
// their scores, language packages as libraries, the clean image, and the reports it refuses.
import { describe, expect, it } from 'vitest';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const trivy = createTrivySource();
const ALPINE_DIGEST = 'sha256:b1c5a500182b21d0bfa5a584a8526b56d8be316f89e87d951be04abed2446e60';

describe('trivy: image naming', () => {
  it('names a registry scan by its reference, with digests from RepoDigests, complete for that image', () => {
    const out = normalize(trivy, readReal('trivy/alpine-310-registry.json'));
    expect(out.names('Image')).toEqual(['alpine:3.10']);
    expect(out.node('Image', 'alpine:3.10').properties).toMatchObject({
      image_ref: 'alpine:3.10',
      repo_tags: ['alpine:3.10'],
      digests: [ALPINE_DIGEST],
      image_id: 'sha256:961769676411f082461f9ef46626dd7a2d1e2b2a38e6a44364bcbecf51e66dd4',
      os: 'alpine 3.10.2',
      scanner: 'trivy',
      vulnerability_count: 4,
    });
    expect(out.scope).toBe('image:alpine:3.10');
  });

  it('names an archive scan by Metadata.Reference, registry stripped', () => {
    const out = normalize(trivy, readReal('trivy/alpine-310-archive.json'));
    expect(out.names('Image')).toEqual(['aquasecurity/trivy-test-images:alpine-310']);
    const image = out.node('Image', 'aquasecurity/trivy-test-images:alpine-310');
    expect(image.properties).toMatchObject({
      image_ref: 'ghcr.io/aquasecurity/trivy-test-images:alpine-310',
      registry: 'ghcr.io',
    });
    expect(image.properties).not.toHaveProperty('name_note');
    expect(image.properties).not.toHaveProperty('digests');
    expect(out.scope).toBe('image:aquasecurity/trivy-test-images:alpine-310');
  });

  it('falls back to RepoTags for an archive without Metadata.Reference', () => {
    const report = readReal('trivy/centos-7-archive.json') as { Metadata: Record<string, unknown> };
    delete report.Metadata.Reference;
    const out = normalize(trivy, report);
    expect(out.names('Image')).toEqual(['aquasecurity/trivy-test-images:centos-7']);
  });

  it('keeps the path of an archive saved by image ID, with name_note, joining nothing', () => {
    const report = readReal('trivy/alpine-310-archive.json') as { Metadata: Record<string, unknown> };
    delete report.Metadata.Reference;
    report.Metadata.RepoTags = [];
    const out = normalize(trivy, report);
    expect(out.names('Image')).toEqual(['testdata/fixtures/images/alpine-310.tar.gz']);
    const note = out.node('Image', 'testdata/fixtures/images/alpine-310.tar.gz').properties?.name_note;
    expect(note).toMatch(/image ID \(sha256:961769676411.*\).*joins no/);
    expect(out.scope).toBeUndefined();
    expect(out.warnings.join()).toMatch(/archive saved by image ID/);
  });

  it('treats an ArtifactName that is an image ID like an archive saved by ID', () => {
    const report = readReal('trivy/alpine-310-archive.json') as Record<string, any>;
    report.ArtifactName = '961769676411';
    delete report.Metadata.Reference;
    delete report.Metadata.RepoTags;
    const out = normalize(trivy, report);
    expect(out.names('Image')).toEqual(['961769676411']);
    expect(out.nodes[0].properties?.name_note).toBeDefined();
  });

  it('refuses the real report whose ArtifactName is empty, naming the field', () => {
    const errors = rejection(trivy, readReal('trivy/defectdojo-issue_9333-debian-node.json'));
    expect(errors).toEqual([
      expect.objectContaining({
        pointer: '/ArtifactName',
        value: '',
        detail: expect.stringContaining('noppaknopsta/example-app:main-159'),
      }),
    ]);
  });

  it('refuses other schema versions, non-image scans and malformed vulnerabilities', () => {
    const v1 = { ...readReal('trivy/alpine-310-registry.json'), SchemaVersion: 1 };
    expect(rejection(trivy, v1)[0]).toMatchObject({ pointer: '/SchemaVersion' });
    const vm = { ...readReal('trivy/alpine-310-registry.json'), ArtifactType: 'vm' };
    expect(rejection(trivy, vm)[0]).toMatchObject({ pointer: '/ArtifactType', value: 'vm' });
    const broken = readReal('trivy/alpine-310-registry.json') as Record<string, any>;
    broken.Results[0].Vulnerabilities[2].VulnerabilityID = 42;
    expect(rejection(trivy, broken)[0]).toMatchObject({
      pointer: '/Results/0/Vulnerabilities/2/VulnerabilityID',
    });
    expect(rejection(trivy, { SchemaVersion: 2, ArtifactName: 'not a ref!' })[0]).toMatchObject({
      pointer: '/ArtifactName',
    });
  });
});

describe('trivy: findings', () => {
  it('makes one CVE node per vulnerability id, linked to the image with the package on the edge', () => {
    const out = normalize(trivy, readReal('trivy/alpine-310-registry.json'));
    // Four findings: two CVEs, each in libcrypto1.1 and libssl1.1.
    expect(out.names('CVE')).toEqual(['CVE-2019-1549', 'CVE-2019-1551']);
    expect(out.edges).toEqual([
      'AFFECTS CVE-2019-1549 -> alpine:3.10',
      'AFFECTS CVE-2019-1551 -> alpine:3.10',
    ]);
    expect(out.node('CVE', 'CVE-2019-1549').properties).toMatchObject({
      severity: 'MEDIUM',
      cvss_score: 5.3,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
      cvss_source: 'nvd',
      cwe: ['CWE-330'],
      title: 'openssl: information disclosure in fork()',
      url: 'https://avd.aquasec.com/nvd/cve-2019-1549',
      published_at: '2019-09-10T17:15:00Z',
    });
    expect(out.edgeProps('AFFECTS', 'CVE-2019-1549', 'alpine:3.10')).toMatchObject({
      installed_version: '1.1.1c-r0',
      fixed_version: '1.1.1d-r0',
      status: 'fixed',
      packages: ['libcrypto1.1', 'libssl1.1'],
    });
    // CVE nodes are shared by every image: a pull-request stamp never lands on them.
    expect(out.mentioned?.sort()).toEqual(
      out.nodes
        .filter((n) => n.label === 'CVE')
        .map((n) => n.id)
        .sort(),
    );
  });

  it('records no fixed version where Trivy has none', () => {
    const out = normalize(trivy, readReal('trivy/centos-7-archive.json'));
    expect(out.names('CVE')).toHaveLength(3);
    const image = 'aquasecurity/trivy-test-images:centos-7';
    const unfixed = out.names('CVE').filter((cve) => !out.edgeProps('AFFECTS', cve, image)?.fixed_version);
    expect(unfixed.length).toBeGreaterThan(0);
    const debian = normalize(trivy, readReal('trivy/debian-buster-archive.json'));
    expect(debian.names('Image')).toEqual(['aquasecurity/trivy-test-images:debian-buster']);
    expect(debian.names('CVE')).toHaveLength(2);
  });

  it('makes language packages libraries the image depends on, and their CVEs affect them', () => {
    const out = normalize(trivy, readReal('trivy/spring4shell-jre8-archive.json'));
    const image = 'aquasecurity/trivy-test-images:spring4shell-jre8';
    const library = 'pkg:maven/org.springframework/spring-beans@5.3.15';
    expect(out.names('Library')).toEqual([library]);
    expect(out.edges).toEqual([
      `AFFECTS CVE-2022-22965 -> ${image}`,
      `AFFECTS CVE-2022-22965 -> ${library}`,
      `DEPENDS_ON ${image} -> ${library}`,
    ]);
    expect(out.node('Library', library).properties).toMatchObject({
      ecosystem: 'maven',
      package_type: 'jar',
      version: '5.3.15',
      path: 'usr/local/tomcat/webapps/helloworld.war/WEB-INF/lib/spring-beans-5.3.15.jar',
    });
    // Trivy's severity came from GHSA, so its CVSS does too.
    expect(out.node('CVE', 'CVE-2022-22965').properties).toMatchObject({
      severity: 'LOW',
      cvss_score: 9.8,
      cvss_source: 'ghsa',
    });
  });

  it('ingests the clean image: no CVE, its Go modules as libraries (not the binary itself)', () => {
    const out = normalize(trivy, readReal('trivy/steadybit-checkout-go-registry-clean.json'));
    expect(out.names('Image')).toEqual(['steadybit/checkout-go:main']);
    expect(out.names('CVE')).toEqual([]);
    expect(out.node('Image', 'steadybit/checkout-go:main').properties).toMatchObject({
      vulnerability_count: 0,
      registry: 'ghcr.io',
      digests: ['sha256:83508b68ad4cc406d89f3493f339a6203ddc91160fe04ad6c21f2a4c351ba54e'],
    });
    const libraries = out.names('Library');
    expect(libraries).toHaveLength(41);
    expect(libraries).toContain('pkg:golang/github.com/gorilla/mux@v1.8.1');
    expect(libraries).not.toContain('pkg:golang/checkout');
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON'))).toHaveLength(41);
    expect(out.scope).toBe('image:steadybit/checkout-go:main');
  });

  it('records secrets Trivy found by rule and place, never the matched text', () => {
    const report = readReal('trivy/alpine-310-registry.json') as Record<string, any>;
    report.Results.push({
      Target: '/app/.env',
      Class: 'secret',
      Secrets: [
        {
          RuleID: 'aws-access-key-id',
          Category: 'AWS',
          Severity: 'CRITICAL',
          Title: 'AWS Access Key ID',
          StartLine: 3,
          Match: 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
          Code: { Lines: [{ Content: 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE' }] },
        },
      ],
    });
    report.Results.push({
      Target: 'Dockerfile',
      Class: 'config',
      Misconfigurations: [
        { AVDID: 'AVD-DS-0002', Title: 'Image user should not be root', Severity: 'HIGH', Status: 'FAIL' },
        { AVDID: 'AVD-DS-0001', Title: "':latest' tag used", Severity: 'MEDIUM', Status: 'PASS' },
      ],
    });
    const out = normalize(trivy, report);
    expect(out.names('Secret')).toEqual(['alpine:3.10:/app/.env:3:aws-access-key-id']);
    expect(out.names('Misconfiguration')).toEqual(['alpine:3.10:Dockerfile:DS-0002']);
    expect(out.node('Misconfiguration', 'alpine:3.10:Dockerfile:DS-0002').properties).toMatchObject({
      check_id: 'DS-0002',
      reported_avd_id: 'AVD-DS-0002',
    });
    expect(JSON.stringify(out.envelopes)).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(out.edges).toContain('AFFECTS alpine:3.10:/app/.env:3:aws-access-key-id -> alpine:3.10');
  });
});
