// The supplychain normalizer: the spec's report (sbom as CycloneDX or a component array), every real SBOM
// and every real provenance shape (in-toto v0.2 and v1, DSSE, Sigstore bundle, npm attestations).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { makeSigner, trustWith } from '../../helpers/dsse-signer.js';
import { normalize, readReal, rejection } from '../../helpers/normalize.js';

const supplychain = createSupplyChainSource();
/** An unverifiable signature's warning (docs/identity.md, "Signatures"). */
const UNVERIFIED_DSSE =
  'supplychain report: signature_unverified: a DSSE envelope carries no certificate: it verifies only against a public key, and ATTESTATION_PUBLIC_KEYS gives none';
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

  it('takes a CycloneDX document as sbom, and provenance to derive the builder and level (its DSSE signature signature_unverified)', () => {
    const out = normalize(supplychain, {
      image:
        'ghcr.io/slsa-framework/example-package@sha256:234e2c830c2fb31ac5671789d22adfe44d30c3ee831d01beae5e237841a13122',
      sbom: readReal('sbom/trivy-bitnami-elasticsearch.cdx.json'),
      provenance: readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.dsse-envelope.json'),
    });
    const [image] = out.nodes.filter((n) => n.label === 'Image');
    // The envelope's signature is by a Fulcio certificate it does not carry: no key verifies it, so it is
    // signature_unverified, never signed, and the provenance counts as unsigned provenance (level 1).
    expect(image.properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_problem: expect.stringContaining('ATTESTATION_PUBLIC_KEYS gives none'),
      signature_verified: false,
      slsaLevel: 1,
      slsa_level_basis: 'provenance',
      provenance_builder:
        'https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_container_slsa3.yml@refs/tags/v2.1.0',
      sbomComponents: 2,
      sbom_format: 'cyclonedx 1.5',
    });
    expect(out.names('Repository')).toEqual([EXAMPLE_REPO]);
    expect(out.warnings).toEqual([UNVERIFIED_DSSE]);
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

  it('DSSE envelope and its decoded statement yield the same subject; the envelope`s signature without its key is signature_unverified', () => {
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
      signed: false,
      signature: 'signature_unverified',
      slsaLevel: 1,
      provenance_format: 'dsse-envelope',
    });
    expect(statement.nodes[0].properties).toMatchObject({
      signed: false,
      signature: 'unsigned',
      slsaLevel: 1,
    });
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
      // Verified offline against the public-good root: Fulcio chain, Rekor entry, signature.
      signed: true,
      signature: 'signed',
      signature_verified: true,
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
      // both bundles verify: the publish attestation by npm's registry key, the provenance by Fulcio and Rekor
      signed: true,
      signature: 'signed',
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
    expect(out.node('Image', 'slsa-framework/example-package:v1').properties).toMatchObject({
      signature: 'signature_unverified',
      slsaLevel: 1,
    });
  });
});

describe('supplychain: attestations read by their predicate', () => {
  const SUBJECT = { name: 'ghcr.io/acme/shop', digest: { sha256: 'c'.repeat(64) } };
  const IMAGE = `acme/shop@sha256:${'c'.repeat(64)}`;
  const BOM = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    components: [{ type: 'library', name: 'express', version: '4.18.2', purl: 'pkg:npm/express@4.18.2' }],
  };
  const signer = makeSigner();
  const supplychain = createSupplyChainSource({ signatures: trustWith(signer) });
  /** A DSSE envelope around an in-toto statement of this predicate, signed by a key the settings give. */
  const envelope = (predicateType: string, predicate: unknown) =>
    signer.envelope({
      _type: 'https://in-toto.io/Statement/v0.1',
      predicateType,
      subject: [SUBJECT],
      predicate,
    });

  it('a signed attestation that is not build provenance stamps signed, but no SLSA level', () => {
    const out = normalize(
      supplychain,
      envelope('cosign.sigstore.dev/attestation/v1', { Data: 'foo\n', Timestamp: '2022-08-03T13:08:27Z' }),
    );
    const props = out.node('Image', IMAGE).properties;
    expect(props).toMatchObject({
      signed: true,
      signature: 'signed',
      provenance_predicate: ['cosign.sigstore.dev/attestation/v1'],
    });
    expect(props).not.toHaveProperty('slsaLevel');
    // Twin: the same envelope carrying SLSA provenance is signed provenance, level 2.
    const slsa = normalize(
      supplychain,
      envelope('https://slsa.dev/provenance/v0.2', { builder: { id: 'b' } }),
    );
    expect(slsa.node('Image', IMAGE).properties).toMatchObject({ slsaLevel: 2 });
  });

  it("a CycloneDX attestation's components are the subject's, as the predicate or in cosign's Data wrapper", () => {
    for (const predicate of [BOM, { Data: BOM, Timestamp: 't' }, { Data: JSON.stringify(BOM) }]) {
      const out = normalize(supplychain, envelope('https://cyclonedx.org/bom', predicate));
      expect(out.edges).toEqual([`DEPENDS_ON ${IMAGE} -> pkg:npm/express@4.18.2`]);
      expect(out.node('Image', IMAGE).properties).toMatchObject({
        sbomComponents: 1,
        sbom_format: 'cyclonedx 1.5',
      });
      expect(out.node('Image', IMAGE).properties).not.toHaveProperty('slsaLevel');
    }
    // Twin: a provenance predicate that happens to hold components is not read as an SBOM.
    const provenance = normalize(supplychain, envelope('https://slsa.dev/provenance/v0.2', BOM));
    expect(provenance.names('Library')).toEqual([]);
  });

  it('an attested SBOM that is not CycloneDX is refused by the pointer inside the attestation', () => {
    expect(
      rejection(supplychain, envelope('https://cyclonedx.org/bom', { bomFormat: 'SPDX' }))[0],
    ).toMatchObject({ pointer: '/payload/predicate/bomFormat' });
    expect(rejection(supplychain, envelope('https://cyclonedx.org/bom', { Data: '{nope' }))[0]).toMatchObject(
      {
        pointer: '/payload/predicate/Data',
      },
    );
  });

  it('an SPDX JSON attestation gives its subject the packages, as a posted SPDX SBOM does', () => {
    const spdx = {
      spdxVersion: 'SPDX-2.3',
      packages: [
        {
          SPDXID: 'SPDXRef-Package-log4j',
          name: 'log4j-core',
          versionInfo: '2.14.1',
          externalRefs: [
            {
              referenceCategory: 'PACKAGE-MANAGER',
              referenceType: 'purl',
              referenceLocator: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
            },
          ],
        },
      ],
    };
    const out = normalize(supplychain, envelope('https://spdx.dev/Document', spdx));
    expect(out.edges).toEqual([
      `DEPENDS_ON ${IMAGE} -> pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1`,
    ]);
    expect(out.warnings).toEqual([]);
  });

  it("twin: SPDX that is not JSON (tag-value in cosign's wrapper) stamps its subject and says so", () => {
    const out = normalize(
      supplychain,
      envelope('https://spdx.dev/Document', {
        Data: 'SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0',
        Timestamp: 'x',
      }),
    );
    expect(out.names('Image')).toEqual([IMAGE]);
    expect(out.warnings.join()).toMatch(/attested SBOM \(https:\/\/spdx\.dev\/Document\) is not read/);
    // A CycloneDX attestation warns of nothing.
    expect(normalize(supplychain, envelope('https://cyclonedx.org/bom', BOM)).warnings).toEqual([]);
  });
});

describe('supplychain: SBOM documents the source does not read, and VEX', () => {
  it('an SPDX document describing nothing it can name is refused at /documentDescribes, asking which', () => {
    expect(
      rejection(supplychain, { spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT', packages: [] }),
    ).toEqual([
      expect.objectContaining({
        pointer: '/documentDescribes',
        detail: expect.stringMatching(/\?image=<reference>.*\?repo=<repository>/),
      }),
    ]);
    // Twin: with ?image= it is read, as a CycloneDX document is.
    expect(
      normalize(supplychain, { spdxVersion: 'SPDX-2.3', packages: [] }, { image: 'acme/shop:1' }).names(
        'Image',
      ),
    ).toEqual(['acme/shop:1']);
  });

  it('a vulnerability the VEX analysis marks not affecting draws no AFFECTS; exploitable and in triage do', () => {
    const bom = (state: string) => ({
      bomFormat: 'CycloneDX',
      specVersion: '1.4',
      components: [
        { type: 'library', name: 'log4j-core', purl: 'pkg:maven/o/log4j-core@2.13.2', 'bom-ref': 'l' },
      ],
      vulnerabilities: [{ id: 'CVE-2021-44228', analysis: { state }, affects: [{ ref: 'l' }] }],
    });
    for (const state of ['not_affected', 'false_positive', 'resolved', 'resolved_with_pedigree']) {
      const out = normalize(supplychain, bom(state), { image: 'acme/shop:1' });
      expect(out.names('CVE'), state).toEqual([]);
      expect(out.warnings.join(), state).toMatch(new RegExp(`CVE-2021-44228 \\(${state}\\)`));
    }
    for (const state of ['exploitable', 'in_triage']) {
      const out = normalize(supplychain, bom(state), { image: 'acme/shop:1' });
      expect(out.edges, state).toContain('AFFECTS CVE-2021-44228 -> pkg:maven/o/log4j-core@2.13.2');
      expect(out.warnings, state).toEqual([]);
    }
  });
});

describe('supplychain: Google Cloud Build provenance', () => {
  const statement = {
    _type: 'https://in-toto.io/Statement/v0.1',
    predicateType: 'https://slsa.dev/provenance/v0.1',
    subject: [{ name: 'https://europe-docker.pkg.dev/p/r/app:v1', digest: { sha256: 'd'.repeat(64) } }],
    predicate: {
      builder: { id: 'https://cloudbuild.googleapis.com/GoogleHostedWorker@v0.2' },
      materials: [{ uri: `https://github.com/acme/app/commit/${'e'.repeat(40)}` }],
    },
  };
  const gcloud = (payload: unknown) => ({
    image_summary: { digest: `sha256:${'d'.repeat(64)}` },
    provenance_summary: {
      provenance: [
        {
          envelope: {
            payloadType: 'application/vnd.in-toto+json',
            payload: Buffer.from(JSON.stringify(payload)).toString('base64'),
            signatures: [{ keyid: 'k', sig: 'MEUC' }],
          },
        },
      ],
    },
  });

  it('names the image its URL subject names, the repository and commit of its commit page', () => {
    const out = normalize(supplychain, gcloud(statement));
    const image = 'p/r/app:v1';
    expect(out.names('Image')).toEqual([image]);
    expect(out.node('Image', image).properties).toMatchObject({
      registry: 'europe-docker.pkg.dev',
      digests: [`sha256:${'d'.repeat(64)}`],
      provenance_format: 'gcb-provenance',
      // Cloud Build signs with a KMS key no setting gives here: signature_unverified, unsigned provenance.
      signature: 'signature_unverified',
      slsaLevel: 1,
    });
    expect(out.edges).toEqual([`BUILT_FROM ${image} -> github.com/acme/app`]);
    expect(out.edgeProps('BUILT_FROM', image, 'github.com/acme/app')).toMatchObject({
      commit_sha: 'e'.repeat(40),
    });
    // Twin: a repository whose own name is `commit` keeps it.
    const named = {
      ...statement,
      predicate: { ...statement.predicate, materials: [{ uri: 'git+https://github.com/acme/commit' }] },
    };
    expect(normalize(supplychain, gcloud(named)).names('Repository')).toEqual(['github.com/acme/commit']);
  });

  it('an entry without its envelope is refused by its pointer', () => {
    expect(
      rejection(supplychain, { provenance_summary: { provenance: [{ kind: 'BUILD' }] } })[0],
    ).toMatchObject({
      pointer: '/provenance_summary/provenance/0',
    });
  });
});

describe('supplychain: vulnerability and image names as other tools write them', () => {
  const django = { type: 'library', name: 'Django', purl: 'pkg:pypi/django@2.0', 'bom-ref': 'd' };
  const bom = (vulnerability: Record<string, unknown>) => ({
    bomFormat: 'CycloneDX',
    components: [django],
    vulnerabilities: [{ affects: [{ ref: 'd' }], ...vulnerability }],
  });

  it('a vulnerability named by its own id (OSS Index) but referring to one CVE is that CVE', () => {
    const out = normalize(
      supplychain,
      bom({ id: 'c7129ff8-08bc', references: [{ id: 'CVE-2021-33203', source: { name: 'OSS Index' } }] }),
      { image: 'acme/shop:1' },
    );
    expect(out.names('CVE')).toEqual(['CVE-2021-33203']);
    expect(out.node('CVE', 'CVE-2021-33203').properties).toMatchObject({ advisory_id: 'c7129ff8-08bc' });
    // Twins: several CVEs keep the tool's id (which one is it?); a CVE id is its own name.
    const two = bom({ id: 'SNYK-1', references: [{ id: 'CVE-2021-1' }, { id: 'CVE-2021-2' }] });
    expect(normalize(supplychain, two, { image: 'acme/shop:1' }).names('CVE')).toEqual(['SNYK-1']);
    const own = bom({ id: 'CVE-2021-44228', references: [{ id: 'GHSA-jfh8-c2jp-5v3q' }] });
    const read = normalize(supplychain, own, { image: 'acme/shop:1' });
    expect(read.names('CVE')).toEqual(['CVE-2021-44228']);
    expect(read.node('CVE', 'CVE-2021-44228').properties).not.toHaveProperty('advisory_id');
  });

  it("an image component's digest version (Syft `sha256:`, Xray `sha256__`) pins the image, not a tag", () => {
    const hex = 'a'.repeat(64);
    const image = (name: string, version: string) =>
      normalize(supplychain, {
        bomFormat: 'CycloneDX',
        metadata: { component: { type: 'container', name, version } },
        components: [],
      }).nodes.find((n) => n.label === 'Image')!;
    const syft = image('docker.io/library/alpine:latest', `sha256:${hex}`);
    expect(syft.name).toBe('alpine:latest');
    expect(syft.properties).toMatchObject({ digests: [`sha256:${hex}`] });
    expect(image('library/maven', `sha256__${hex}`).name).toBe(`maven@sha256:${hex}`);
    // Twin: a plain version is the tag.
    expect(image('acme/shop', '1.4').name).toBe('acme/shop:1.4');
  });
});

describe('supplychain: SBOMs of a repository', () => {
  const bom = (component: Record<string, unknown>) => ({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    metadata: { component },
    components: [
      {
        type: 'library',
        name: 'jackson-databind',
        purl: 'pkg:maven/c.f/jackson-databind@2.9.1',
        'bom-ref': 'j',
      },
    ],
    vulnerabilities: [{ id: 'CVE-2020-9548', affects: [{ ref: 'j' }] }],
  });
  const app = bom({ type: 'application', name: 'testdata/fixtures/repo/pom' });

  it("an SBOM of no image is the repository's named by ?repo=, as a `trivy fs` scan draws it", () => {
    const out = normalize(supplychain, app, { repo: 'github.com/acme/shop' });
    expect(out.edges).toEqual([
      'AFFECTS CVE-2020-9548 -> github.com/acme/shop',
      'AFFECTS CVE-2020-9548 -> pkg:maven/c.f/jackson-databind@2.9.1',
      'DEPENDS_ON github.com/acme/shop -> pkg:maven/c.f/jackson-databind@2.9.1',
    ]);
    expect(out.node('Repository', 'github.com/acme/shop').properties).toMatchObject({ sbomComponents: 1 });
    // Twins: a container SBOM stays the image's whatever ?repo= says; without ?repo= the 400 says both ways.
    const container = bom({ type: 'container', name: 'ghcr.io/acme/shop:1.4' });
    expect(normalize(supplychain, container, { repo: 'github.com/acme/shop' }).names('Repository')).toEqual(
      [],
    );
    expect(rejection(supplychain, app)[0]).toMatchObject({
      pointer: '/metadata/component',
      detail: expect.stringMatching(/\?image=.*\?repo=/),
    });
  });

  it('a `trivy repo` SBOM names its repository by the URL it scanned', () => {
    const out = normalize(
      supplychain,
      bom({ type: 'application', name: 'https://github.com/knqyf263/trivy-ci-test' }),
    );
    expect(out.names('Repository')).toEqual(['github.com/knqyf263/trivy-ci-test']);
  });
});

// Minimal documents in the shapes Sigstore and PyPI publish; the real files are in unseen-supplychain.test.ts.
const leafCertificate = (): string =>
  (
    JSON.parse(
      readFileSync(
        new URL(
          '../../../fixtures/unseen/provenance/sigstore-python-bundle_v3_github.whl.sigstore',
          import.meta.url,
        ),
        'utf8',
      ),
    ) as { verificationMaterial: { x509CertificateChain: { certificates: { rawBytes: string }[] } } }
  ).verificationMaterial.x509CertificateChain.certificates[0].rawBytes;
const WORKFLOW = 'https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2';
const ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';
const HEX = 'ab'.repeat(32);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const blobBundle = (digest = Buffer.from(HEX, 'hex').toString('base64'), algorithm = 'SHA2_256') => ({
  mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
  verificationMaterial: { certificate: { rawBytes: leafCertificate() } },
  messageSignature: { messageDigest: { algorithm, digest }, signature: 'MEUCIQ==' },
});
const statement = (predicateType: string, predicate: unknown, name = 'pkg:npm/left-pad@1.3.0') => ({
  _type: 'https://in-toto.io/Statement/v1',
  subject: [{ name, digest: { sha256: HEX } }],
  predicateType,
  predicate,
});

describe('supplychain: a Sigstore bundle over a blob (messageSignature)', () => {
  it('stamps the image ?image= names signature_unverified (the blob is not sent), by the certificate`s identity and issuer', () => {
    const out = normalize(supplychain, blobBundle(), { image: `ghcr.io/acme/tool@sha256:${HEX}` });
    expect(out.node('Image', `acme/tool@sha256:${HEX}`).properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_verified: false,
      provenance_format: 'sigstore-bundle',
      signer_identity: WORKFLOW,
      signer_issuer: ACTIONS_ISSUER,
    });
    // A signature over a blob is no build provenance: no SLSA level.
    expect(out.node('Image', `acme/tool@sha256:${HEX}`).properties?.slsaLevel).toBeUndefined();
    expect(out.warnings).toEqual([expect.stringMatching(/signature_unverified: the bundle signs a blob/)]);
  });

  it('twin: without ?image= nothing is stamped, and a warning names the digest and the signer', () => {
    const out = normalize(supplychain, blobBundle());
    expect(out.nodes).toEqual([]);
    expect(out.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `signs a blob \\(messageSignature over sha256:${HEX}, signed by ${WORKFLOW.replace(/[.?]/g, '\\$&')}`,
        ),
      ),
      expect.stringMatching(/signature_unverified: the bundle signs a blob/),
    ]);
  });

  it('twin: an image of another digest is stamped, with the mismatch said', () => {
    const out = normalize(supplychain, blobBundle(), { image: `ghcr.io/acme/tool@sha256:${'c'.repeat(64)}` });
    expect(out.warnings.join()).toMatch(/do not include sha256:c{64}/);
  });

  it('a bundle giving no messageDigest (optional in the format) is still a signature, said unnamed', () => {
    const bundle = blobBundle();
    const { messageDigest: _omitted, ...signatureOnly } = bundle.messageSignature;
    const out = normalize(supplychain, { ...bundle, messageSignature: signatureOnly });
    expect(out.warnings).toEqual([
      expect.stringMatching(/over a digest it does not give, signed by/),
      expect.stringMatching(/signature_unverified: not a well-formed Sigstore bundle/),
    ]);
    const named = normalize(
      supplychain,
      { ...bundle, messageSignature: signatureOnly },
      { image: 'acme/tool:1' },
    );
    expect(named.node('Image', 'acme/tool:1').properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
    });
  });

  it('twin: a digest of an unknown algorithm, or of the wrong length, is refused by its pointer', () => {
    expect(rejection(supplychain, blobBundle(undefined, 'MD5'), { image: 'acme/tool:1' })[0]).toMatchObject({
      pointer: '/messageSignature/messageDigest/algorithm',
      value: 'MD5',
    });
    expect(rejection(supplychain, blobBundle('q83v', 'SHA2_256'), { image: 'acme/tool:1' })[0]).toMatchObject(
      {
        pointer: '/messageSignature/messageDigest/digest',
      },
    );
  });
});

describe('supplychain: the signer of a DSSE bundle', () => {
  const dsseBundle = (material: unknown) => ({
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: material,
    dsseEnvelope: {
      payloadType: 'application/vnd.in-toto+json',
      payload: b64(statement('https://slsa.dev/provenance/v1', {})),
      signatures: [{ sig: 'MEUCIQ==' }],
    },
  });

  it('records the Fulcio certificate`s identity and issuer on the subject (a made-up signature: signature_unverified)', () => {
    const out = normalize(supplychain, dsseBundle({ certificate: { rawBytes: leafCertificate() } }));
    expect(out.node('Library', 'pkg:npm/left-pad@1.3.0').properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signer_identity: WORKFLOW,
      signer_issuer: ACTIONS_ISSUER,
    });
  });

  it('twin: a key-signed bundle (publicKey hint, no certificate) records no signer, and no key', () => {
    const out = normalize(supplychain, dsseBundle({ publicKey: { hint: 'abc' } }));
    const props = out.node('Library', 'pkg:npm/left-pad@1.3.0').properties ?? {};
    expect(props.signature).toBe('signature_unverified');
    expect(props.signature_problem).toMatch(/does not verify against the public-good/);
    expect(props).not.toHaveProperty('signer_identity');
    expect(JSON.stringify(props)).not.toMatch(/rawBytes|hint|MII/);
  });
});

describe('supplychain: PyPI PEP 740 attestations', () => {
  const attestation = (version: unknown = 1) => ({
    version,
    verification_material: { certificate: leafCertificate(), transparency_entries: [] },
    envelope: {
      statement: b64(
        statement('https://docs.pypi.org/attestations/publish/v1', null, 'rfc8785-0.1.2-py3-none-any.whl'),
      ),
      signature: 'MEUCIQ==',
    },
  });

  it('reads the statement it carries: its subject signed, by the certificate`s identity', () => {
    const out = normalize(supplychain, attestation());
    // The wheel is the package scanners name: pkg:pypi/rfc8785@0.1.2.
    expect(out.node('Library', 'pkg:pypi/rfc8785@0.1.2').properties).toMatchObject({
      digest: `sha256:${HEX}`,
      signed: false,
      signature: 'signature_unverified',
      provenance_format: 'pypi-attestation',
      provenance_predicate: ['https://docs.pypi.org/attestations/publish/v1'],
      signer_identity: WORKFLOW,
    });
  });

  it('the integrity API`s provenance object: the Trusted Publisher`s repository is the source', () => {
    const out = normalize(supplychain, {
      version: 1,
      attestation_bundles: [
        {
          publisher: { kind: 'GitHub', repository: 'trailofbits/rfc8785.py' },
          attestations: [attestation()],
        },
      ],
    });
    expect(out.edges).toEqual(['BUILT_FROM pkg:pypi/rfc8785@0.1.2 -> github.com/trailofbits/rfc8785.py']);
  });

  it('twin: a subject that is no distribution file keeps its name; an in-toto wheel subject is no PyPI package', () => {
    const odd = attestation();
    odd.envelope.statement = b64(
      statement('https://docs.pypi.org/attestations/publish/v1', null, 'notes.txt'),
    );
    expect(normalize(supplychain, odd).names('Package')).toEqual(['notes.txt']);
    const plain = normalize(
      supplychain,
      statement('https://slsa.dev/provenance/v1', {}, 'rfc8785-0.1.2-py3-none-any.whl'),
    );
    expect(plain.names('Package')).toEqual(['rfc8785-0.1.2-py3-none-any.whl']);
  });

  it('twin: an attestation of another version is refused by name at /version', () => {
    expect(rejection(supplychain, attestation(2))[0]).toMatchObject({ pointer: '/version', value: 2 });
  });
});

describe('supplychain: SLSA verification summaries (VSA)', () => {
  const vsa = (predicate: Record<string, unknown>, name = 'ghcr.io/acme/shop') =>
    statement(
      'https://slsa.dev/verification_summary/v1',
      { verifier: { id: 'https://verifier.example/v1' }, resourceUri: `oci://${name}`, ...predicate },
      name,
    );

  it('a PASSED summary gives its subject the highest SLSA_BUILD_LEVEL it verified', () => {
    const out = normalize(
      supplychain,
      vsa({
        verificationResult: 'PASSED',
        verifiedLevels: ['SLSA_BUILD_LEVEL_3', 'SLSA_BUILD_LEVEL_2', 'BCID_L1'],
      }),
    );
    expect(out.node('Image', `acme/shop@sha256:${HEX}`).properties).toMatchObject({
      slsaLevel: 3,
      slsa_level_basis: 'vsa',
      slsa_verifier: 'https://verifier.example/v1',
      slsa_verified_levels: ['SLSA_BUILD_LEVEL_3', 'SLSA_BUILD_LEVEL_2', 'BCID_L1'],
    });
    expect(out.warnings).toEqual([]);
  });

  it('twin: a FAILED summary gives no level, and says why', () => {
    const out = normalize(
      supplychain,
      vsa({ verificationResult: 'FAILED', verifiedLevels: ['SLSA_BUILD_LEVEL_3'] }),
    );
    expect(out.node('Image', `acme/shop@sha256:${HEX}`).properties?.slsaLevel).toBeUndefined();
    expect(out.warnings).toEqual([
      expect.stringMatching(/verificationResult FAILED, not PASSED: no SLSA level/),
    ]);
  });

  it('twin: a summary of other tracks only (no SLSA_BUILD_LEVEL_n) gives no level, and says so', () => {
    const out = normalize(
      supplychain,
      vsa({ verificationResult: 'PASSED', verifiedLevels: ['SLSA_SOURCE_LEVEL_2'] }),
    );
    expect(out.node('Image', `acme/shop@sha256:${HEX}`).properties?.slsaLevel).toBeUndefined();
    expect(out.warnings).toEqual([
      expect.stringMatching(/names no SLSA_BUILD_LEVEL_<n> .*SLSA_SOURCE_LEVEL_2/),
    ]);
  });

  it('twin: a v0.2 summary is not read for a level, and says which version it is', () => {
    const older = { ...vsa({ verificationResult: 'PASSED', verifiedLevels: ['SLSA_BUILD_LEVEL_3'] }) };
    older.predicateType = 'https://slsa.dev/verification_summary/v0.2';
    const out = normalize(supplychain, older);
    expect(out.node('Image', `acme/shop@sha256:${HEX}`).properties?.slsaLevel).toBeUndefined();
    expect(out.warnings).toEqual([
      expect.stringMatching(
        /summary of https:\/\/slsa\.dev\/verification_summary\/v0\.2 is not read for a level/,
      ),
    ]);
  });

  it('a subject named `_` is the resource the summary names (resourceUri)', () => {
    const out = normalize(
      supplychain,
      vsa(
        {
          verificationResult: 'PASSED',
          verifiedLevels: ['SLSA_BUILD_LEVEL_1'],
          resourceUri: 'pkg:npm/left-pad@1.3.0',
        },
        '_',
      ),
    );
    expect(out.node('Library', 'pkg:npm/left-pad@1.3.0').properties).toMatchObject({ slsaLevel: 1 });
    const image = normalize(
      supplychain,
      vsa(
        {
          verificationResult: 'PASSED',
          verifiedLevels: ['SLSA_BUILD_LEVEL_2'],
          resourceUri: 'oci://ghcr.io/acme/shop',
        },
        '_',
      ),
    );
    expect(image.names('Image')).toEqual([`acme/shop@sha256:${HEX}`]);
  });
});
