// The supplychain normalizer: the spec's report (sbom as CycloneDX or a component array), every real SBOM
// and every real provenance shape (in-toto v0.2 and v1, DSSE, Sigstore bundle, npm attestations).
import { describe, expect, it } from 'vitest';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const supplychain = createSupplyChainSource();
const EXAMPLE_REPO = 'github.com/slsa-framework/example-package';
const EXAMPLE_COMMIT = '4d329c75e7ec1725f7c9ce917a8799d408d06be3';

describe('supplychain: the spec report', () => {
  it('stamps the image and makes each component a Library/Package it depends on', () => {
    const out = normalize(supplychain, {
      image: 'ghcr.io/acme/shop:1.4',
      signed: true,
      slsa_level: 3,
      provenance_builder: 'https://github.com/acme/.github/workflows/release.yml@refs/tags/v1',
      source_repo: 'github.com/acme/shop',
      sbom: [
        { name: 'express', version: '4.18.2', type: 'library', purl: 'pkg:npm/express@4.18.2' },
        { name: 'openssl', version: '3.0.11-1', purl: 'pkg:deb/debian/openssl@3.0.11-1?arch=amd64' },
        { name: 'org.yaml:snakeyaml', version: '1.33', type: 'jar' },
        { name: 'express', version: '4.18.2', purl: 'pkg:npm/express@4.18.2?foo=bar' },
      ],
    });
    expect(out.node('Image', 'acme/shop:1.4').properties).toMatchObject({
      resolve_ref: 'ghcr.io/acme/shop:1.4',
      signed: true,
      slsaLevel: 3,
      slsa_level_basis: 'declared',
      provenance_builder: 'https://github.com/acme/.github/workflows/release.yml@refs/tags/v1',
      sbomComponents: 3,
      sbom_format: 'components',
    });
    expect(out.names('Library')).toEqual(['pkg:maven/org.yaml/snakeyaml@1.33', 'pkg:npm/express@4.18.2']);
    expect(out.names('Package')).toEqual(['pkg:deb/debian/openssl@3.0.11-1']);
    expect(out.edges).toEqual([
      'BUILT_FROM acme/shop:1.4 -> github.com/acme/shop',
      'DEPENDS_ON acme/shop:1.4 -> pkg:deb/debian/openssl@3.0.11-1',
      'DEPENDS_ON acme/shop:1.4 -> pkg:maven/org.yaml/snakeyaml@1.33',
      'DEPENDS_ON acme/shop:1.4 -> pkg:npm/express@4.18.2',
    ]);
  });

  it('takes a CycloneDX document as sbom, and provenance to derive the builder and level', () => {
    const out = normalize(supplychain, {
      image:
        'ghcr.io/slsa-framework/example-package@sha256:234e2c830c2fb31ac5671789d22adfe44d30c3ee831d01beae5e237841a13122',
      sbom: readReal('sbom/trivy-bitnami-elasticsearch.cdx.json'),
      provenance: readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json'),
    });
    const [image] = out.nodes.filter((n) => n.label === 'Image');
    expect(image.properties).toMatchObject({
      signed: true,
      signature_verified: false,
      slsaLevel: 3,
      slsa_level_basis: 'slsa3-builder',
      provenance_builder:
        'https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml@refs/tags/v2.1.0',
      sbomComponents: 2,
      sbom_format: 'cyclonedx 1.5',
    });
    expect(out.names('Repository')).toEqual([EXAMPLE_REPO]);
    expect(out.warnings).toEqual([]);
  });

  it('warns when the provenance is about another digest than the image', () => {
    const out = normalize(supplychain, {
      image: 'ghcr.io/acme/shop@sha256:' + 'a'.repeat(64),
      provenance: readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.statement.decoded.json'),
    });
    expect(out.warnings.join()).toMatch(/do not include sha256:a{64}/);
    // An unsigned statement is provenance only: SLSA 1.
    expect(out.nodes.find((n) => n.label === 'Image')!.properties).toMatchObject({
      signed: false,
      slsaLevel: 1,
    });
  });

  it('refuses a bad report field by field', () => {
    expect(rejection(supplychain, { signed: true })[0]).toMatchObject({ pointer: '/image' });
    expect(rejection(supplychain, { image: 'acme/shop:1', slsa_level: 7 })[0]).toMatchObject({
      pointer: '/slsa_level',
    });
    expect(rejection(supplychain, { image: 'Not An Image' })[0]).toMatchObject({
      pointer: '/image',
      value: 'Not An Image',
    });
    expect(rejection(supplychain, { image: 'acme/shop:1', sbom: [{ version: '1' }] })[0]).toMatchObject({
      pointer: '/sbom/0/name',
    });
    expect(rejection(supplychain, { image: 'acme/shop:1', sbom: { bomFormat: 'SPDX' } })[0]).toMatchObject({
      pointer: '/sbom/bomFormat',
    });
    const envelope = readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json');
    expect(
      rejection(supplychain, { image: 'acme/shop:1', provenance: { ...envelope, payload: '!!!' } })[0],
    ).toMatchObject({ pointer: '/provenance/payload' });
    expect(
      rejection(supplychain, {
        image: 'acme/shop:1',
        provenance: { ...envelope, payloadType: 'text/plain' },
      })[0],
    ).toMatchObject({ pointer: '/provenance/payloadType', value: 'text/plain' });
  });
});

describe('supplychain: real SBOMs on their own', () => {
  it('names the image from the SBOM: Trivy reference and digest, or the component name', () => {
    const ubuntu = normalize(supplychain, readReal('sbom/defectdojo-issue_9277-trivy-ubuntu.cdx.json'));
    expect(ubuntu.names('Image')).toEqual(['ubuntu:latest']);
    expect(ubuntu.node('Image', 'ubuntu:latest').properties).toMatchObject({
      digests: ['sha256:6042500cf4b44023ea1894effe7890666b0c5c7871ed83a97c36c76ae560bb9b'],
      sbomComponents: 101,
    });
    expect(ubuntu.names('Package')).toHaveLength(101);
    expect(ubuntu.names('Package').every((p) => p.startsWith('pkg:deb/ubuntu/') && !p.includes('?'))).toBe(
      true,
    );
    const centos = normalize(supplychain, readReal('sbom/trivy-centos-7.cdx.json'));
    expect(centos.names('Image')).toEqual(['aquasecurity/trivy-test-images:centos-7']);
    expect(centos.names('Package')).toHaveLength(2);
    const bitnami = normalize(supplychain, readReal('sbom/trivy-bitnami-elasticsearch.cdx.json'));
    expect(bitnami.names('Image')).toEqual(['bitnami/elasticsearch:8.7.1-debian-11-r7']);
    expect(bitnami.names('Library')).toHaveLength(2);
  });

  it('reads libraries and distribution packages of a multi-lockfile image (nested components)', () => {
    const out = normalize(supplychain, readReal('sbom/trivy-fluentd-multiple-lockfiles.cdx.json'));
    expect(out.names('Image')).toEqual(['aquasecurity/trivy-test-images:fluentd-multiple-lockfiles']);
    expect(out.names('Package')).toHaveLength(105);
    expect(out.names('Library')).toHaveLength(55);
    expect(out.names('Library').every((l) => l.startsWith('pkg:gem/'))).toBe(true);
    expect(out.edges.filter((e) => e.startsWith('DEPENDS_ON'))).toHaveLength(160);
  });

  it('asks for ?image= when the SBOM does not name its image, then links its vulnerabilities', () => {
    const sbom = readReal('sbom/trivy-fluentd-multiple-lockfiles-short-with-vulns.cdx.json');
    expect(rejection(supplychain, sbom)).toEqual([
      expect.objectContaining({ pointer: '/metadata/component', detail: expect.stringMatching(/\?image=/) }),
    ]);
    const out = normalize(supplychain, sbom, { image: 'ghcr.io/acme/fluentd:1.0' });
    expect(out.names('CVE')).toHaveLength(3);
    const cve = out.node('CVE', 'CVE-2019-18224');
    expect(cve.properties).toMatchObject({ cvss_score: 9.8, cvss_source: 'nvd', cwe: ['CWE-787'] });
    expect(out.edges).toContain('AFFECTS CVE-2019-18224 -> acme/fluentd:1.0');
    expect(out.edges.some((e) => e.startsWith('AFFECTS CVE-2019-18224 -> pkg:deb/'))).toBe(true);
    expect(out.mentioned).toHaveLength(3);
  });
});

describe('supplychain: real provenance on its own', () => {
  it('in-toto statement, SLSA v0.2 (BuildKit): image subject by purl and digest, source and commit', () => {
    const out = normalize(
      supplychain,
      readReal('sbom/provenance/buildkit-container-provenance-v0.2.statement.json'),
    );
    const name = 'slsa-framework/example-package.verifier-e2e.all.tag.main.default.slsa3:main';
    expect(out.names('Image')).toEqual([name]);
    expect(out.node('Image', name).properties).toMatchObject({
      digests: ['sha256:d1fc0de9c6a33e502c488221644de1736c53d8ddb59b0e41b4946fb26af50e69'],
      signed: false,
      slsaLevel: 1,
      provenance_format: 'in-toto-statement',
    });
    // BuildKit writes an empty builder id: no builder is claimed.
    expect(out.node('Image', name).properties).not.toHaveProperty('provenance_builder');
    expect(out.edges).toEqual([`BUILT_FROM ${name} -> ${EXAMPLE_REPO}`]);
    expect(out.edgeProps('BUILT_FROM', name, EXAMPLE_REPO)).toMatchObject({ commit_sha: EXAMPLE_COMMIT });
  });

  it('DSSE envelope and its decoded statement yield the same subject; only the envelope is signed', () => {
    const envelope = normalize(
      supplychain,
      readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json'),
    );
    const statement = normalize(
      supplychain,
      readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.statement.decoded.json'),
    );
    expect(envelope.names('Image')).toEqual(statement.names('Image'));
    expect(envelope.names('Image')).toEqual([
      'slsa-framework/example-package.verifier-e2e.all.tag.main.default.slsa3@sha256:234e2c830c2fb31ac5671789d22adfe44d30c3ee831d01beae5e237841a13122',
    ]);
    expect(envelope.nodes[0].properties).toMatchObject({
      signed: true,
      slsaLevel: 3,
      provenance_format: 'dsse-envelope',
    });
    expect(statement.nodes[0].properties).toMatchObject({ signed: false, slsaLevel: 1 });
    expect(envelope.edgeProps('BUILT_FROM', envelope.names('Image')[0], EXAMPLE_REPO)).toMatchObject({
      commit_sha: EXAMPLE_COMMIT,
    });
  });

  it('Sigstore bundle with SLSA v1: a binary subject is a Package, built by an SLSA3 builder', () => {
    const bundle = normalize(
      supplychain,
      readReal('sbom/provenance/slsa-github-generator-delegator-v2.1.0.sigstore-bundle.json'),
    );
    const decoded = normalize(
      supplychain,
      readReal('sbom/provenance/slsa-github-generator-delegator-v2.1.0.statement-slsa-v1.decoded.json'),
    );
    const name = 'gha_delegator-binary-linux-amd64-workflow_dispatch';
    expect(bundle.names('Package')).toEqual([name]);
    expect(decoded.names('Package')).toEqual([name]);
    expect(bundle.node('Package', name).properties).toMatchObject({
      digest: 'sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
      signed: true,
      slsaLevel: 3,
      provenance_format: 'sigstore-bundle',
      provenance_predicate: ['https://slsa.dev/provenance/v1'],
    });
    expect(bundle.edgeProps('BUILT_FROM', name, EXAMPLE_REPO)).toMatchObject({ commit_sha: EXAMPLE_COMMIT });
  });

  it('npm attestations (in-toto Statement v1): the package, its repository, commit and builder', () => {
    const attestations = normalize(
      supplychain,
      readReal('sbom/provenance/npm-sigstore-2.3.1-attestations.json'),
    );
    const decoded = normalize(
      supplychain,
      readReal('sbom/provenance/npm-sigstore-2.3.1-provenance-v1.statement.decoded.json'),
    );
    for (const out of [attestations, decoded]) {
      expect(out.names('Library')).toEqual(['pkg:npm/sigstore@2.3.1']);
      expect(out.edges).toEqual(['BUILT_FROM pkg:npm/sigstore@2.3.1 -> github.com/sigstore/sigstore-js']);
      expect(
        out.edgeProps('BUILT_FROM', 'pkg:npm/sigstore@2.3.1', 'github.com/sigstore/sigstore-js'),
      ).toMatchObject({
        commit_sha: '46e7056ff9912ebfee5298d94024895a9fea76c0',
      });
    }
    expect(attestations.node('Library', 'pkg:npm/sigstore@2.3.1').properties).toMatchObject({
      signed: true,
      slsaLevel: 2,
      provenance_builder: 'https://github.com/actions/runner/github-hosted',
      provenance_format: 'npm-attestations',
    });
    expect(decoded.node('Library', 'pkg:npm/sigstore@2.3.1').properties).toMatchObject({
      signed: false,
      slsaLevel: 1,
    });
  });

  it('names an image subject with ?image= when the provenance is for one', () => {
    const out = normalize(
      supplychain,
      readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json'),
      { image: 'ghcr.io/slsa-framework/example-package:v1' },
    );
    expect(out.names('Image')).toEqual(['slsa-framework/example-package:v1']);
    expect(out.node('Image', 'slsa-framework/example-package:v1').properties).toMatchObject({ slsaLevel: 3 });
  });
});
