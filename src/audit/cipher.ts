// AES-256-GCM for stores at rest (STORE_ENCRYPTION_KEY): each record is sealed on its own, so an
// append-only file stays append-only. Sealed text: `enc1:<base64 of 12-byte IV | ciphertext | 16-byte tag>`.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc1:';

/** The key from its setting: 32 bytes as 64 hex digits or base64; throws naming what is wrong, not the key. */
export function parseStoreKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('is not a 32-byte key (64 hex digits or base64)');
  return key;
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

/** Throws when the text was not sealed with this key or was altered. */
export function open(key: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  if (!isSealed(sealed) || raw.length < 28) throw new Error('not a sealed record');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
