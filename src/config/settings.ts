// Settings from the environment, parsed once at start-up. Every bad value is reported together, each
// naming its variable, the value and what is expected; the process then refuses to start.
import os from 'node:os';
import { parseDuration } from './duration.js';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface Settings {
  dataDir: string;
  ingestAddr: ListenAddress;
  apiAddr: ListenAddress;
  analyzerIntervalMs: number;
  analyzerThreads: number;
  seedIamUsers: boolean;
  scrubIngest: boolean;
  graphTtlMs: number | null;
  parkedEdgeTtlMs: number;
  snapshotIntervalMs: number;
  priorityP1Score: number;
  priorityP2Score: number;
  logFormat: 'text' | 'json';
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  demoData: boolean;
}

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `bad settings:\n  ${problems.join('\n  ')}`);
  }
}

type Parser<T> = (text: string) => T;

const defaultThreads = () => Math.max(1, Math.min(4, os.availableParallelism()));

/** Every setting: name, default (as text, or undefined for unset), meaning. docs/configuration.md lists the same. */
export const SETTINGS_DOC: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: 'DATA_DIR',
    default: './data',
    meaning: 'Where the embedded store keeps its journal and snapshots.',
  },
  {
    name: 'INGEST_ADDR',
    default: '127.0.0.1:8081',
    meaning: 'Ingest listener, `host:port`; `:8081` listens on every interface.',
  },
  { name: 'API_ADDR', default: '127.0.0.1:8080', meaning: 'API listener (GraphQL, metrics), `host:port`.' },
  { name: 'ANALYZER_INTERVAL', default: '30s', meaning: 'How often the analyzer looks for changed graphs.' },
  {
    name: 'ANALYZER_THREADS',
    default: 'cores, at most 4',
    meaning: 'Worker threads for path finding; 1 runs in-process.',
  },
  {
    name: 'SEED_IAM_USERS',
    default: 'false',
    meaning: 'Also start paths at IAM users marked `credential_exposed`.',
  },
  { name: 'SCRUB_INGEST', default: 'true', meaning: 'Redact secrets from property values before storage.' },
  {
    name: 'GRAPH_TTL',
    default: 'unset (off)',
    meaning: 'Remove nodes and edges not re-seen for this long (e.g. 168h).',
  },
  { name: 'PARKED_EDGE_TTL', default: '168h', meaning: 'How long an edge waits for a missing endpoint.' },
  {
    name: 'SNAPSHOT_INTERVAL',
    default: '5m',
    meaning: 'How often the state is snapshotted (and the journal compacted) when it changed.',
  },
  { name: 'PRIORITY_P1_SCORE', default: '0.5', meaning: 'A path scoring at least this is P1 (critical).' },
  { name: 'PRIORITY_P2_SCORE', default: '0.1', meaning: 'A path scoring at least this is P2; below is P3.' },
  { name: 'LOG_FORMAT', default: 'text', meaning: '`text` or `json`.' },
  { name: 'LOG_LEVEL', default: 'info', meaning: '`debug`, `info`, `warn` or `error`.' },
  {
    name: 'DEMO_DATA',
    default: 'true under npm start, false under pathgate serve',
    meaning: 'Load the demo estate when the graph is empty.',
  },
];

const BOOLEAN: Record<string, boolean> = {
  true: true,
  '1': true,
  yes: true,
  on: true,
  false: false,
  '0': false,
  no: false,
  off: false,
};

function parseBoolean(text: string): boolean {
  const value = BOOLEAN[text.trim().toLowerCase()];
  if (value === undefined) throw new Error(`${JSON.stringify(text)} is not a boolean (use true or false)`);
  return value;
}

function parseAddress(text: string): ListenAddress {
  const match = /^(.*):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535)
    throw new Error(`${JSON.stringify(text)} is not host:port (e.g. 127.0.0.1:8080 or :8080)`);
  const host = match[1].replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
  return { host, port };
}

function parseEnum<T extends string>(allowed: readonly T[]): Parser<T> {
  return (text) => {
    if (!(allowed as readonly string[]).includes(text))
      throw new Error(`${JSON.stringify(text)} is not one of ${allowed.join(', ')}`);
    return text as T;
  };
}

function parseProbability(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new Error(`${JSON.stringify(text)} is not a number between 0 and 1`);
  return value;
}

function parseThreads(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 64)
    throw new Error(`${JSON.stringify(text)} is not a whole number from 1 to 64`);
  return value;
}

function positiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error(`${JSON.stringify(text)} must be longer than zero`);
  return ms;
}

export function loadSettings(env: NodeJS.ProcessEnv, defaults: { demoData?: boolean } = {}): Settings {
  const problems: string[] = [];
  function read<T>(name: string, parse: Parser<T>, fallback: T): T {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    try {
      return parse(raw);
    } catch (error) {
      problems.push(`${name}=${(error as Error).message}`);
      return fallback;
    }
  }
  const settings: Settings = {
    dataDir: read('DATA_DIR', (t) => t, './data'),
    ingestAddr: read('INGEST_ADDR', parseAddress, { host: '127.0.0.1', port: 8081 }),
    apiAddr: read('API_ADDR', parseAddress, { host: '127.0.0.1', port: 8080 }),
    analyzerIntervalMs: read('ANALYZER_INTERVAL', positiveDuration, 30_000),
    analyzerThreads: read('ANALYZER_THREADS', parseThreads, defaultThreads()),
    seedIamUsers: read('SEED_IAM_USERS', parseBoolean, false),
    scrubIngest: read('SCRUB_INGEST', parseBoolean, true),
    graphTtlMs: read<number | null>('GRAPH_TTL', positiveDuration, null),
    parkedEdgeTtlMs: read('PARKED_EDGE_TTL', positiveDuration, 7 * 24 * 3_600_000),
    snapshotIntervalMs: read('SNAPSHOT_INTERVAL', positiveDuration, 5 * 60_000),
    priorityP1Score: read('PRIORITY_P1_SCORE', parseProbability, 0.5),
    priorityP2Score: read('PRIORITY_P2_SCORE', parseProbability, 0.1),
    logFormat: read('LOG_FORMAT', parseEnum(['text', 'json'] as const), 'text'),
    logLevel: read('LOG_LEVEL', parseEnum(['debug', 'info', 'warn', 'error'] as const), 'info'),
    demoData: read('DEMO_DATA', parseBoolean, defaults.demoData ?? false),
  };
  if (settings.priorityP2Score > settings.priorityP1Score) {
    problems.push(
      `PRIORITY_P2_SCORE=${settings.priorityP2Score} is above PRIORITY_P1_SCORE=${settings.priorityP1Score}`,
    );
  }
  if (problems.length) throw new SettingsError(problems);
  return settings;
}
