// Who signed a Sigstore bundle or a PyPI attestation: the identity Fulcio certified (the certificate's
// subject alternative name: a workflow URI, an email) and the OIDC issuer that vouched for it (Fulcio's
// extension 1.3.6.1.4.1.57264.1.8, or the deprecated .1.1). The certificate is parsed with @peculiar's
// X.509 schema (node:crypto does not expose extensions it does not know). Only these two names are kept:
// never key material.
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, id_ce_subjectAltName, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { fromBER, Utf8String } from 'asn1js';

export interface SignerIdentity {
  /** the certificate's SAN: `https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1`, an email */
  identity?: string;
  /** the OIDC issuer Fulcio recorded: `https://token.actions.githubusercontent.com`, `https://accounts.google.com` */
  issuer?: string;
}

/** Fulcio's issuer extensions: `.1.8` (a DER UTF8String) wins over the deprecated `.1.1` (raw text). */
const ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';
const ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';

/**
 * The signer a leaf certificate names, from its DER bytes as base64 (a bundle's `rawBytes`, PEP 740's
 * `certificate`); undefined when the bytes are no certificate or name no signer.
 */
export function signerIdentity(base64Der: string): SignerIdentity | undefined {
  let extensions: Map<string, ArrayBuffer>;
  try {
    const certificate = AsnConvert.parse(Buffer.from(base64Der, 'base64'), Certificate);
    extensions = new Map(
      (certificate.tbsCertificate.extensions ?? []).map((e) => [e.extnID, e.extnValue.buffer]),
    );
  } catch {
    return undefined;
  }
  const san = extensions.get(id_ce_subjectAltName);
  const names = san ? readOr(() => AsnConvert.parse(san, SubjectAlternativeName), []) : [];
  const identity = names.find((n) => n.uniformResourceIdentifier) ?? names.find((n) => n.rfc822Name);
  const v2 = extensions.get(ISSUER_V2);
  const v1 = extensions.get(ISSUER_V1);
  const issuer =
    (v2 && readOr(() => utf8String(v2), undefined)) || (v1 && Buffer.from(v1).toString('utf8')) || undefined;
  const named = identity?.uniformResourceIdentifier ?? identity?.rfc822Name;
  if (!named && !issuer) return undefined;
  return { identity: named || undefined, issuer };
}

/** The text of a DER UTF8String. */
function utf8String(der: ArrayBuffer): string | undefined {
  const { result } = fromBER(der);
  return result instanceof Utf8String ? result.valueBlock.value : undefined;
}

/** An extension block not in the shape RFC 5280 gives it: what the rest of the certificate says. */
function readOr<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}
