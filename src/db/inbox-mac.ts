// The MAC each leader_inbox row carries (issue 31: a row written straight into PostgreSQL was handled as a
// verified webhook). HMAC-SHA256 under a key every replica holds: LEADER_INBOX_KEY, or one derived with
// HKDF-SHA256 from WEBHOOK_SECRET (else FORGE_TOKEN), so a database credential alone cannot hand the leader
// work. The MAC covers the kind, the replica that handed it and the body in a canonical JSON form (keys
// sorted), since PostgreSQL's jsonb does not keep the text it was given.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export function inboxKey(material: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'pathgate/leader-inbox', 'leader_inbox row mac v1', 32));
}

/** JSON with every object's keys sorted: the same text for the same value, whatever order it came in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export function inboxMac(key: Buffer, kind: string, handedBy: string, body: unknown): string {
  return createHmac('sha256', key).update(`${kind}\n${handedBy}\n`).update(canonicalJson(body)).digest('hex');
}

export function inboxMacValid(
  key: Buffer,
  row: { kind: string; handed_by: string; body: unknown; mac: string | null },
): boolean {
  if (typeof row.mac !== 'string' || !/^[0-9a-f]{64}$/.test(row.mac)) return false;
  const expected = Buffer.from(inboxMac(key, row.kind, row.handed_by, row.body), 'hex');
  return timingSafeEqual(expected, Buffer.from(row.mac, 'hex'));
}
