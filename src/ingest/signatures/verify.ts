// Whether the signatures a provenance document carries verify (docs/identity.md, "Signatures"), in the
// shapes provenance.ts reads: a Sigstore bundle (and the npm registry's list of them, a PEP 740 attestation
// rebuilt as the bundle it is) against the Sigstore trust root; a bare DSSE envelope (and Cloud Build's
// list of them) against the public keys settings give. Every signature-bearing part must verify: one part
// that does not makes the whole `signature_unverified`, so a verified attestation cannot vouch for an
// unverifiable one beside it. Cheap enough to run inline on ingest: a few ECDSA checks and hashes a bundle.
import { bundleFromJSON } from '@sigstore/bundle';
import { crypto as sigstoreCrypto, dsse } from '@sigstore/core';
import { toSignedEntity } from '@sigstore/verify';
import type { KeyObject } from 'node:crypto';
import type { SignatureState } from '../../graph/vocabulary.js';
import type { SignatureTrust } from './trust.js';

export interface SignatureVerdict {
  state: SignatureState;
  /** why the signature did not verify (state `signature_unverified`), naming the part by JSON pointer */
  problem?: string;
}

type Json = Record<string, unknown>;

/** One signature-bearing part of the document: undefined when it verified, else why not. */
type PartCheck = { pointer: string; problem?: string; unsigned?: boolean };

/** The verdict on a provenance document's signatures; `unsigned` when it carries none. */
export function verifyProvenanceSignatures(document: unknown, trust: SignatureTrust): SignatureVerdict {
  const parts = partsOf(document, '', trust);
  const signed = parts.filter((p) => !p.unsigned);
  if (!signed.length) return { state: 'unsigned' };
  const failed = signed.find((p) => p.problem !== undefined);
  if (!failed) return { state: 'signed' };
  const where = failed.pointer ? `${failed.pointer}: ` : '';
  return { state: 'signature_unverified', problem: `${where}${failed.problem}` };
}

function partsOf(value: unknown, at: string, trust: SignatureTrust): PartCheck[] {
  if (!isObject(value)) return [];
  if (Array.isArray(value.attestations))
    return value.attestations.flatMap((entry, i) =>
      partsOf(isObject(entry) ? entry.bundle : undefined, `${at}/attestations/${i}/bundle`, trust),
    );
  const gcb = isObject(value.provenance_summary) ? value.provenance_summary.provenance : undefined;
  if (Array.isArray(gcb))
    return gcb.map((entry, i) =>
      checkDsse(
        isObject(entry) ? object(entry.envelope) : {},
        `${at}/provenance_summary/provenance/${i}/envelope`,
        trust,
      ),
    );
  if (Array.isArray(value.attestation_bundles))
    return value.attestation_bundles.flatMap((bundle, b) =>
      (isObject(bundle) && Array.isArray(bundle.attestations) ? bundle.attestations : []).flatMap((a, i) =>
        partsOf(a, `${at}/attestation_bundles/${b}/attestations/${i}`, trust),
      ),
    );
  if (isObject(value.verification_material) && isObject(value.envelope))
    return [checkBundle(pep740Bundle(value), at, trust)];
  if (isObject(value.dsseEnvelope) || isObject(value.messageSignature))
    return [checkBundle(value, at, trust)];
  if (typeof value.payloadType === 'string') return [checkDsse(value, at, trust)];
  return [{ pointer: at, unsigned: true }];
}

/** A Sigstore bundle: its certificate (or key) chains to the trust root, its log entry and signature hold. */
function checkBundle(json: Json, at: string, trust: SignatureTrust): PartCheck {
  let bundle;
  try {
    bundle = bundleFromJSON(json);
  } catch (error) {
    return { pointer: at, problem: `not a well-formed Sigstore bundle (${(error as Error).message})` };
  }
  if (bundle.content.$case === 'messageSignature')
    return {
      pointer: at,
      problem:
        'the bundle signs a blob (messageSignature) pathgate does not receive: only the blob verifies it ' +
        '(cosign verify-blob, sigstore verify); verify upstream and send signed: true',
    };
  try {
    trust.verifier.verify(toSignedEntity(bundle));
    return { pointer: at };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      pointer: at,
      problem: `the Sigstore bundle does not verify against the ${trust.rootSource} trust root${code ? ` (${code})` : ''}: ${(error as Error).message}`,
    };
  }
}

/** A bare DSSE envelope: one of its signatures is by a key ATTESTATION_PUBLIC_KEYS gives. */
function checkDsse(envelope: Json, at: string, trust: SignatureTrust): PartCheck {
  const signatures = (Array.isArray(envelope.signatures) ? envelope.signatures : []).filter(
    (s): s is Json => isObject(s) && typeof s.sig === 'string' && s.sig.length > 0,
  );
  if (!signatures.length) return { pointer: at, unsigned: true };
  if (!trust.keys.length)
    return {
      pointer: at,
      problem:
        'a DSSE envelope carries no certificate: it verifies only against a public key, and ATTESTATION_PUBLIC_KEYS gives none',
    };
  if (typeof envelope.payload !== 'string' || typeof envelope.payloadType !== 'string')
    return { pointer: at, problem: 'the DSSE envelope has no payload to verify' };
  const pae = dsse.preAuthEncoding(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  for (const signature of signatures) {
    const keyid = typeof signature.keyid === 'string' ? signature.keyid : '';
    // A signature that names its key is checked with that key only; one that names none, with every key.
    const named = keyid ? trust.keys.filter((k) => k.aliases.has(keyid)) : [];
    const candidates = named.length ? named : trust.keys;
    const sig = Buffer.from(signature.sig as string, 'base64');
    if (candidates.some((k) => verifies(pae, k.key, sig))) return { pointer: at };
  }
  return {
    pointer: at,
    problem: `no signature of the DSSE envelope verifies with the ${trust.keys.length} key(s) ATTESTATION_PUBLIC_KEYS gives (${trust.keys.map((k) => k.id).join(', ')})`,
  };
}

/** The digest a key's signature scheme uses: none for EdDSA, the curve's for ECDSA, SHA-256 for RSA. */
function verifies(data: Buffer, key: KeyObject, signature: Buffer): boolean {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519' || type === 'ed448') return sigstoreCrypto.verify(data, key, signature);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const digest = curve === 'secp384r1' ? 'sha384' : curve === 'secp521r1' ? 'sha512' : 'sha256';
  return sigstoreCrypto.verify(data, key, signature, digest);
}

/**
 * A PEP 740 attestation as the Sigstore bundle (v0.3) it is: the statement signed as a DSSE envelope
 * (in-toto payload type), the Fulcio certificate and the transparency log entries as they are.
 */
function pep740Bundle(attestation: Json): Json {
  const material = object(attestation.verification_material);
  const envelope = object(attestation.envelope);
  return {
    mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    verificationMaterial: {
      certificate: { rawBytes: material.certificate },
      tlogEntries: Array.isArray(material.transparency_entries) ? material.transparency_entries : [],
    },
    dsseEnvelope: {
      payload: envelope.statement,
      payloadType: 'application/vnd.in-toto+json',
      signatures: [{ sig: envelope.signature, keyid: '' }],
    },
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: unknown): Json {
  return isObject(value) ? value : {};
}
