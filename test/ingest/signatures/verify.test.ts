// Signatures verified (spec: `signed` is "image signature verified"): real Sigstore bundles against the
// public-good root the packages ship, offline; DSSE envelopes against the keys settings give. Every rule has
// its twin: a tampered bundle, a wrong key, no key, a trust root that does not vouch for the signer.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/settings.js';
import { loadSignatureTrust, parsePublicKeys } from '../../../src/ingest/signatures/trust.js';
import { verifyProvenanceSignatures } from '../../../src/ingest/signatures/verify.js';
import { createSupplyChainSource } from '../../../src/ingest/sources/supplychain.js';
import { makeSigner, tamperPayload, trustWith } from '../../helpers/dsse-signer.js';
import { normalize, readReal } from '../../helpers/normalize.js';

type Json = Record<string, any>;

const publicGood = loadSignatureTrust();
const BUNDLE = 'sbom/provenance/slsa-github-generator-delegator-v2.1.0.sigstore-bundle.json';
const NPM = 'sbom/provenance/npm-sigstore-2.3.1-attestations.json';
const unseen = (file: string): Json =>
  JSON.parse(
    readFileSync(new URL(`../../../fixtures/unseen/provenance/${file}`, import.meta.url), 'utf8'),
  ) as Json;

/** The same document with one byte of a base64 payload changed (`at` reads and writes that payload). */
function tampered(document: Json, at: (d: Json) => { get(): string; set(v: string): void }): Json {
  const copy = structuredClone(document);
  const field = at(copy);
  field.set(tamperPayload(field.get()));
  return copy;
}

const dssePayload = (d: Json) => ({
  get: () => d.dsseEnvelope.payload as string,
  set: (v: string) => (d.dsseEnvelope.payload = v),
});

describe('Sigstore bundles verified against the public-good root, offline', () => {
  it('a real bundle (slsa-github-generator, v0.2 DSSE) verifies: signed', () => {
    expect(verifyProvenanceSignatures(readReal(BUNDLE), publicGood)).toEqual({ state: 'signed' });
  });

  it('twin: the same bundle with one payload byte changed is signature_unverified, never signed', () => {
    const verdict = verifyProvenanceSignatures(tampered(readReal(BUNDLE), dssePayload), publicGood);
    expect(verdict.state).toBe('signature_unverified');
    expect(verdict.problem).toMatch(/does not verify against the public-good/);
  });

  it("npm's attestations verify: the publish attestation by npm's registry key, the provenance by Fulcio", () => {
    expect(verifyProvenanceSignatures(readReal(NPM), publicGood)).toEqual({ state: 'signed' });
  });

  it('twin: one tampered attestation in the list makes the whole list signature_unverified, naming it', () => {
    const doc = tampered(readReal(NPM), (d) => dssePayload(d.attestations[0].bundle));
    const verdict = verifyProvenanceSignatures(doc, publicGood);
    expect(verdict.state).toBe('signature_unverified');
    expect(verdict.problem).toMatch(/^\/attestations\/0\/bundle: /);
  });

  it('a PEP 740 attestation verifies as the Sigstore bundle it is', () => {
    const gitlab = unseen('pypi-attestations-gitlab_oidc_project-0.0.3.tar.gz.publish.attestation');
    expect(verifyProvenanceSignatures(gitlab, publicGood)).toEqual({ state: 'signed' });
    // Twin: its statement changed by a byte.
    const changed = tampered(gitlab, (d) => ({
      get: () => d.envelope.statement as string,
      set: (v: string) => (d.envelope.statement = v),
    }));
    expect(verifyProvenanceSignatures(changed, publicGood).state).toBe('signature_unverified');
  });

  it('twin: an attestation signed on Sigstore staging does not verify against the public-good root', () => {
    const staging = unseen('pypi-attestations-rfc8785-0.1.2-py3-none-any.whl.publish.attestation');
    expect(verifyProvenanceSignatures(staging, publicGood)).toMatchObject({
      state: 'signature_unverified',
      problem: expect.stringMatching(/CERTIFICATE_ERROR/),
    });
  });

  it('a bundle over a blob is signature_unverified: the blob it signs is not sent', () => {
    const blob = unseen('sigstore-python-integration-Python-3.12.5.tgz.sigstore');
    expect(verifyProvenanceSignatures(blob, publicGood)).toMatchObject({
      state: 'signature_unverified',
      problem: expect.stringContaining('messageSignature'),
    });
  });

  it('an in-toto statement carries no signature: unsigned', () => {
    const statement = readReal('sbom/provenance/buildkit-container-provenance-v0.2.statement.json');
    expect(verifyProvenanceSignatures(statement, publicGood)).toEqual({ state: 'unsigned' });
  });
});

describe('SIGSTORE_TRUSTED_ROOT: the root bundles verify against', () => {
  const seeds = (): Json =>
    JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@sigstore/tuf/seeds.json'), 'utf8'))[
      'https://tuf-repo-cdn.sigstore.dev'
    ] as Json;
  const rootFile = (edit: (root: Json) => void): string => {
    const root = JSON.parse(Buffer.from(seeds().targets['trusted_root.json'], 'base64').toString('utf8'));
    edit(root);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pathgate-root-')), 'trusted_root.json');
    writeFileSync(file, JSON.stringify(root));
    return file;
  };

  it('a root file given in settings is the one bundles verify against', () => {
    const settings = loadSettings({ SIGSTORE_TRUSTED_ROOT: rootFile(() => {}) });
    const trust = loadSignatureTrust(settings.signatures);
    expect(trust.rootSource).toBe(settings.signatures.trustedRootPath);
    expect(verifyProvenanceSignatures(readReal(BUNDLE), trust)).toEqual({ state: 'signed' });
  });

  it('twin: a root whose Fulcio CAs end before the signing time does not vouch for the bundle', () => {
    const file = rootFile((root) => {
      for (const ca of root.certificateAuthorities) ca.validFor.end = '2021-06-01T00:00:00Z';
    });
    const trust = loadSignatureTrust(loadSettings({ SIGSTORE_TRUSTED_ROOT: file }).signatures);
    expect(verifyProvenanceSignatures(readReal(BUNDLE), trust).state).toBe('signature_unverified');
  });

  it('a root file that cannot be read or is no trusted root stops the start, naming the setting', () => {
    const notRoot = rootFile((root) => {
      root.tlogs = [];
    });
    for (const value of ['/nonexistent/trusted_root.json', notRoot])
      expect(() => loadSettings({ SIGSTORE_TRUSTED_ROOT: value })).toThrow(/SIGSTORE_TRUSTED_ROOT=/);
  });
});

describe('DSSE envelopes verified against ATTESTATION_PUBLIC_KEYS', () => {
  const statement = readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.statement.decoded.json');

  it('an envelope signed by a key the settings give is signed (ECDSA P-256 and Ed25519)', () => {
    for (const type of ['ec', 'ed25519'] as const) {
      const signer = makeSigner(type);
      const settings = loadSettings({ ATTESTATION_PUBLIC_KEYS: signer.publicKeyPem });
      const trust = loadSignatureTrust(settings.signatures);
      expect(verifyProvenanceSignatures(signer.envelope(statement), trust), type).toEqual({
        state: 'signed',
      });
    }
  });

  it('twin: signed by another key than the one given is signature_unverified, naming the key tried', () => {
    const signer = makeSigner();
    const trust = trustWith(makeSigner());
    const verdict = verifyProvenanceSignatures(signer.envelope(statement), trust);
    expect(verdict.state).toBe('signature_unverified');
    expect(verdict.problem).toMatch(
      /no signature of the DSSE envelope verifies with the 1 key\(s\).*sha256:[0-9a-f]{64}/,
    );
  });

  it('twin: with no key given, a signed envelope is signature_unverified; its payload changed, too', () => {
    const signer = makeSigner();
    expect(verifyProvenanceSignatures(signer.envelope(statement), publicGood)).toMatchObject({
      state: 'signature_unverified',
      problem: expect.stringContaining('ATTESTATION_PUBLIC_KEYS gives none'),
    });
    const envelope = signer.envelope(statement);
    const changed = tampered(envelope, (d) => ({
      get: () => d.payload as string,
      set: (v: string) => (d.payload = v),
    }));
    expect(verifyProvenanceSignatures(changed, trustWith(signer)).state).toBe('signature_unverified');
  });

  it('a signature naming its key by keyid is checked with that key among several given', () => {
    const [one, two] = [makeSigner(), makeSigner()];
    const keyid = parsePublicKeys(two.publicKeyPem)[0].id;
    expect(verifyProvenanceSignatures(two.envelope(statement, keyid), trustWith(one, two))).toEqual({
      state: 'signed',
    });
  });

  it('a file of keys is read (ATTESTATION_PUBLIC_KEYS_FILE); a value with no PEM key stops the start', () => {
    const signer = makeSigner();
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pathgate-keys-')), 'cosign.pub');
    writeFileSync(file, makeSigner().publicKeyPem + signer.publicKeyPem);
    const settings = loadSettings({ ATTESTATION_PUBLIC_KEYS_FILE: file });
    expect(settings.signatures.keys).toHaveLength(2);
    const trust = loadSignatureTrust(settings.signatures);
    expect(verifyProvenanceSignatures(signer.envelope(statement), trust).state).toBe('signed');
    expect(() => loadSettings({ ATTESTATION_PUBLIC_KEYS: 'not a key' })).toThrow(
      /ATTESTATION_PUBLIC_KEYS holds no PEM public key/,
    );
    expect(() =>
      loadSettings({
        ATTESTATION_PUBLIC_KEYS: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
      }),
    ).toThrow(/public key 1 of 1 is not a readable PEM public key/);
  });
});

describe('the supplychain source stamps what verified', () => {
  const statement = readReal('sbom/provenance/slsa-github-generator-container-v2.1.0.statement.decoded.json');
  const IMAGE_BY_DIGEST =
    'ghcr.io/slsa-framework/example-package.verifier-e2e.all.tag.main.default.slsa3@sha256:234e2c830c2fb31ac5671789d22adfe44d30c3ee831d01beae5e237841a13122';

  it('an envelope signed by a given key stamps signed, level 3 from the SLSA3 builder; the wrong key stamps signature_unverified', () => {
    const signer = makeSigner();
    const verified = normalize(
      createSupplyChainSource({ signatures: trustWith(signer) }),
      signer.envelope(statement),
    );
    const [image] = verified.nodes;
    expect(image.properties).toMatchObject({
      signed: true,
      signature: 'signed',
      signature_verified: true,
      slsaLevel: 3,
      slsa_level_basis: 'slsa3-builder',
    });
    expect(image.properties).not.toHaveProperty('signature_problem');
    expect(verified.warnings).toEqual([]);

    const wrong = normalize(
      createSupplyChainSource({ signatures: trustWith(makeSigner()) }),
      signer.envelope(statement),
    );
    expect(wrong.nodes[0].properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_problem: expect.stringMatching(/no signature of the DSSE envelope verifies/),
      slsaLevel: 1,
    });
    expect(wrong.warnings).toEqual([expect.stringMatching(/^supplychain report: signature_unverified: /)]);
  });

  it('a verified signature over other subjects does not sign the image its digest names; over its digest it does', () => {
    const signer = makeSigner();
    const supplychain = createSupplyChainSource({ signatures: trustWith(signer) });
    const other = normalize(supplychain, signer.envelope(statement), {
      image: `ghcr.io/acme/shop@sha256:${'a'.repeat(64)}`,
    });
    expect(other.nodes[0].properties).toMatchObject({
      signed: false,
      signature: 'signature_unverified',
      signature_problem: expect.stringContaining(`not sha256:${'a'.repeat(64)}`),
    });
    const same = normalize(supplychain, signer.envelope(statement), { image: IMAGE_BY_DIGEST });
    expect(same.nodes[0].properties).toMatchObject({ signed: true, signature: 'signed' });
  });

  it("the spec's report: a declared signed is taken as verified upstream, signed: false is unsigned", () => {
    const supplychain = createSupplyChainSource({ signatures: publicGood });
    const yes = normalize(supplychain, { image: 'acme/shop:1', signed: true });
    expect(yes.nodes[0].properties).toMatchObject({ signed: true, signature: 'signed' });
    const no = normalize(supplychain, { image: 'acme/shop:1', signed: false });
    expect(no.nodes[0].properties).toMatchObject({ signed: false, signature: 'unsigned' });
  });
});
