// Who signed a Sigstore bundle or a PyPI attestation: the identity Fulcio certified (the certificate's
// subject alternative name: a workflow URI, an email) and the OIDC issuer that vouched for it (Fulcio's
// extension 1.3.6.1.4.1.57264.1.8, or the deprecated .1.1). Read with node:crypto and a short DER walk over
// the extensions node:crypto does not expose. Only these two names are kept: never key material.
import { X509Certificate } from 'node:crypto';

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
  let der: Buffer;
  let certificate: X509Certificate;
  try {
    der = Buffer.from(base64Der, 'base64');
    certificate = new X509Certificate(der);
  } catch {
    return undefined;
  }
  const identity = sanOf(certificate.subjectAltName);
  let issuer: string | undefined;
  try {
    const extensions = extensionsOf(der);
    const v2 = extensions.get(ISSUER_V2);
    const v1 = extensions.get(ISSUER_V1);
    if (v2) {
      const inner = tlv(v2, 0);
      if (inner.tag === 0x0c) issuer = v2.subarray(inner.start, inner.end).toString('utf8');
    }
    issuer ??= v1?.toString('utf8');
  } catch {
    // an extension block not in the shape RFC 5280 gives it: the identity alone
  }
  if (identity === undefined && !issuer) return undefined;
  return { identity, issuer: issuer || undefined };
}

/** The first URI or email of node:crypto's SAN text (`URI:https://...`, `email:a@b`; odd values JSON-quoted). */
function sanOf(san: string | undefined): string | undefined {
  if (!san) return undefined;
  const names = [...san.matchAll(/(?:^|, )(URI|email):("(?:[^"\\]|\\.)*"|[^,]*)/g)].map(([, kind, raw]) => ({
    kind,
    value: raw.startsWith('"') ? (JSON.parse(raw) as string) : raw,
  }));
  return (names.find((n) => n.kind === 'URI') ?? names.find((n) => n.kind === 'email'))?.value || undefined;
}

interface Tlv {
  tag: number;
  start: number;
  end: number;
}

/** One DER tag-length-value at `offset`: its tag and where its content starts and ends. */
function tlv(buf: Buffer, offset: number): Tlv {
  const tag = buf[offset];
  let length = buf[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes < 1 || bytes > 4) throw new Error('signer-identity: unsupported DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + buf[start + i];
    start += bytes;
  }
  const end = start + length;
  if (tag === undefined || end > buf.length) throw new Error('signer-identity: truncated DER');
  return { tag, start, end };
}

function children(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end;) {
    const child = tlv(buf, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

/** The certificate's extensions, OID to the content of their OCTET STRING value. */
function extensionsOf(der: Buffer): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const [tbs] = children(der, tlv(der, 0));
  const block = tbs && children(der, tbs).find((c) => c.tag === 0xa3); // [3] EXPLICIT Extensions
  if (!block) return found;
  for (const list of children(der, block))
    for (const extension of children(der, list)) {
      const parts = children(der, extension);
      const value = parts.find((p) => p.tag === 0x04);
      if (parts[0]?.tag === 0x06 && value)
        found.set(oid(der.subarray(parts[0].start, parts[0].end)), der.subarray(value.start, value.end));
    }
  return found;
}

function oid(bytes: Buffer): string {
  const arcs = [Math.floor(bytes[0] / 40), bytes[0] % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}
