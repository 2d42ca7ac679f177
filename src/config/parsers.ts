// The parsers settings read their values with: each takes the variable's text and returns its value or
// throws an Error whose message says what is expected (loadSettings prefixes `NAME="value"`).
import { existsSync } from 'node:fs';
import { parseDuration } from './duration.js';
import type { ListenAddress } from './settings.js';

/** A parser returns the value or throws with text that follows `NAME="value" `. */
export type Parser<T> = (text: string) => T;

export type Reader = <T>(name: string, parse: Parser<T>, fallback: T) => T;

// setInterval() fires at once, every millisecond, when given more than this (about 24.8 days).
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const MAX_THREADS = 64;

export const BOOLEAN: Readonly<Record<string, boolean>> = {
  true: true,
  '1': true,
  yes: true,
  on: true,
  false: false,
  '0': false,
  no: false,
  off: false,
};

/** A file that must exist and be readable now (a start-up check, not a surprise later). */
export const parsePath: Parser<string> = (text) => {
  const file = text.trim();
  if (!existsSync(file)) throw new Error('names no file that exists');
  return file;
};

export const parseBoolean: Parser<boolean> = (text) => {
  const value = BOOLEAN[text.trim().toLowerCase()];
  if (value === undefined) throw new Error('is not a boolean (use true/false, 1/0, yes/no or on/off)');
  return value;
};

// A hostname or IPv4 address, or an IPv6 address in brackets; `:port` alone means every interface.
export const ADDRESS = /^(?:\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\]|([A-Za-z0-9._-]*)):(\d{1,5})$/;

export const parseAddress: Parser<ListenAddress> = (text) => {
  const match = ADDRESS.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error('is not host:port (e.g. 127.0.0.1:8080 or :8080)');
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
};

export function parseEnum<T extends string>(allowed: readonly T[]): Parser<T> {
  return (text) => {
    const value = text.trim().toLowerCase();
    if (!(allowed as readonly string[]).includes(value))
      throw new Error(`is not one of ${allowed.join(', ')}`);
    return value as T;
  };
}

export const parseScore: Parser<number> = (text) => {
  const trimmed = text.trim();
  // Plain decimals only: Number() would also take `0x1`, `1e-1` and `Infinity`.
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(value >= 0 && value <= 1)) throw new Error('is not a number from 0 to 1');
  return value;
};

/** A whole number of worker threads from `min` to MAX_THREADS. */
function threadCount(min: number): Parser<number> {
  return (text) => {
    const trimmed = text.trim();
    const value = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!(value >= min && value <= MAX_THREADS))
      throw new Error(`is not a whole number from ${min} to ${MAX_THREADS}`);
    return value;
  };
}

export const parseThreads = threadCount(1);

/** Worker threads for work the event loop can also do itself: 0 means none. */
export const parseThreadsOrNone = threadCount(0);

export function durationParser(options: { timer?: boolean } = {}): Parser<number> {
  return (text) => {
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch {
      throw new Error('is not a duration (use e.g. 30s, 5m, 1h30m)');
    }
    if (ms <= 0) throw new Error('must be longer than zero');
    if (options.timer && ms > MAX_TIMER_MS) throw new Error('is too long (at most 596h)');
    return ms;
  };
}

export const isAnyHost = (host: string) => host === '0.0.0.0' || host === '::';

export const parseRate: Parser<number> = (text) => {
  const value = /^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value > 0 && value <= 100_000)) throw new Error('is not a rate above 0 (requests per second)');
  return value;
};

export const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 * 1024 };

/** A body size: bytes, or `KiB`/`MiB`; from 1 KiB up to the 32 MiB body limit. */
export const parseBodyBytes: Parser<number> = (text) => {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kib|mib)?$/i.exec(text.trim());
  const value = match ? Math.floor(Number(match[1]) * BYTE_UNITS[(match[2] ?? '').toLowerCase()]) : NaN;
  if (!(value >= 1024 && value <= 32 * 1024 * 1024))
    throw new Error('is not a size from 1KiB to 32MiB (bytes, or e.g. 512KiB, 8MiB)');
  return value;
};

export const parseCount: Parser<number> = (text) => {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value >= 1 && value <= 10_000)) throw new Error('is not a whole number from 1 to 10000');
  return value;
};

export const parseUrl: Parser<string> = (text) => {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    return url.toString();
  } catch {
    throw new Error('is not an http(s) URL');
  }
};

export const parseList: Parser<string[]> = (text) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

export function wholeNumber(min: number, max: number): Parser<number> {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
    if (!(value >= min && value <= max)) throw new Error(`is not a whole number from ${min} to ${max}`);
    return value;
  };
}

/** A host name (and port) alone: no scheme, path or credentials. */
export const parseHostName: Parser<string> = (text) => {
  const host = text.trim();
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/.test(host))
    throw new Error('is not a host name (e.g. ghe.example.com, without https:// or a path)');
  return host.toLowerCase();
};

export const parseNatsUrl: Parser<string> = (text) => {
  const urls = text.split(',').map((t) => t.trim());
  for (const each of urls) {
    let url: URL;
    try {
      url = new URL(each);
    } catch {
      throw new Error('is not a nats:// or tls:// URL (comma separated for several)');
    }
    if (!['nats:', 'tls:'].includes(url.protocol)) throw new Error('is not a nats:// or tls:// URL');
  }
  return urls.join(',');
};

export function parseSubjectToken(what: string): Parser<string> {
  return (text) => {
    const value = text.trim();
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(value) || value.length > 64)
      throw new Error(`is not ${what} (letters, digits, - and _, dot separated; at most 64)`);
    return value;
  };
}
