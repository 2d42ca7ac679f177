// Where governance records live (GOVERNANCE_BACKEND). The `file` backend, the embedded default, keeps
// one JSON document per (kind, tenant): under DATA_DIR/governance/<tenant>/<kind>.json, or at the file
// a `*_PATH` setting names (that file is the default tenant's; another tenant's sits beside it as
// `<name>.<tenant>.json`). Each write replaces the whole document atomically (temporary file, fsync,
// rename), so a crash leaves the old document or the new one, never half of one. With
// STORE_ENCRYPTION_KEY the document is sealed with AES-256-GCM as the audit log's lines are.
// The `postgres` backend (src/governance/pg-store.ts) keeps the same records in PostgreSQL, shared by
// every replica. Both hold a tenant's records in memory, so reads (the analyzer asks about suppressions
// for every path of every pass) never wait; writes go through `mutate`, which applies a change to the
// stored state (not to this replica's copy) and only then to the copy.
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

/** A change to a tenant's records: the records after it, and what to tell the caller. */
export type Change<T, R> = (current: readonly T[]) => { next: readonly T[]; result: R };

/** One kind of governance record, per tenant, held in memory and written through the backend. */
export interface DocumentStore<T> {
  /** The tenant's records as this replica holds them now (never waits). */
  load(tenant: string): T[];
  /** Grows whenever `load`'s answer changed, by a write here or (postgres) on another replica. */
  version(tenant: string): number;
  /**
   * Applies `change` to the stored records and, once stored, to the copy here. With postgres the change
   * sees the records as stored (another replica's write included) and writes of one tenant and kind take
   * turns, so none is lost; a database that cannot be reached rejects with GovernanceUnavailable.
   */
  mutate<R>(tenant: string, change: Change<T, R>): Promise<{ items: T[]; result: R }>;
  /** Brings the copy up to date with the stored records (postgres: one query; file: nothing to do). */
  refresh(tenant: string): Promise<void>;
}

export interface GovernanceBackend {
  readonly name: 'file' | 'postgres';
  documents<T>(kind: GovernanceKind): DocumentStore<T>;
  /** Where a kind's records of a tenant are kept (for messages and docs). */
  locate(kind: GovernanceKind, tenant: string): string;
  /** Stops listening for other replicas' writes (postgres). */
  close(): Promise<void>;
}

/** The governance store cannot be reached: the write was not made (HTTP 503 `unavailable`). */
export class GovernanceUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GovernanceUnavailable';
  }
}

export interface FileBackendOptions {
  dataDir: string;
  /** SUPPRESSIONS_PATH, VALIDATIONS_PATH, TICKETS_PATH, HISTORY_PATH */
  paths?: Partial<Record<GovernanceKind, string>>;
  /** STORE_ENCRYPTION_KEY */
  key?: Buffer;
}

/** The file backend's store also writes a document whole (tests and tools). */
export interface FileDocumentStore<T> extends DocumentStore<T> {
  save(tenant: string, items: readonly T[]): void;
}

export interface FileBackend extends GovernanceBackend {
  readonly name: 'file';
  documents<T>(kind: GovernanceKind): FileDocumentStore<T>;
}

const DEFAULT_TENANT = 'default';

export function createFileBackend(options: FileBackendOptions): FileBackend {
  const locate = (kind: GovernanceKind, tenant: string): string => {
    const named = options.paths?.[kind];
    if (!named) return path.join(options.dataDir, 'governance', tenant, `${kind}.json`);
    if (tenant === DEFAULT_TENANT) return named;
    const ext = path.extname(named);
    return path.join(path.dirname(named), `${path.basename(named, ext)}.${tenant}${ext || '.json'}`);
  };
  const stores = new Map<GovernanceKind, FileDocumentStore<unknown>>();
  const documentsOf = <T>(kind: GovernanceKind): FileDocumentStore<T> => {
    // One process writes these files: the copy read once stays the truth, changed only by `save`.
    const held = new Map<string, T[]>();
    const versions = new Map<string, number>();
    const load = (tenant: string): T[] => {
      let items = held.get(tenant);
      if (!items) {
        items = readDocument<T>(locate(kind, tenant), options.key);
        held.set(tenant, items);
      }
      return items;
    };
    const save = (tenant: string, items: readonly T[]): void => {
      writeDocument(locate(kind, tenant), JSON.stringify(items, null, 1), options.key);
      held.set(tenant, [...items]);
      versions.set(tenant, (versions.get(tenant) ?? 0) + 1);
    };
    return {
      load,
      save,
      version: (tenant) => versions.get(tenant) ?? 0,
      async mutate(tenant, change) {
        const { next, result } = change(load(tenant));
        save(tenant, next);
        return { items: load(tenant), result };
      },
      refresh: async () => undefined,
    };
  };
  return {
    name: 'file',
    locate,
    documents<T>(kind: GovernanceKind): FileDocumentStore<T> {
      let store = stores.get(kind);
      if (!store) {
        store = documentsOf<unknown>(kind);
        stores.set(kind, store);
      }
      return store as FileDocumentStore<T>;
    },
    close: async () => undefined,
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
