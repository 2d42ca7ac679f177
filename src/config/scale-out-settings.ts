// Scale-out settings (BUS_*, DB_*, LEADER_POLL_INTERVAL; only when BUS_URL or DB_DSN is set): read by
// loadSettings (settings.ts).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import {
  type Reader,
  durationParser,
  parseCount,
  parseEnum,
  parseNatsUrl,
  parseSubjectToken,
} from './parsers.js';
import { readSecret } from './auth-settings.js';
import type { Env } from './settings.js';

/** Scale-out: NATS JetStream as the bus, PostgreSQL for leadership (docs/deployment.md). */
export interface ScaleOutSettings {
  bus?: {
    url: string;
    subjectPrefix: string;
    maxAgeMs: number;
    maxDeliver: number;
    /** BUS_CONSUMER: the durable consumer, one per replica (each replica holds every graph) */
    consumer: string;
    user?: string;
    password?: string;
    tls?: { ca?: string; cert?: string; key?: string };
  };
  db?: { dsn: string; sslmode?: 'disable' | 'require' | 'verify-full' };
  leaderPollMs: number;
}

/** BUS_* and DB_*: scale-out, only when BUS_URL or DB_DSN is set. */
export function readScaleOut(env: Env, problems: string[], read: Reader): ScaleOutSettings | undefined {
  const url = read<string | undefined>('BUS_URL', parseNatsUrl, undefined);
  const dsn = readSecret(env, 'DB_DSN', problems);
  const leaderPollMs = read('LEADER_POLL_INTERVAL', durationParser({ timer: true }), 2_000);
  const prefix = read('BUS_SUBJECT_PREFIX', parseSubjectToken('a subject prefix'), 'service');
  const consumer = read(
    'BUS_CONSUMER',
    parseSubjectToken('a consumer name'),
    `pathgate-${os.hostname().replace(/[^A-Za-z0-9_-]/g, '_')}`,
  );
  const maxAgeMs = read('BUS_MAX_AGE', durationParser(), 168 * 3_600_000);
  const maxDeliver = read('BUS_MAX_DELIVER', parseCount, 5);
  if (url === undefined && dsn === undefined) {
    for (const name of [
      'BUS_USER',
      'BUS_PASSWORD',
      'BUS_TLS_CA',
      'BUS_TLS_CERT',
      'BUS_TLS_KEY',
      'DB_SSLMODE',
    ])
      if (env[name]?.trim()) problems.push(`${name} is set but neither BUS_URL nor DB_DSN is`);
    return undefined;
  }
  if (url !== undefined && dsn === undefined)
    problems.push('BUS_URL needs DB_DSN: replicas choose their leader through PostgreSQL');
  if (dsn !== undefined) {
    try {
      const parsed = new URL(dsn);
      if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error();
    } catch {
      // The DSN may carry a password: it is never echoed.
      problems.push('DB_DSN is not a postgres:// URL');
    }
  }
  const file = (t: string) => {
    const name = t.trim();
    readFileSync(name);
    return name;
  };
  const fileOf = (name: string) =>
    read<string | undefined>(
      name,
      (t) => {
        try {
          return file(t);
        } catch (error) {
          throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
            cause: error,
          });
        }
      },
      undefined,
    );
  const tls = { ca: fileOf('BUS_TLS_CA'), cert: fileOf('BUS_TLS_CERT'), key: fileOf('BUS_TLS_KEY') };
  if ((tls.cert === undefined) !== (tls.key === undefined))
    problems.push('BUS_TLS_CERT and BUS_TLS_KEY go together; set both or neither');
  const user = read<string | undefined>('BUS_USER', (t) => t.trim(), undefined);
  const password = readSecret(env, 'BUS_PASSWORD', problems);
  if (password !== undefined && user === undefined) problems.push('BUS_PASSWORD is set without BUS_USER');
  return {
    bus:
      url === undefined
        ? undefined
        : {
            url,
            subjectPrefix: prefix,
            maxAgeMs,
            maxDeliver,
            consumer,
            user,
            password,
            tls: tls.ca || tls.cert ? tls : undefined,
          },
    db:
      dsn === undefined
        ? undefined
        : {
            dsn,
            sslmode: read<'disable' | 'require' | 'verify-full' | undefined>(
              'DB_SSLMODE',
              parseEnum<'disable' | 'require' | 'verify-full'>(['disable', 'require', 'verify-full']),
              undefined,
            ),
          },
    leaderPollMs,
  };
}
