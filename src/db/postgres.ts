// PostgreSQL for scale-out (DB_DSN, DB_SSLMODE): one pool per process, and the migrations in
// src/db/migrations applied at start, in name order, once each (a transaction-scoped advisory lock keeps
// replicas starting together from applying one twice).
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pgClientConfig } from '../engine/leadership.js';

export type Db = pg.Pool;

export function createDb(dsn: string, sslmode?: 'disable' | 'require' | 'verify-full'): Db {
  // A connection not made within 10 s fails its query (a lost route to the database answers, not hangs).
  const pool = new pg.Pool({
    ...pgClientConfig(dsn, sslmode),
    max: 4,
    application_name: 'pathgate',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** The migrations folder: beside this file in the sources, found from the package root when built. */
export function migrationsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'src', 'db', 'migrations');
    if (existsSync(path.join(dir, 'migrations'))) return path.join(dir, 'migrations');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('src/db/migrations not found');
}

/** Applies every migration not applied yet; returns the names applied now. */
export async function migrate(db: Db, dir = migrationsDir()): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const client = await db.connect();
  const applied: string[] = [];
  try {
    await client.query('begin');
    await client.query("select pg_advisory_xact_lock(hashtext('pathgate-migrations'))");
    await client.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set(
      (await client.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query(await readFile(path.join(dir, file), 'utf8'));
      await client.query('insert into schema_migrations (name) values ($1)', [file]);
      applied.push(file);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw new Error(`DB_DSN: migrations failed (${(error as Error).message})`, { cause: error });
  } finally {
    client.release();
  }
  return applied;
}
