// Settings of the scheduled connectors (spec "Events"; docs/connectors.md), read apart from settings.ts
// (which is past its size): which connectors run, how often, in which mode, and where their fixtures are.
// Every bad value stops the start with a problem naming the variable and the value.
import { statSync } from 'node:fs';
import { parseDuration } from './duration.js';

type Parser<T> = (text: string) => T;
export type ConnectorReader = <T>(name: string, parse: Parser<T>, fallback: T) => T;

/** The connectors there are (`CONNECTORS_ENABLED` names some of them). */
export const CONNECTOR_NAMES = ['clouda', 'cloudb'] as const;
export type ConnectorName = (typeof CONNECTOR_NAMES)[number];
export type ConnectorMode = 'fixtures' | 'sdk';

export interface ConnectorSettings {
  /** CONNECTORS_ENABLED: the connectors that run (none by default) */
  enabled: ConnectorName[];
  /** CONNECTOR_INTERVAL: time between two pulls of each connector */
  intervalMs: number;
  clouda: {
    /** CLOUDA_CONNECTOR_MODE */
    mode: ConnectorMode;
    /** CLOUDA_REGION */
    region: string;
    /** CLOUDA_FIXTURES_DIR: one folder per account (docs/connectors.md, "Fixtures layout") */
    fixturesDir?: string;
    /** CLOUDA_ROLE_ARN: one role per account, assumed in turn (sdk mode) */
    roleArns: string[];
  };
  cloudb: {
    /** CLOUDB_CONNECTOR_MODE: `fixtures` only; `sdk` refuses the start (spec) */
    mode: 'fixtures';
    /** CLOUDB_FIXTURES_DIR */
    fixturesDir?: string;
  };
}

export const DEFAULT_CONNECTOR_INTERVAL_MS = 15 * 60_000;
export const DEFAULT_CLOUDA_REGION = 'us-east-1';

export function defaultConnectorSettings(): ConnectorSettings {
  return {
    enabled: [],
    intervalMs: DEFAULT_CONNECTOR_INTERVAL_MS,
    clouda: { mode: 'sdk', region: DEFAULT_CLOUDA_REGION, roleArns: [] },
    cloudb: { mode: 'fixtures' },
  };
}

const MAX_TIMER_MS = 2 ** 31 - 1;

const interval: Parser<number> = (text) => {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new Error('is not a duration (use e.g. 30s, 15m, 1h)');
  }
  if (ms < 1_000) throw new Error('must be at least 1s');
  if (ms > MAX_TIMER_MS) throw new Error('is too long (at most 596h)');
  return ms;
};

const enabledList: Parser<ConnectorName[]> = (text) => {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((n) => !(CONNECTOR_NAMES as readonly string[]).includes(n));
  if (unknown.length)
    throw new Error(
      `names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not a connector (${CONNECTOR_NAMES.join(', ')})`,
    );
  return names as ConnectorName[];
};

const mode: Parser<ConnectorMode> = (text) => {
  const value = text.trim().toLowerCase();
  if (value !== 'fixtures' && value !== 'sdk') throw new Error('is not one of fixtures, sdk');
  return value;
};

// AWS region names: us-east-1, eu-central-2, us-gov-west-1, ap-southeast-4, cn-north-1.
const region: Parser<string> = (text) => {
  const value = text.trim().toLowerCase();
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(value))
    throw new Error('is not an AWS region name (like us-east-1, eu-central-1)');
  return value;
};

const folder: Parser<string> = (text) => {
  const dir = text.trim();
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  if (!isDir) throw new Error('is not a folder');
  return dir;
};

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

const roleArns: Parser<string[]> = (text) => {
  const arns = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = arns.filter((a) => !ROLE_ARN.test(a));
  if (bad.length)
    throw new Error(
      `holds ${bad.map((a) => JSON.stringify(a)).join(', ')}, not a role ARN (arn:aws:iam::<12-digit account>:role/<name>)`,
    );
  return arns;
};

/** The connector settings; problems go to `problems`, each naming its variable and value. */
export function readConnectorSettings(read: ConnectorReader, problems: string[]): ConnectorSettings {
  const d = defaultConnectorSettings();
  const enabled = read('CONNECTORS_ENABLED', enabledList, d.enabled);
  const cloudaMode = read('CLOUDA_CONNECTOR_MODE', mode, d.clouda.mode);
  const cloudbMode = read<ConnectorMode>('CLOUDB_CONNECTOR_MODE', mode, d.cloudb.mode);
  // The spec's start-up refusal: cloudb has fixtures only, whether or not it is enabled.
  if (cloudbMode === 'sdk')
    problems.push(
      'CLOUDB_CONNECTOR_MODE="sdk" is refused: the cloudb connector has no live mode (it maps normalized network state from fixtures); set fixtures',
    );
  const settings: ConnectorSettings = {
    enabled,
    intervalMs: read('CONNECTOR_INTERVAL', interval, d.intervalMs),
    clouda: {
      mode: cloudaMode,
      region: read('CLOUDA_REGION', region, d.clouda.region),
      fixturesDir: read<string | undefined>('CLOUDA_FIXTURES_DIR', folder, undefined),
      roleArns: read('CLOUDA_ROLE_ARN', roleArns, d.clouda.roleArns),
    },
    cloudb: {
      mode: 'fixtures',
      fixturesDir: read<string | undefined>('CLOUDB_FIXTURES_DIR', folder, undefined),
    },
  };
  if (enabled.includes('clouda') && cloudaMode === 'fixtures' && settings.clouda.fixturesDir === undefined)
    problems.push(
      'CONNECTORS_ENABLED names clouda in fixtures mode (CLOUDA_CONNECTOR_MODE=fixtures) but CLOUDA_FIXTURES_DIR is unset; name the folder (the demo: fixtures/connectors/clouda)',
    );
  if (enabled.includes('cloudb') && settings.cloudb.fixturesDir === undefined)
    problems.push(
      'CONNECTORS_ENABLED names cloudb but CLOUDB_FIXTURES_DIR is unset; name the folder (the demo: fixtures/connectors/cloudb)',
    );
  return settings;
}

/** The settings' documentation rows (settings-doc.ts lists them with the others). */
export const CONNECTOR_SETTINGS_DOC: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: 'CONNECTORS_ENABLED',
    default: 'unset (none)',
    meaning:
      'Comma list of the scheduled connectors that pull cloud state (`clouda`: AWS; `cloudb`: normalized network state from fixtures). Leader-only; each pull goes through the ingest pipeline as complete snapshots into the default tenant (docs/connectors.md). An unknown name stops the start.',
  },
  {
    name: 'CONNECTOR_INTERVAL',
    default: '15m',
    meaning:
      'Time between two pulls of each connector (at least 1s); the first runs when the service starts. A pull still running when the next is due makes that one skip (counted in `service_connector_runs_total{result="skipped"}`).',
  },
  {
    name: 'CLOUDA_CONNECTOR_MODE',
    default: 'sdk',
    meaning:
      '`sdk`: pull AWS live through the AWS SDK for JavaScript v3 with read-only credentials; `fixtures`: read the account folders under CLOUDA_FIXTURES_DIR (demos, tests).',
  },
  {
    name: 'CLOUDA_REGION',
    default: 'us-east-1',
    meaning:
      'The AWS region `clouda` pulls; also the region of its snapshot scopes (`aws:<account>/<region>`).',
  },
  {
    name: 'CLOUDA_FIXTURES_DIR',
    default: 'unset',
    meaning:
      'fixtures mode: a folder with one subfolder per 12-digit account holding AWS CLI outputs (`ec2-describe-instances.json`, `iam-get-account-authorization-details.json`, ...; docs/connectors.md). Required when clouda runs in fixtures mode.',
  },
  {
    name: 'CLOUDA_ROLE_ARN',
    default: 'unset',
    meaning:
      "sdk mode: comma list of IAM role ARNs, one per account, each assumed in turn; each account is the one STS reports for the assumed credentials. Unset: the credentials' own account only.",
  },
  {
    name: 'CLOUDB_CONNECTOR_MODE',
    default: 'fixtures',
    meaning: '`fixtures` only: `sdk` stops the start (cloudb has no live mode).',
  },
  {
    name: 'CLOUDB_FIXTURES_DIR',
    default: 'unset',
    meaning:
      'A folder of `<account>.json` files of normalized network state, mapped to the `cloudnet` bundle (docs/connectors.md). Required when cloudb is enabled.',
  },
];
