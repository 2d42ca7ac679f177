// Settings of issue 31's defences, read apart from settings.ts (which is past its size): export spool
// limits, GitHub webhook body limits and delivery memory, the key of the leader inbox's MACs, and where
// (one URL per tenant) and with which key drift and ticket webhooks are sent.
import { parseDuration } from './duration.js';

type Parser<T> = (text: string) => T;
export type SecurityReader = <T>(name: string, parse: Parser<T>, fallback: T) => T;
export type SecretReader = (name: string) => string | undefined;

/** An outbound webhook (drift, tickets): one URL per tenant, signed with the secret when it is set. */
export interface OutboundWebhook {
  /** tenant -> URL; the default tenant's is the single-URL setting (DRIFT_WEBHOOK_URL, TICKET_WEBHOOK_URL) */
  urls: ReadonlyMap<string, string>;
  /** DRIFT_WEBHOOK_SECRET / TICKET_WEBHOOK_SECRET: HMAC-SHA256 key of the X-Pathgate-Signature header */
  secret?: string;
}

export interface SecuritySettings {
  exports: {
    /** EXPORT_MAX_PER_CALLER: exports one caller may have spooled or being sent at once */
    maxPerCaller: number;
    /** EXPORT_SPOOL_MAX_BYTES: bytes of every spooled export together */
    spoolMaxBytes: number;
    /** EXPORT_SEND_TIMEOUT: an export not fully sent by then is cut off and its spool file removed */
    sendTimeoutMs: number;
  };
  webhooks: {
    /** WEBHOOK_MAX_BYTES: largest GitHub webhook body taken */
    maxBytes: number;
    /** WEBHOOK_BUFFER_MAX_BYTES: webhook bodies buffered at once, all deliveries together */
    bufferMaxBytes: number;
    /** WEBHOOK_DELIVERY_MEMORY: X-GitHub-Delivery ids remembered to refuse a replay */
    deliveryMemory: number;
  };
  /** LEADER_INBOX_KEY: the MAC key of leader_inbox rows (else derived from WEBHOOK_SECRET or FORGE_TOKEN) */
  leaderInboxKey?: string;
  drift: OutboundWebhook;
  tickets: OutboundWebhook;
}

export const DEFAULT_TENANT_NAME = 'default';

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

function bytesParser(min: number, max: number, range: string): Parser<number> {
  return (text) => {
    const match = /^(\d+(?:\.\d+)?)\s*(b|kib|mib|gib)?$/i.exec(text.trim());
    const value = match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()]) : NaN;
    if (!(value >= min && value <= max))
      throw new Error(`is not a size from ${range} (bytes, or KiB/MiB/GiB)`);
    return value;
  };
}

/** A whole number within bounds (shared by the settings files that read counts). */
export function wholeNumber(min: number, max: number): Parser<number> {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
    if (!(value >= min && value <= max)) throw new Error(`is not a whole number from ${min} to ${max}`);
    return value;
  };
}

const duration: Parser<number> = (text) => {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new Error('is not a duration (use e.g. 30s, 5m)');
  }
  if (ms < 1000 || ms > 24 * 3600_000) throw new Error('must be from 1s to 24h');
  return ms;
};

function httpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('is not an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('is not an http(s) URL');
  return url.toString();
}

/** `<tenant>=<url>,...`: a bad entry is named by its position and tenant (a URL may hold a credential). */
const tenantUrls: Parser<Map<string, string>> = (text) => {
  const out = new Map<string, string>();
  text.split(',').forEach((entry, index) => {
    if (!entry.trim()) return;
    const at = entry.indexOf('=');
    const tenant = at < 0 ? '' : entry.slice(0, at).trim();
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(tenant))
      throw new Error(`entry ${index + 1} is not <tenant>=<url> with a tenant name`);
    if (out.has(tenant)) throw new Error(`entry ${index + 1} names tenant ${tenant} a second time`);
    try {
      out.set(tenant, httpUrl(entry.slice(at + 1)));
    } catch {
      throw new Error(`entry ${index + 1} (tenant ${tenant}) is not an http(s) URL`);
    }
  });
  return out;
};

function outbound(
  single: string | undefined,
  perTenant: Map<string, string>,
  secret: string | undefined,
  singleName: string,
  listName: string,
  problems: string[],
): OutboundWebhook {
  const urls = new Map(perTenant);
  if (single !== undefined) {
    if (urls.has(DEFAULT_TENANT_NAME))
      problems.push(`${singleName} and ${listName} both name the default tenant's URL; set one`);
    else urls.set(DEFAULT_TENANT_NAME, single);
  }
  return { urls, ...(secret !== undefined && { secret }) };
}

export function readSecuritySettings(
  read: SecurityReader,
  secret: SecretReader,
  problems: string[],
  singleUrls: { drift: string | undefined; tickets: string | undefined },
): SecuritySettings {
  return {
    exports: {
      maxPerCaller: read('EXPORT_MAX_PER_CALLER', wholeNumber(1, 1000), 2),
      spoolMaxBytes: read(
        'EXPORT_SPOOL_MAX_BYTES',
        bytesParser(1024 ** 2, 1024 ** 4, '1MiB to 1024GiB'),
        1024 ** 3,
      ),
      sendTimeoutMs: read('EXPORT_SEND_TIMEOUT', duration, 120_000),
    },
    webhooks: {
      maxBytes: read('WEBHOOK_MAX_BYTES', bytesParser(1024, 32 * 1024 ** 2, '1KiB to 32MiB'), 25 * 1024 ** 2),
      bufferMaxBytes: read(
        'WEBHOOK_BUFFER_MAX_BYTES',
        bytesParser(1024, 1024 ** 3, '1KiB to 1GiB'),
        64 * 1024 ** 2,
      ),
      deliveryMemory: read('WEBHOOK_DELIVERY_MEMORY', wholeNumber(100, 10_000_000), 10_000),
    },
    leaderInboxKey: secret('LEADER_INBOX_KEY'),
    drift: outbound(
      singleUrls.drift,
      read('DRIFT_WEBHOOK_URLS', tenantUrls, new Map()),
      secret('DRIFT_WEBHOOK_SECRET'),
      'DRIFT_WEBHOOK_URL',
      'DRIFT_WEBHOOK_URLS',
      problems,
    ),
    tickets: outbound(
      singleUrls.tickets,
      read('TICKET_WEBHOOK_URLS', tenantUrls, new Map()),
      secret('TICKET_WEBHOOK_SECRET'),
      'TICKET_WEBHOOK_URL',
      'TICKET_WEBHOOK_URLS',
      problems,
    ),
  };
}

export const SECURITY_SETTINGS_DOC: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: 'EXPORT_MAX_PER_CALLER',
    default: '2',
    meaning:
      'Exports one caller (credential and tenant) may have spooled or being sent at once; one more is refused with 429 `too-many-requests`.',
  },
  {
    name: 'EXPORT_SPOOL_MAX_BYTES',
    default: '1GiB',
    meaning:
      'Bytes of all spooled exports together (DATA_DIR/exports); an export that would pass it is refused with 503 and its spool file removed.',
  },
  {
    name: 'EXPORT_SEND_TIMEOUT',
    default: '2m',
    meaning:
      'An export not fully sent by then (a client that stops reading) is cut off and its spool file removed.',
  },
  {
    name: 'WEBHOOK_MAX_BYTES',
    default: '25MiB',
    meaning:
      "Largest GitHub webhook body taken (GitHub's own maximum is 25 MB); a larger one, declared or received, is refused with 413 before it is read.",
  },
  {
    name: 'WEBHOOK_BUFFER_MAX_BYTES',
    default: '64MiB',
    meaning:
      'Webhook bodies buffered at once, every delivery together; past it a delivery is refused with 503 (GitHub redelivers). A delivery without a well-formed `X-Hub-Signature-256` is refused before its body is read.',
  },
  {
    name: 'WEBHOOK_DELIVERY_MEMORY',
    default: '10000',
    meaning:
      'GitHub delivery ids (`X-GitHub-Delivery`) remembered, in DATA_DIR (or PostgreSQL with DB_DSN), to answer a replayed delivery 200 without handling it again.',
  },
  {
    name: 'LEADER_INBOX_KEY',
    default: 'unset (derived from WEBHOOK_SECRET, else FORGE_TOKEN)',
    meaning:
      'Key of the HMAC-SHA256 each `leader_inbox` row carries (scale-out); the same on every replica. Unset, an HKDF-SHA256 key is derived from WEBHOOK_SECRET or FORGE_TOKEN. Also `LEADER_INBOX_KEY_FILE`.',
  },
  {
    name: 'DRIFT_WEBHOOK_URLS',
    default: 'unset',
    meaning:
      "Per tenant, where its posture drift is POSTed: `<tenant>=<url>,...`. A tenant with no URL sends nothing; DRIFT_WEBHOOK_URL is the default tenant's.",
  },
  {
    name: 'DRIFT_WEBHOOK_SECRET',
    default: 'unset (unsigned)',
    meaning:
      'Signs each drift POST: `X-Pathgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (docs/security.md). Also `DRIFT_WEBHOOK_SECRET_FILE`.',
  },
  {
    name: 'TICKET_WEBHOOK_URLS',
    default: 'unset',
    meaning:
      "Per tenant, where its tickets are POSTed: `<tenant>=<url>,...`. A tenant with no URL sends nothing; TICKET_WEBHOOK_URL is the default tenant's.",
  },
  {
    name: 'TICKET_WEBHOOK_SECRET',
    default: 'unset (unsigned)',
    meaning: 'Signs each ticket POST as DRIFT_WEBHOOK_SECRET does. Also `TICKET_WEBHOOK_SECRET_FILE`.',
  },
];

/** The defaults, as an empty environment reads. */
export function defaultSecuritySettings(): SecuritySettings {
  return readSecuritySettings(
    (_name, _parse, fallback) => fallback,
    () => undefined,
    [],
    { drift: undefined, tickets: undefined },
  );
}
