// Where governance records live (GOVERNANCE_BACKEND). The `file` backend, the embedded default, keeps
// one JSON document per (kind, tenant): under DATA_DIR/governance/<tenant>/<kind>.json, or at the file
// a `*_PATH` setting names (that file is the default tenant's; another tenant's sits beside it as
// `<name>.<tenant>.json`). Each write replaces the whole document atomically (temporary file, fsync,
// rename), so a crash leaves the old document or the new one, never half of one. With
// STORE_ENCRYPTION_KEY the document is sealed with AES-256-GCM as the audit log's lines are.
// The interface is what a `postgres` backend fills (the scale-out issue); it is refused at start-up here.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { isSealed, open, seal } from '../audit/cipher.js';

export type GovernanceKind = 'suppressions' | 'validations' | 'tickets' | 'history';

export const GOVERNANCE_KINDS: readonly GovernanceKind[] = [
  'suppressions',
  'validations',
  'tickets',
  'history',
];

/** One kind of governance record, per tenant: read whole, written whole. */
export interface DocumentStore<T> {
  load(tenant: string): T[];
  save(tenant: string, items: readonly T[]): void;
}

export interface GovernanceBackend {
  readonly name: 'file';
  documents<T>(kind: GovernanceKind): DocumentStore<T>;
  /** Where a kind's records of a tenant are kept (for messages and docs). */
  locate(kind: GovernanceKind, tenant: string): string;
}

export interface FileBackendOptions {
  dataDir: string;
  /** SUPPRESSIONS_PATH, VALIDATIONS_PATH, TICKETS_PATH, HISTORY_PATH */
  paths?: Partial<Record<GovernanceKind, string>>;
  /** STORE_ENCRYPTION_KEY */
  key?: Buffer;
}

const DEFAULT_TENANT = 'default';

export function createFileBackend(options: FileBackendOptions): GovernanceBackend {
  const locate = (kind: GovernanceKind, tenant: string): string => {
    const named = options.paths?.[kind];
    if (!named) return path.join(options.dataDir, 'governance', tenant, `${kind}.json`);
    if (tenant === DEFAULT_TENANT) return named;
    const ext = path.extname(named);
    return path.join(path.dirname(named), `${path.basename(named, ext)}.${tenant}${ext || '.json'}`);
  };
  return {
    name: 'file',
    locate,
    documents<T>(kind: GovernanceKind): DocumentStore<T> {
      return {
        load: (tenant) => readDocument<T>(locate(kind, tenant), options.key),
        save: (tenant, items) =>
          writeDocument(locate(kind, tenant), JSON.stringify(items, null, 1), options.key),
      };
    },
  };
}

function readDocument<T>(file: string, key: Buffer | undefined): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  let json: string;
  if (isSealed(text.trim())) {
    if (!key) throw new Error(`${file} is encrypted and STORE_ENCRYPTION_KEY is not set`);
    try {
      json = open(key, text.trim());
    } catch {
      throw new Error(`${file} could not be decrypted with STORE_ENCRYPTION_KEY (another key, or altered)`);
    }
  } else json = text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(parsed)) throw new Error(`${file} does not hold a JSON array`);
  return parsed as T[];
}

function writeDocument(file: string, json: string, key: Buffer | undefined): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, key ? `${seal(key, json)}\n` : json);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
