// The grype source: minimal reports and their negative twins, then real Grype output (DefectDojo's
// unittests/scans/anchore_grype, fixtures/unseen/grype, provenance in fixtures/unseen/SOURCES.md) read as
// `pathgate ingestreal` reads it, and the join with a Trivy scan of the same image.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createGrypeSource } from '../../../src/ingest/sources/grype.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const grype = createGrypeSource();
const trivy = createTrivySource();
const real = (name: string): Record<string, unknown> => {
  const { body } = readReport(
    readFileSync(new URL(`../../../fixtures/unseen/grype/${name}.json`, import.meta.url), 'utf8'),
  );
  expect(recognizeReport(body)).toBe('grype');
  return body as Record<string, unknown>;
};

const imageReport = (matches: unknown[]) => ({
  matches,
  source: {
    type: 'image',
    target: {
      userInput: 'python:3.9',
      imageID: 'sha256:abc',
      repoDigests: [`python@sha256:${'1'.repeat(64)}`],
    },
  },
  descriptor: { name: 'grype', version: '0.80.0' },
});
const ghsaMatch = {
  vulnerability: {
    id: 'GHSA-v6rh-hp5x-86rv',
    severity: 'High',
    cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N', type: 'Secondary', metrics: { baseScore: 7.5 } }],
    fix: { versions: ['3.2.10'], state: 'fixed' },
  },
  relatedVulnerabilities: [
    { id: 'CVE-2021-44420', epss: [{ cve: 'CVE-2021-44420', epss: 0.02, percentile: 0.8 }] },
  ],
  artifact: { name: 'django', version: '3.2.9', type: 'python', purl: 'pkg:pypi/django@3.2.9' },
};

describe('grype image scans', () => {
  it('a GHSA match joins its CVE; the library by purl; CVSS, EPSS and fix as the model reads them', () => {
    const out = normalize(grype, imageReport([ghsaMatch]));
    expect(out.names('Image')).toEqual(['python:3.9']);
    expect(out.node('Image', 'python:3.9').properties).toMatchObject({
      digests: [`sha256:${'1'.repeat(64)}`],
      scanner: 'grype',
      vulnerability_count: 1,
    });
    expect(out.names('CVE')).toEqual(['CVE-2021-44420']);
    expect(out.node('CVE', 'CVE-2021-44420').properties).toMatchObject({
      severity: 'HIGH',
      cvss_score: 7.5,
      epss: 0.02,
      aliases: ['GHSA-v6rh-hp5x-86rv'],
    });
    expect(out.edges).toEqual(
      [
        'AFFECTS CVE-2021-44420 -> python:3.9',
        'AFFECTS CVE-2021-44420 -> pkg:pypi/django@3.2.9',
        'DEPENDS_ON python:3.9 -> pkg:pypi/django@3.2.9',
      ].sort(),
    );
    expect(out.edgeProps('AFFECTS', 'CVE-2021-44420', 'python:3.9')).toMatchObject({
      fixed_version: '3.2.10',
      advisory: 'GHSA-v6rh-hp5x-86rv',
    });
    expect(out.scope).toBe('image:python:3.9');
  });

  it('negative twin: a GHSA with no related CVE keeps its own id; an OS package draws no Library', () => {
    const out = normalize(
      grype,
      imageReport([
        { ...ghsaMatch, relatedVulnerabilities: [] },
        {
          vulnerability: { id: 'CVE-2020-1', cvssV3: { baseScore: 5 }, cvssV2: { baseScore: 9 } },
          artifact: { name: 'libc6', version: '2.28', type: 'deb', purl: 'pkg:deb/debian/libc6@2.28' },
        },
      ]),
    );
    expect(out.names('CVE')).toEqual(['CVE-2020-1', 'GHSA-v6rh-hp5x-86rv']);
    // Grype 0.7's cvssV3 is preferred to its cvssV2.
    expect(out.node('CVE', 'CVE-2020-1').properties).toMatchObject({ cvss_score: 5 });
    expect(out.names('Library')).toEqual(['pkg:pypi/django@3.2.9']);
  });

  it('an empty matches list is a clean scan of the image', () => {
    const out = normalize(grype, imageReport([]));
    expect(out.node('Image', 'python:3.9').properties).toMatchObject({
      vulnerability_count: 0,
    });
    expect(out.names('CVE')).toEqual([]);
  });

  it('malformed reports are 400s naming the pointer and value', () => {
    expect(rejection(grype, { matches: [] })[0]).toMatchObject({ pointer: '/source' });
    expect(
      rejection(grype, imageReport([{ vulnerability: { id: 7 }, artifact: { name: 'x' } }]))[0],
    ).toMatchObject({ pointer: '/matches/0/vulnerability/id', value: 7 });
    const scored = {
      ...ghsaMatch,
      vulnerability: { ...ghsaMatch.vulnerability, cvss: [{ metrics: { baseScore: 11 } }] },
    };
    expect(rejection(grype, imageReport([scored]))[0]).toMatchObject({
      pointer: '/matches/0/vulnerability/cvss/0/metrics/baseScore',
      value: 11,
    });
    const noInput = { ...imageReport([]), source: { type: 'image', target: { imageID: 'sha256:abc' } } };
    expect(rejection(grype, noInput)[0].pointer).toBe('/source/target/userInput');
    const bad = { ...imageReport([]), source: { type: 'image', target: { userInput: 'UPPER CASE!' } } };
    expect(rejection(grype, bad)[0]).toMatchObject({
      pointer: '/source/target/userInput',
      value: 'UPPER CASE!',
    });
    const registry = { ...imageReport([]), source: { type: 'registry-sbom', target: 'x' } };
    expect(rejection(grype, registry)[0]).toMatchObject({ pointer: '/source/type', value: 'registry-sbom' });
  });

  it('a directory scan needs ?repo=, and then maps as a trivy fs scan', () => {
    const dir = { matches: [ghsaMatch], source: { type: 'directory', target: '.' } };
    expect(rejection(grype, dir)[0]).toMatchObject({ pointer: '/query/repo', value: null });
    const out = normalize(grype, dir, { repo: 'github.com/acme/app' });
    expect(out.names('Repository')).toEqual(['github.com/acme/app']);
    expect(out.scope).toBe('repo:github.com/acme/app');
  });
});

describe('real Grype reports (DefectDojo unittests/scans/anchore_grype)', () => {
  it('0.94 busybox:1.32.1: 15 CVEs with EPSS on the image, its repo digest, no library for a binary', () => {
    const out = normalize(grype, real('defectdojo-many_vulns_with_epss_values'));
    expect(out.names('Image')).toEqual(['busybox:1.32.1']);
    expect(out.node('Image', 'busybox:1.32.1').properties?.digests).toEqual([
      'sha256:ae39a6f5c07297d7ab64dbd4f82c77c874cc6a94cea29fdec309d0992574b4f7',
    ]);
    expect(out.names('CVE')).toHaveLength(15);
    expect(out.node('CVE', 'CVE-2022-28391').properties).toMatchObject({
      severity: 'HIGH',
      cvss_score: 8.8,
      epss: 0.0719,
    });
    expect(out.names('Library')).toEqual([]);
  });

  it('0.28 check_all_fields: the GHSA on Django joins CVE-2021-44420; two libc packages one CVE node', () => {
    const out = normalize(grype, real('defectdojo-check_all_fields'));
    expect(out.names('CVE')).toEqual(['CVE-2004-0971', 'CVE-2021-32626', 'CVE-2021-33574', 'CVE-2021-44420']);
    // Grype writes `pkg:pypi/Django`: named as PyPI (and Trivy) spell it, so both scans meet.
    expect(out.names('Library')).toEqual(['pkg:pypi/django@3.2.9', 'pkg:pypi/redis@4.0.2']);
    expect(out.scope).toBe('image:vulnerable-image:latest');
  });

  it('0.24 directory scan: the repository ?repo= names depends on the npm and pip libraries', () => {
    const out = normalize(grype, real('defectdojo-many_vulns4'), { repo: 'github.com/acme/app' });
    expect(out.names('Repository')).toEqual(['github.com/acme/app']);
    expect(out.names('CVE')).toContain('CVE-2021-23334');
    expect(out.names('CVE')).not.toContain('GHSA-8v27-2fg9-7h62');
    expect(out.names('Library')).toContain('pkg:npm/static-eval@2.1.0');
  });

  it('0.7 busybox:latest with no match: a clean scan', () => {
    const out = normalize(grype, real('defectdojo-no_vuln'));
    expect(out.node('Image', 'busybox:latest').properties?.vulnerability_count).toBe(0);
  });
});

describe('a Grype scan and a Trivy scan of the same image meet on the same nodes', () => {
  // No public Trivy report of busybox:1.32.1 exists in either repository: this Trivy side is BUILT FROM THE
  // GRYPE FINDINGS (its first five CVEs, plus one of its own), labelled as such; the join is the code's.
  it('one Image node; CVEs are the union, each one node', () => {
    const grypeReport = real('defectdojo-many_vulns_with_epss_values');
    const g = normalize(grype, grypeReport);
    const fromGrype = (grypeReport.matches as { vulnerability: { id: string } }[])
      .slice(0, 5)
      .map((m) => m.vulnerability.id);
    const t = normalize(trivy, {
      SchemaVersion: 2,
      ArtifactName: 'busybox:1.32.1',
      ArtifactType: 'container_image',
      Metadata: {
        RepoDigests: ['busybox@sha256:ae39a6f5c07297d7ab64dbd4f82c77c874cc6a94cea29fdec309d0992574b4f7'],
      },
      Results: [
        {
          Target: 'busybox:1.32.1 (busybox)',
          Class: 'os-pkgs',
          Vulnerabilities: [...fromGrype, 'CVE-2099-0001'].map((id) => ({
            VulnerabilityID: id,
            PkgName: 'busybox',
            InstalledVersion: '1.32.1',
            Severity: 'HIGH',
          })),
        },
      ],
    });
    expect(t.names('Image')).toEqual(g.names('Image'));
    const union = new Set([...g.names('CVE'), ...t.names('CVE')]);
    expect(union.size).toBe(16);
    expect(t.scope).toBe(g.scope);
  });
});
