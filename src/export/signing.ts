// Signed exports (spec "Audit", item 13): every export carries a detached Ed25519 signature in the
// `X-Service-Signature` response header. What is signed is a short statement over the body's SHA-256,
// `pathgate-export/v1 sha256:<hex>`, so a streamed export (NDJSON) is signed without holding its body in
// memory, and the statement names the scheme so it cannot be replayed as another kind of message.
// The key is EXPORT_SIGNING_KEY (a PEM PKCS#8 Ed25519 key, or its 32-byte seed as 64 hex digits or
// base64), or one made on first start and kept at DATA_DIR/keys/export-ed25519.pem (mode 0600).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SIGNATURE_HEADER = 'x-service-signature';
const STATEMENT = 'pathgate-export/v1 sha256:';
// PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface ExportSigner {
  /** `ed25519=<base64 signature>; keyid=<16 hex>` for a body with this SHA-256 (hex) */
  signDigest(sha256Hex: string): string;
  publicKeyPem: string;
  keyId: string;
}

/** Reads EXPORT_SIGNING_KEY; throws naming what is wrong (never the key). */
export function parseSigningKey(text: string): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  if (trimmed.startsWith('-----BEGIN')) {
    try {
      key = createPrivateKey(trimmed);
    } catch {
      throw new Error('is not a readable PEM private key');
    }
  } else {
    const seed = /^[0-9a-fA-F]{64}$/.test(trimmed)
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
    if (seed.length !== 32)
      throw new Error('is neither a PEM Ed25519 private key nor a 32-byte seed (64 hex digits or base64)');
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

/** The key from the setting, or the one kept under DATA_DIR (made on first use). */
export function loadOrCreateSigningKey(configured: KeyObject | undefined, dataDir: string): KeyObject {
  if (configured) return configured;
  const file = path.join(dataDir, 'keys', 'export-ed25519.pem');
  if (existsSync(file)) return parseSigningKey(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('ed25519');
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  return privateKey;
}

export function createSigner(privateKey: KeyObject): ExportSigner {
  const publicKey = createPublicKey(privateKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const keyId = keyIdOf(publicKey);
  return {
    publicKeyPem,
    keyId,
    signDigest(sha256Hex) {
      const signature = sign(null, Buffer.from(STATEMENT + sha256Hex), privateKey);
      return `ed25519=${signature.toString('base64')}; keyid=${keyId}`;
    },
  };
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

export type VerifyOutcome = { ok: true; keyId: string } | { ok: false; reason: string };

/** Checks a body against a signature header value and a public key (PEM). */
export function verifyExport(body: Buffer, header: string, publicKeyPem: string): VerifyOutcome {
  const match = /(?:^|[;,\s])ed25519=([A-Za-z0-9+/=_-]+)/.exec(header.trim());
  if (!match) return { ok: false, reason: 'the signature is not of the form ed25519=<base64>' };
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    return { ok: false, reason: 'the public key is not a readable PEM public key' };
  }
  if (publicKey.asymmetricKeyType !== 'ed25519')
    return {
      ok: false,
      reason: `the public key is ${publicKey.asymmetricKeyType ?? 'unknown'}, not Ed25519`,
    };
  const keyId = keyIdOf(publicKey);
  const named = /keyid=([0-9a-f]{16})/.exec(header)?.[1];
  if (named && named !== keyId)
    return { ok: false, reason: `signed by key ${named}, but the public key given is ${keyId}` };
  const digest = createHash('sha256').update(body).digest('hex');
  const signature = Buffer.from(match[1], 'base64');
  const ok = verify(null, Buffer.from(STATEMENT + digest), publicKey, signature);
  return ok
    ? { ok: true, keyId }
    : {
        ok: false,
        reason: 'the signature does not match this file: it was altered, or signed by another key',
      };
}
