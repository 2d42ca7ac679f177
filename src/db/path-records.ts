// Path records and gate verdicts in PostgreSQL, for scale-out: the leader writes every path lifecycle change
// (open, resolve, reopen: the whole record, route frozen) after its pass, and every gate report it records;
// followers read what is newer than the last version they read, so a follower that takes over continues
// the leader's lifecycle (first_seen kept, no reopen counted twice) and knows the verdicts already given.
import type { QueryConfig } from 'pg';
import type { Db } from './postgres.js';

/** A statement the analyzer waits on: a database that does not answer fails it, and it is tried again. */
const TIMEOUT_MS = 30_000;

/** A row as read back: the tenant, the record or entry, and its version (the reader's cursor). */
export interface SharedRow<T> {
  tenant: string;
  value: T;
  version: number;
}

/** What the engine needs (src/engine/engine.ts `sharedPaths`). */
export interface SharedPaths {
  writePaths(tenant: string, records: readonly object[]): Promise<void>;
  pathsSince(version: number, limit: number): Promise<SharedRow<object>[]>;
  writeReports(
    entries: readonly { tenant: string; sha: string; key: string; decidedAt: string }[],
  ): Promise<void>;
  reportsSince(version: number, limit: number): Promise<SharedRow<object>[]>;
}

/** Rows per statement: one pass may change a hundred thousand paths. */
const CHUNK = 500;

export class PathRecordTable implements SharedPaths {
  constructor(private readonly db: Db) {}

  async writePaths(tenant: string, records: readonly object[]): Promise<void> {
    for (let i = 0; i < records.length; i += CHUNK) {
      await this.db.query({
        text: `insert into path_records (tenant, id, state, first_seen, reopens, record, version)
         select $1, r->>'id', r->>'state', (r->>'firstSeen')::bigint, (r->>'reopens')::integer, r,
                nextval('path_records_version')
         from jsonb_array_elements($2::jsonb) as r
         on conflict (tenant, id) do update set state = excluded.state, first_seen = excluded.first_seen,
           reopens = excluded.reopens, record = excluded.record, version = excluded.version`,
        values: [tenant, JSON.stringify(records.slice(i, i + CHUNK))],
        query_timeout: TIMEOUT_MS,
      } as QueryConfig);
    }
  }

  async pathsSince(version: number, limit: number): Promise<SharedRow<object>[]> {
    const { rows } = await this.db.query<{ tenant: string; record: object; version: string }>({
      text: 'select tenant, record, version from path_records where version > $1 order by version limit $2',
      values: [version, limit],
      query_timeout: TIMEOUT_MS,
    } as QueryConfig);
    return rows.map((r) => ({ tenant: r.tenant, value: r.record, version: Number(r.version) }));
  }

  async writeReports(
    entries: readonly { tenant: string; sha: string; key: string; decidedAt: string }[],
  ): Promise<void> {
    for (let i = 0; i < entries.length; i += CHUNK) {
      await this.db.query({
        text: `insert into gate_reports (tenant, sha, key, decided_at, entry, version)
         select e->>'tenant', e->>'sha', e->>'key', e->>'decidedAt', e, nextval('gate_reports_version')
         from jsonb_array_elements($1::jsonb) as e
         on conflict do nothing`,
        values: [JSON.stringify(entries.slice(i, i + CHUNK))],
        query_timeout: TIMEOUT_MS,
      } as QueryConfig);
    }
  }

  async reportsSince(version: number, limit: number): Promise<SharedRow<object>[]> {
    const { rows } = await this.db.query<{ tenant: string; entry: object; version: string }>({
      text: 'select tenant, entry, version from gate_reports where version > $1 order by version limit $2',
      values: [version, limit],
      query_timeout: TIMEOUT_MS,
    } as QueryConfig);
    return rows.map((r) => ({ tenant: r.tenant, value: r.entry, version: Number(r.version) }));
  }
}
