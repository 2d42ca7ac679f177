// Who signed a bundle: the Fulcio leaf certificate's SAN and OIDC issuer (extension .1.8, else .1.1), read
// from real certificates (fixtures/unseen/provenance, SOURCES.md). Twins: a plain CA certificate names no signer,
// bytes that are no certificate name none.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signerIdentity } from '../../../src/ingest/sources/signer-identity.js';

const bundle = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../fixtures/unseen/provenance/${name}`, import.meta.url), 'utf8'),
  ) as {
    verificationMaterial: {
      certificate?: { rawBytes: string };
      x509CertificateChain?: { certificates: { rawBytes: string }[] };
    };
  };
/** `openssl req -x509 -newkey ec -subj "/CN=pathgate test CA"`: a CA with no SAN and no Fulcio extension. */
const SELF_SIGNED_CA =
  'MIIBijCCATGgAwIBAgIUOE945IX6dpJcUb0lfkKw3LvkUxUwCgYIKoZIzj0EAwIwGzEZMBcGA1UEAwwQcGF0aGdhdGUgdGVzdCBDQTAeFw0yNjExMjcwMDE0MDJaFw0yNjExMjgwMDE0MDJaMBsxGTAXBgNVBAMMEHBhdGhnYXRlIHRlc3QgQ0EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATAUvBvGTXZzAD3dO4HMdsgAx8r2Mo0oTCKqY/qmgM9+p9bM0Zk/0WPsAFiuRGQNLl1AWXirT+iNenJ2rCtPu5yo1MwUTAdBgNVHQ4EFgQU/3HyKErqMRFH07jC6e3H5RQ08TQwHwYDVR0jBBgwFoAU/3HyKErqMRFH07jC6e3H5RQ08TQwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAkSIl4RPVepm06RSK4Uw0XIz+XFrr2kqDwu49MpcsSSwIgDhd5dpbQey7CCUO5ucQyZ9N7Si6JaK/PHAtvw5KJHSQ=';
const chain = (name: string) =>
  bundle(name).verificationMaterial.x509CertificateChain!.certificates.map((c) => c.rawBytes);

describe('signerIdentity', () => {
  it('an email SAN and the issuer of the deprecated .1.1 extension (CPython 3.12.5, Fulcio 2024)', () => {
    expect(signerIdentity(chain('sigstore-python-integration-Python-3.12.5.tgz.sigstore')[0])).toEqual({
      identity: 'thomas@python.org',
      issuer: 'https://accounts.google.com',
    });
  });

  it('a workflow URI SAN and the GitHub Actions issuer (.1.8 as a UTF8String)', () => {
    expect(signerIdentity(chain('sigstore-python-bundle_v3_github.whl.sigstore')[0])).toEqual({
      identity: 'https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2',
      issuer: 'https://token.actions.githubusercontent.com',
    });
    const v03 = bundle('sigstore-python-bundle_v3.txt.sigstore').verificationMaterial.certificate!.rawBytes;
    expect(signerIdentity(v03)).toEqual({
      identity: 'william@yossarian.net',
      issuer: 'https://github.com/login/oauth',
    });
  });

  it('twin: a certificate with neither SAN nor Fulcio extension (a self-signed CA) names no signer', () => {
    expect(signerIdentity(SELF_SIGNED_CA)).toBeUndefined();
  });

  it('twin: bytes that are no certificate name no signer, and do not throw', () => {
    expect(signerIdentity(Buffer.from('not a certificate').toString('base64'))).toBeUndefined();
    expect(signerIdentity('')).toBeUndefined();
  });
});
