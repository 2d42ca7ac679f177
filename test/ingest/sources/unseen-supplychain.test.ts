// SBOMs and attestations the supplychain source had not seen (fixtures/unseen/sbom and
// fixtures/unseen/provenance, provenance in fixtures/unseen/SOURCES.md), read as `pathgate ingestreal` reads
// them and mapped by the real normalizer: what each file shows, named as the other sources name it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageRef } from '../../../src/identity/package-ref.js';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { createTrivySource } from '../../../src/ingest/sources/trivy.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const supplychain = createSupplyChainSource();
const file = (path: string): unknown => {
  const { body } = readReport(
    readFileSync(new URL(`../../../fixtures/unseen/${path}`, import.meta.url), 'utf8'),
  );
  expect(recognizeReport(body), path).toBe('supplychain');
  return body;
};
const REPO = 'github.com/acme/app';

describe('CycloneDX SBOMs of images', () => {
  it('syft 0.58 (alpine): its legacy pkg:alpine packages are the apk Packages Trivy names, the image pinned', () => {
    const out = normalize(supplychain, file('sbom/guac-syft-alpine-cyclonedx.json'));
    const image = 'alpine:latest';
    expect(out.names('Library')).toEqual([]);
    expect(out.names('Package')).toHaveLength(14);
    expect(out.edges).toContain(`DEPENDS_ON ${image} -> pkg:apk/alpine/musl@1.2.3-r0`);
    // Trivy's purl for the same package names the same node.
    expect(
      packageRef({ name: 'musl', purl: 'pkg:apk/alpine/musl@1.2.3-r0?arch=x86_64&distro=3.16.2' })?.name,
    ).toBe('pkg:apk/alpine/musl@1.2.3-r0');
    expect(out.node('Image', image).properties).toMatchObject({
      digests: ['sha256:cbaa390ec61abd889dfa5146a411c11717c19ef9e5e18458dbdc06439076ffe7'],
      sbomComponents: 14,
      sbom_format: 'cyclonedx 1.4',
    });
  });

  it('syft 0.58 (distroless): `+` in Debian versions names the node Trivy`s %2B names', () => {
    const out = normalize(supplychain, file('sbom/guac-syft-distroless-cyclonedx.json'));
    expect(out.names('Package')).toEqual([
      'pkg:deb/debian/base-files@11.1+deb11u5',
      'pkg:deb/debian/netbase@6.3',
      'pkg:deb/debian/tzdata@2021a-1+deb11u6',
    ]);
    const trivy = packageRef({
      name: 'base-files',
      purl: 'pkg:deb/debian/base-files@11.1%2Bdeb11u5?arch=amd64',
    });
    expect(trivy?.name).toBe('pkg:deb/debian/base-files@11.1+deb11u5');
    expect(out.names('Image')).toEqual(['distroless/static:nonroot']);
  });

  it('JFrog Xray: the image pinned by its `sha256__` digest, not tagged with it; its CVE affects the image', () => {
    const out = normalize(supplychain, file('sbom/guac-xray-cdx-vulns.json'));
    const image = 'maven@sha256:09c4bf58d7e7e31bdc1ab73ef10349b3a47c9a814e715e409034fb3293253ce2';
    expect(out.names('Image')).toEqual([image]);
    expect(out.edges).toEqual([`AFFECTS CVE-2011-3374 -> ${image}`]);
  });

  it('grype 0.41 (log4j, given ?image=): eight vulnerabilities in triage all affect log4j-core', () => {
    const out = normalize(supplychain, file('sbom/defectdojo-grype-log4j.cdx.json'), { image: 'acme/app:1' });
    const log4j = 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2';
    expect(out.names('Library')).toEqual([log4j]);
    expect(out.names('CVE')).toHaveLength(8);
    for (const cve of out.names('CVE')) expect(out.edges).toContain(`AFFECTS ${cve} -> ${log4j}`);
    expect(out.node('CVE', 'CVE-2021-44228').properties).toMatchObject({
      severity: 'CRITICAL',
      cvss_score: 10,
    });
    expect(out.warnings).toEqual([]);
  });

  it('a VEX marking its one vulnerability (a Snyk id, CVE-2018-7489) not_affected: no CVE, and a warning naming it', () => {
    const out = normalize(supplychain, file('sbom/defectdojo-valid-vulnerability-1.4.cdx.json'), {
      image: 'acme/app:1',
    });
    expect(out.names('CVE')).toEqual([]);
    expect(out.edges).toEqual([
      'DEPENDS_ON acme/app:1 -> pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.4',
    ]);
    expect(out.warnings).toEqual([expect.stringMatching(/CVE-2018-7489 \(not_affected\)/)]);
  });
});

describe('CycloneDX SBOMs of repositories', () => {
  it('trivy fs (pom.xml): the repository and library the same scan names in Trivy JSON, with its two CVEs', () => {
    const sbom = normalize(supplychain, file('sbom/trivy-pom-cyclonedx.json'), { repo: REPO });
    const library = 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.1';
    const json = normalize(
      createTrivySource(),
      readReport(readFileSync(new URL('../../../fixtures/unseen/trivy/pom.json', import.meta.url), 'utf8'))
        .body,
      { repo: REPO },
    );
    // The same library and CVEs on the same repository, whichever format Trivy wrote.
    for (const edge of [
      `DEPENDS_ON ${REPO} -> ${library}`,
      `AFFECTS CVE-2020-9548 -> ${library}`,
      `AFFECTS CVE-2021-20190 -> ${REPO}`,
    ]) {
      expect(sbom.edges, edge).toContain(edge);
      expect(json.edges, edge).toContain(edge);
    }
    expect(sbom.node('CVE', 'CVE-2020-9548').properties).toMatchObject({
      severity: 'CRITICAL',
      cvss_score: 9.8,
    });
    // Without ?repo= (a local path, no image) the 400 says how to name it.
    expect(rejection(supplychain, file('sbom/trivy-pom-cyclonedx.json'))[0]).toMatchObject({
      pointer: '/metadata/component',
    });
  });

  it('cyclonedx-gomod (proton-bridge v1.8.0): 201 Go modules of the repository, not the application itself', () => {
    const out = normalize(supplychain, file('sbom/bom-examples-proton-bridge-v1.8.0.cdx.json'), {
      repo: REPO,
    });
    const libraries = out.names('Library');
    expect(libraries).toHaveLength(201);
    expect(libraries.every((l) => l.startsWith('pkg:golang/'))).toBe(true);
    expect(libraries).toContain(
      'pkg:golang/github.com/ProtonMail/go-crypto@v0.0.0-20201208171014-cdb7591792e2',
    );
    expect(libraries).not.toContain('pkg:golang/github.com/ProtonMail/proton-bridge@v1.8.0');
  });

  it('cyclonedx-php-composer (laravel 7.12): 62 composer packages, laravel/framework among them', () => {
    const out = normalize(supplychain, file('sbom/bom-examples-laravel-7.12.0.cdx.json'), { repo: REPO });
    expect(out.names('Library')).toHaveLength(62);
    expect(out.edges).toContain(`DEPENDS_ON ${REPO} -> pkg:composer/laravel/framework@v7.30.6`);
  });

  it('jake (OSS Index): seven Django vulnerabilities named by the CVE each refers to, the UUID kept', () => {
    const out = normalize(supplychain, file('sbom/defectdojo-jake2.cdx.json'), { repo: REPO });
    expect(out.names('Library')).toHaveLength(67);
    expect(out.names('CVE')).toEqual([
      'CVE-2018-14574',
      'CVE-2018-6188',
      'CVE-2018-7536',
      'CVE-2018-7537',
      'CVE-2019-3498',
      'CVE-2019-6975',
      'CVE-2021-33203',
    ]);
    expect(out.node('CVE', 'CVE-2021-33203').properties).toMatchObject({
      advisory_id: 'c7129ff8-08bc-4afe-82ec-7d97b9491741',
      severity: 'HIGH',
      cvss_score: 7.5,
    });
    expect(out.edges).toContain('AFFECTS CVE-2021-33203 -> pkg:pypi/django@2.0');
  });
});

describe('SPDX SBOMs', () => {
  for (const path of ['sbom/trivy-conda-spdx.json', 'sbom/trivy-bitnami-elasticsearch.spdx.json'])
    it(`${path}: describing no image, it asks which repository (or image) it describes`, () => {
      expect(rejection(supplychain, file(path))).toEqual([
        expect.objectContaining({ pointer: '/documentDescribes' }),
      ]);
    });
});

describe('attestations by their predicate', () => {
  it('cosign CycloneDX attestation (centos): the two rpm packages of the attested image, no SLSA level', () => {
    const out = normalize(supplychain, file('provenance/trivy-centos-7-cyclonedx.intoto.jsonl'));
    const image = 'centos@sha256:be65f488b7764ad3638f236b7b515b3678369a5124c47b8d32916d6487418ea4';
    expect(out.edges).toEqual([
      `DEPENDS_ON ${image} -> pkg:rpm/centos/bash@4.2.46-31.el7`,
      `DEPENDS_ON ${image} -> pkg:rpm/centos/openssl-libs@1.0.2k-16.el7`,
    ]);
    const props = out.node('Image', image).properties;
    // cosign signed it keylessly; the envelope alone carries no certificate: signature_unverified, not signed.
    expect(props).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      sbomComponents: 2,
      provenance_predicate: ['https://cyclonedx.org/bom'],
    });
    expect(props).not.toHaveProperty('slsaLevel');
  });

  it("cosign's older `Data` wrapper: six packages, the Go module nested under its binary included", () => {
    const out = normalize(supplychain, file('provenance/trivy-sbom.cdx.intoto.jsonl'));
    expect([...out.names('Package'), ...out.names('Library')]).toEqual([
      'pkg:apk/alpine/musl@1.2.3-r0',
      'pkg:composer/pear/log@1.13.1',
      'pkg:composer/pear/pear_exception@v1.0.0',
      'pkg:golang/github.com/package-url/packageurl-go@v0.1.1-0.20220203205134-d70459300c8a',
      'pkg:maven/org.codehaus.mojo/child-project@1.0',
      'pkg:npm/bootstrap@5.0.2',
    ]);
  });

  it("cosign's generic attestation: the image stamped signature_unverified (no key given), no SLSA level, nothing else", () => {
    const out = normalize(supplychain, file('provenance/trivy-cosign-attestation.json'));
    const image =
      'aquasecurity/trivy-test-images@sha256:72c42ed48c3a2db31b7dafe17d275b634664a708d901ec9fd57b1529280f01fb';
    expect(out.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([`Image ${image}`]);
    expect(out.node('Image', image).properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
    });
    expect(out.node('Image', image).properties).not.toHaveProperty('slsaLevel');
  });

  it('Google Cloud Build (gcloud --show-provenance): the image, its repository and commit; its KMS signature signature_unverified without the key', () => {
    const out = normalize(
      supplychain,
      file('provenance/slsa-verifier-gcb-v0.2-gcloud-container-github.json'),
    );
    const image = 'gosst-scare-sandbox/quickstart-docker-repo/quickstart-image:v14';
    expect(out.edges).toEqual([`BUILT_FROM ${image} -> github.com/laurentsimon/gcb-tests`]);
    expect(out.edgeProps('BUILT_FROM', image, 'github.com/laurentsimon/gcb-tests')).toMatchObject({
      commit_sha: 'fbbb98765e85ad464302dc5977968104d36e455e',
    });
    expect(out.node('Image', image).properties).toMatchObject({
      registry: 'us-west2-docker.pkg.dev',
      digests: ['sha256:1a033b002f89ed2b8ea733162497fb70f1a4049a7f8602d6a33682b4ad9921fd'],
      provenance_builder: 'https://cloudbuild.googleapis.com/GoogleHostedWorker@v0.2',
      provenance_format: 'gcb-provenance',
      signed: false,
      signature: 'signature_unverified',
      slsaLevel: 1,
    });
  });

  it('Sigstore bundle v0.3 (GitHub attestation, SLSA v1): the release tarball built from rules_lint', () => {
    const out = normalize(
      supplychain,
      file('provenance/slsa-verifier-bcr-rules_lint-v1.3.1.tar.gz.intoto.jsonl'),
    );
    expect(out.edges).toEqual(['BUILT_FROM rules_lint-v1.3.1.tar.gz -> github.com/aspect-build/rules_lint']);
    expect(
      out.edgeProps('BUILT_FROM', 'rules_lint-v1.3.1.tar.gz', 'github.com/aspect-build/rules_lint'),
    ).toMatchObject({ commit_sha: '8f70009fde0c94ade6ce2a054b94718c819126ec' });
    expect(out.node('Package', 'rules_lint-v1.3.1.tar.gz').properties).toMatchObject({
      provenance_format: 'sigstore-bundle',
      provenance_predicate: ['https://slsa.dev/provenance/v1'],
      // GitHub's attestation verifies offline against the public-good root.
      signed: true,
      signature: 'signed',
      slsaLevel: 2,
    });
  });

  it('slsa-github-generator at a release tag: both artifacts built from the tagged commit; the bare envelope signature_unverified, level 1', () => {
    const out = normalize(supplychain, file('provenance/slsa-verifier-annotated-tag.intoto.jsonl'));
    expect(out.names('Package')).toEqual(['artifact1', 'artifact2']);
    for (const artifact of ['artifact1', 'artifact2']) {
      // The SLSA3 builder's signature is not verifiable from the envelope alone: no level 3 on its word.
      expect(out.node('Package', artifact).properties).toMatchObject({
        signature: 'signature_unverified',
        slsaLevel: 1,
        slsa_level_basis: 'provenance',
      });
      expect(out.edgeProps('BUILT_FROM', artifact, 'github.com/asraa/slsa-on-github-test')).toMatchObject({
        commit_sha: 'f24af35a7c714f1b4eeb53afefb57fa11bd5c95c',
      });
    }
  });

  it('Tekton Chains (SLSA v0.2, signed): the ttl.sh image by digest, signature_unverified without its key (level 1), no source repository', () => {
    const out = normalize(supplychain, file('provenance/guac-tekton-chains-oci-dsse-att.json'));
    const image =
      'b46737a24c11fd47c240f357a558be31/example-sample@sha256:9e183c89765d92a440f44ac7059385c778cbadad0ee8fe3208360efb07c0ba09';
    expect(out.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([`Image ${image}`]);
    expect(out.node('Image', image).properties).toMatchObject({
      registry: 'ttl.sh',
      provenance_builder: 'https://tekton.dev/chains/v2',
      provenance_build_type: 'tekton.dev/v1beta1/TaskRun',
      signature: 'signature_unverified',
      slsaLevel: 1,
    });
  });
});

describe('Sigstore bundles over a blob (sigstore-python test assets)', () => {
  it('CPython 3.12.5`s release tarball: by thomas@python.org, stamped signature_unverified (the blob is not sent) on the image ?image= names', () => {
    const out = normalize(
      supplychain,
      file('provenance/sigstore-python-integration-Python-3.12.5.tgz.sigstore'),
      {
        image: 'python:3.12.5',
      },
    );
    expect(out.node('Image', 'python:3.12.5').properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_verified: false,
      provenance_format: 'sigstore-bundle',
      signer_identity: 'thomas@python.org',
      signer_issuer: 'https://accounts.google.com',
    });
    expect(out.warnings).toEqual([expect.stringMatching(/signature_unverified: the bundle signs a blob/)]);
  });

  it('a wheel signed by its release workflow (v0.2) and a file signed through GitHub login (v0.3), unnamed: said, not refused', () => {
    const wheel = normalize(supplychain, file('provenance/sigstore-python-bundle_v3_github.whl.sigstore'));
    expect(wheel.nodes).toEqual([]);
    expect(wheel.warnings).toEqual([
      'supplychain report: the Sigstore bundle signs a blob (messageSignature over ' +
        'sha256:c4e92e9ecc828bef2aa7dba1de8ac983511f7532a0df11c770d39099a25cf201, signed by ' +
        'https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2 (issuer ' +
        'https://token.actions.githubusercontent.com)) and does not name the artifact: nothing is stamped; send ' +
        'it with ?image=<reference> naming the image it signs',
      expect.stringMatching(/signature_unverified: the bundle signs a blob/),
    ]);
    const text = normalize(supplychain, file('provenance/sigstore-python-bundle_v3.txt.sigstore'));
    expect(text.warnings.join()).toMatch(
      /over sha256:5e6ae9de58c1177bea615b4fcbfb2fd688e8c4b51c2e56b6a38e817833ec24a2, signed by william@yossarian\.net \(issuer https:\/\/github\.com\/login\/oauth\)/,
    );
  });

  it('a DSSE bundle v0.3 (conformance beacon, Sigstore staging): its subject carries the workflow that signed it, signature_unverified against the public-good root', () => {
    const out = normalize(
      supplychain,
      file('provenance/sigstore-python-a.dsse.staging-rekor-v2.txt.sigstore.json'),
    );
    expect(out.node('Package', 'a.txt').properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_problem: expect.stringContaining('public-good'),
      signer_identity:
        'https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main',
      signer_issuer: 'https://token.actions.githubusercontent.com',
    });
  });

  it('gh attestation download`s bundles (npm sigstore 2.1.0): the GitHub Actions workflow that signed', () => {
    const out = normalize(supplychain, file('provenance/gh-cli-sigstore-js-2.1.0_with_2_bundles.jsonl'));
    expect(out.node('Library', 'pkg:npm/sigstore@2.1.0').properties).toMatchObject({
      signed: true,
      signature: 'signed',
      signer_identity:
        'https://github.com/sigstore/sigstore-js/.github/workflows/release.yml@refs/heads/main',
      signer_issuer: 'https://token.actions.githubusercontent.com',
    });
  });
});

describe('PyPI PEP 740 attestations (trailofbits/pypi-attestations test assets)', () => {
  it('a publish attestation (Sigstore staging): the wheel by the GitHub login that uploaded it, signature_unverified against the public-good root', () => {
    const out = normalize(
      supplychain,
      file('provenance/pypi-attestations-rfc8785-0.1.2-py3-none-any.whl.publish.attestation'),
    );
    expect(out.names('Library')).toEqual(['pkg:pypi/rfc8785@0.1.2']);
    expect(out.node('Library', 'pkg:pypi/rfc8785@0.1.2').properties).toMatchObject({
      digest: 'sha256:c4e92e9ecc828bef2aa7dba1de8ac983511f7532a0df11c770d39099a25cf201',
      signed: false,
      signature: 'signature_unverified',
      provenance_format: 'pypi-attestation',
      provenance_predicate: ['https://docs.pypi.org/attestations/publish/v1'],
      signer_identity: 'william@yossarian.net',
      signer_issuer: 'https://github.com/login/oauth',
    });
    // A publish attestation is no build provenance: no level.
    expect(out.node('Library', 'pkg:pypi/rfc8785@0.1.2').properties?.slsaLevel).toBeUndefined();
  });

  it('a GitLab-published sdist: the GitLab CI identity and issuer', () => {
    const out = normalize(
      supplychain,
      file('provenance/pypi-attestations-gitlab_oidc_project-0.0.3.tar.gz.publish.attestation'),
    );
    expect(out.node('Library', 'pkg:pypi/gitlab-oidc-project@0.0.3').properties).toMatchObject({
      signed: true,
      signature: 'signed',
      signer_identity: 'https://gitlab.com/facutuesca/gitlab-oidc-project//.gitlab-ci.yml@refs/heads/main',
      signer_issuer: 'https://gitlab.com',
    });
  });

  it('a SLSA v1 attestation: level 2, built from its repository at the tagged commit', () => {
    const out = normalize(
      supplychain,
      file('provenance/pypi-attestations-pypi_attestations-0.0.19.tar.gz.slsa.attestation'),
    );
    // The sdist is the package Trivy names from an installed pypi-attestations 0.0.19.
    const sdist = 'pkg:pypi/pypi-attestations@0.0.19';
    expect(packageRef({ name: 'pypi_attestations', purl: 'pkg:pypi/pypi_attestations@0.0.19' })?.name).toBe(
      sdist,
    );
    expect(out.node('Library', sdist).properties).toMatchObject({
      slsaLevel: 2,
      slsa_level_basis: 'signed-provenance',
    });
    expect(out.edgeProps('BUILT_FROM', sdist, 'github.com/trailofbits/pypi-attestations')).toMatchObject({
      commit_sha: '08802efe1f8e5fec4ad842d6b8ce97656092ee72',
    });
  });

  it('the integrity API`s provenance object: its attestations, built from the Trusted Publisher`s repository', () => {
    const out = normalize(
      supplychain,
      file('provenance/pypi-attestations-pypi_attestations-0.0.19.tar.gz.provenance'),
    );
    expect(out.edges).toEqual([
      'BUILT_FROM pkg:pypi/pypi-attestations@0.0.19 -> github.com/trailofbits/pypi-attestations',
    ]);
    expect(out.node('Library', 'pkg:pypi/pypi-attestations@0.0.19').properties).toMatchObject({
      signed: true,
      signature: 'signed',
      provenance_format: 'pypi-provenance',
      signer_identity:
        'https://github.com/trailofbits/pypi-attestations/.github/workflows/release.yml@refs/tags/v0.0.19',
    });
  });
});

describe('SLSA verification summaries (slsa-verifier testdata)', () => {
  it('Google BCID`s summary of a GKE node image: SLSA build level 2 on the resource it names', () => {
    const out = normalize(
      supplychain,
      file('provenance/slsa-verifier-vsa-gce-v1-gke-gce-pre.bcid-vsa.jsonl'),
    );
    const resource = 'gce_image://gke-node-images:gke-12615-gke1418000-cos-101-17162-463-29-c-cgpv1-pre';
    expect(out.names('Package')).toEqual([resource]);
    expect(out.node('Package', resource).properties).toMatchObject({
      slsaLevel: 2,
      slsa_level_basis: 'vsa',
      slsa_verifier: 'https://bcid.corp.google.com/verifier/bcid_package_enforcer/v0.1',
      slsa_verified_levels: ['BCID_L1', 'SLSA_BUILD_LEVEL_2'],
      // Google's key is not given: the summary's level stands on the verifier's word, its signature unverified.
      signature: 'signature_unverified',
    });
    expect(out.warnings).toEqual([
      expect.stringMatching(/signature_unverified: a DSSE envelope carries no certificate/),
    ]);
  });
});
