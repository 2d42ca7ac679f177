// Signing DSSE envelopes in tests with keys made here (never a key checked in): the PAE of DSSE v1 signed
// with an ECDSA P-256 key, as cosign's `attest --key` does, and the trust that verifies them.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  parsePublicKeys,
  loadSignatureTrust,
  type SignatureTrust,
} from '../../src/ingest/signatures/trust.js';

export interface TestSigner {
  publicKeyPem: string;
  /** a DSSE envelope over `statement` (an in-toto statement) signed with this key */
  envelope(statement: unknown, keyid?: string): Record<string, unknown>;
}

export function makeSigner(type: 'ec' | 'ed25519' = 'ec'): TestSigner {
  const { privateKey, publicKey } =
    type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    envelope: (statement, keyid = '') =>
      signedEnvelope(statement, privateKey, type === 'ec' ? 'sha256' : null, keyid),
  };
}

const IN_TOTO = 'application/vnd.in-toto+json';

function signedEnvelope(statement: unknown, key: KeyObject, digest: string | null, keyid: string) {
  const payload = Buffer.from(JSON.stringify(statement));
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${IN_TOTO.length} ${IN_TOTO} ${payload.length} `), payload]);
  return {
    payloadType: IN_TOTO,
    payload: payload.toString('base64'),
    signatures: [{ keyid, sig: sign(digest, pae, key).toString('base64') }],
  };
}

/** The public-good Sigstore root, and these signers' keys as ATTESTATION_PUBLIC_KEYS would give them. */
export function trustWith(...signers: TestSigner[]): SignatureTrust {
  return loadSignatureTrust({
    keys: signers.flatMap((s) => parsePublicKeys(s.publicKeyPem)),
  });
}

/**
 * A signed payload (base64 in-toto statement) with one byte changed: the first hex digit of its first
 * sha256 or sha512 digest, so it still reads as the same statement and only the signature can tell.
 */
export function tamperPayload(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  const digest = /"sha(?:256|512)":\s*"/.exec(bytes.toString('latin1'));
  if (!digest) throw new Error('tamperPayload: the statement names no sha256 or sha512 digest');
  const i = digest.index + digest[0].length;
  bytes[i] = bytes[i] === 0x30 ? 0x31 : 0x30;
  return bytes.toString('base64');
}
