// Signed exports (spec "Audit", item 13): every export carries a detached Ed25519 signature in the
// `X-Service-Signature` response header. What is signed is a short statement (src/export/statement.ts:
// `pathgate-export/v2`, the tenant, the kind, the format, the scope, the state, the time and the body's
// SHA-256), so a streamed export (NDJSON) is signed without holding its body in memory, and a signature
// holds only for the export it was made for: an empty export of one tenant is not another's (issue 31).
// The statement travels in the header (`statement=<base64url>`) so that `verify-export` can print and check
// it. A v1 signature (`pathgate-export/v1 sha256:<hex>`, the body's digest alone) is refused: it binds no
// context, so accepting it would keep the attack open.
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
import {
  checkExpected,
  parseStatement,
  statementText,
  type ExportContext,
  type ExpectedContext,
  type ExportStatement,
} from './statement.js';

export const SIGNATURE_HEADER = 'x-service-signature';
// PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface ExportSigner {
  /** `ed25519=<base64>; keyid=<16 hex>; statement=<base64url>` for this export with this SHA-256 (hex) */
  signExport(context: ExportContext, sha256Hex: string): string;
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
    signExport(context, sha256Hex) {
      const statement = Buffer.from(statementText({ ...context, sha256: sha256Hex }));
      const signature = sign(null, statement, privateKey);
      return `ed25519=${signature.toString('base64')}; keyid=${keyId}; statement=${statement.toString('base64url')}`;
    },
  };
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

export type VerifyOutcome =
  | { ok: true; keyId: string; statement: ExportStatement }
  | { ok: false; reason: string; field?: string; statement?: ExportStatement };

/**
 * Checks a body against a signature header value and a public key (PEM): the signature over the statement,
 * the statement's digest against the body, and the statement's context against what the caller expects.
 */
export function verifyExport(
  body: Buffer,
  header: string,
  publicKeyPem: string,
  expected: ExpectedContext = {},
): VerifyOutcome {
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
  const encoded = /(?:^|[;,\s])statement=([A-Za-z0-9_-]+)/.exec(header)?.[1];
  if (!encoded)
    return {
      ok: false,
      field: 'version',
      reason:
        'a pathgate-export/v1 signature (no statement): it covers only the body, not its tenant, kind or scope, ' +
        'so it is no longer accepted; export the file again from the service',
    };
  const statementBytes = Buffer.from(encoded, 'base64url');
  const statement = parseStatement(statementBytes.toString('utf8'));
  if (typeof statement === 'string') return { ok: false, field: 'version', reason: statement };
  const signature = Buffer.from(match[1], 'base64');
  if (!verify(null, statementBytes, publicKey, signature))
    return {
      ok: false,
      reason: 'the signature does not match its statement: it was altered, or signed by another key',
    };
  const digest = createHash('sha256').update(body).digest('hex');
  if (digest !== statement.sha256)
    return {
      ok: false,
      field: 'sha256',
      statement,
      reason: 'the signature does not match this file: it was altered, or signed for another export',
    };
  const mismatch = checkExpected(statement, expected);
  if (mismatch) return { ok: false, field: mismatch.field, statement, reason: mismatch.reason };
  return { ok: true, keyId, statement };
}
