// The audit chain two replicas share in PostgreSQL: records from both land in one unbroken chain (their
// own files keep theirs too), `pathgate verify-audit -postgres` finds it intact, and names the record an
// edit or a removal in the table breaks.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { verifyAuditFile } from '../../src/audit/verify.js';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import { describeWithServices, missingServices, schemaDsn, uniqueName } from '../helpers/services.js';

const reason = await missingServices({ postgres: true });
const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));
const KEY = Buffer.alloc(32, 7).toString('hex');

async function verifyPostgres(dsn: string, env: Record<string, string> = {}) {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, 'verify-audit', '-postgres'], {
      env: { ...process.env, DB_DSN: dsn, ...env },
    });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout + e.stderr };
  }
}

describeWithServices('the audit chain in PostgreSQL', reason, () => {
  let dsn = '';
  let drop: (() => Promise<void>) | undefined;
  const services: TestService[] = [];
  const dirs: string[] = [];
  const db = () => new pg.Client({ connectionString: dsn });
  beforeAll(async () => {
    ({ dsn, drop } = await schemaDsn('audit'));
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await drop?.();
    await Promise.allSettled(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('holds one chain for two replicas; verify-audit -postgres checks it and names a tampered record', async () => {
    const lock = uniqueName('a');
    const files: string[] = [];
    for (const name of ['one', 'two']) {
      const dataDir = await tempDir();
      dirs.push(dataDir);
      files.push(path.join(dataDir, `audit-${name}.log`));
      const service = await makeService(
        { DB_DSN: dsn, BUS_SUBJECT_PREFIX: lock, AUDIT_LOG_PATH: files.at(-1)!, STORE_ENCRYPTION_KEY: KEY },
        { dataDir },
      );
      services.push(service);
    }
    // Ingests on both replicas at once: every one audited, in one chain.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => services[i % 2].ingest(envelope([node('Service', `svc-${i}`)]))),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    // Closing flushes each replica's queued records to PostgreSQL; their files stay for the check below.
    await Promise.all(services.map((s) => s.dispose({ keepData: true })));
    services.length = 0;

    const client = db();
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>('select count(*) as n from audit_chain');
      const records = Number(rows[0].n);
      expect(records).toBeGreaterThanOrEqual(20);
      const intact = await verifyPostgres(dsn, { STORE_ENCRYPTION_KEY: KEY });
      expect(intact).toEqual({ code: 0, stdout: `audit log intact: ${records} records\n` });
      // Each replica's own file is a chain too, and the two together hold what the shared one holds.
      const own = files.map((file) => verifyAuditFile(file, Buffer.from(KEY, 'hex')));
      expect(own.every((v) => v.ok)).toBe(true);
      expect(own.reduce((n, v) => n + v.records, 0)).toBe(records);
      // Sealed: without the key it says so.
      expect((await verifyPostgres(dsn)).stdout).toMatch(/record 1\): the record is encrypted/);
      // A removed record breaks the chain at the one after it.
      await client.query('delete from audit_chain where seq = 5');
      expect(await verifyPostgres(dsn, { STORE_ENCRYPTION_KEY: KEY })).toEqual({
        code: 1,
        stdout:
          'audit log broken at line 5 (record 6): sequence 6, expected 5; 4 records before it are intact\n',
      });
    } finally {
      await client.end();
    }
    // Without DB_DSN, -postgres is refused with the reason.
    const refused = await verifyPostgres('');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/-postgres needs DB_DSN/);
  });
});

describeWithServices('the audit chain in PostgreSQL: the database backend, retention', reason, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  async function rows(dsn: string, sql: string): Promise<Record<string, unknown>[]> {
    const client = new pg.Client({ connectionString: dsn });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it('audits with GOVERNANCE_BACKEND=postgres alone (no AUDIT_LOG_PATH); DB_DSN alone audits nothing', async () => {
    const withBackend = await schemaDsn('auditdb');
    cleanups.push(withBackend.drop);
    const service = await makeService({ DB_DSN: withBackend.dsn, GOVERNANCE_BACKEND: 'postgres' });
    expect((await service.ingest(envelope([node('Service', 'svc-db-audit')]))).status).toBe(202);
    await service.apiApp.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ attackPaths { id } }' },
    });
    await service.dispose();
    const audited = await rows(withBackend.dsn, 'select count(*)::int as n from audit_chain');
    expect(audited[0].n).toBeGreaterThanOrEqual(2);
    expect(await verifyPostgres(withBackend.dsn)).toEqual({
      code: 0,
      stdout: `audit log intact: ${audited[0].n} records\n`,
    });
    // The negative twin: DB_DSN with the file governance backend and no AUDIT_LOG_PATH keeps no audit chain.
    const without = await schemaDsn('auditnone');
    cleanups.push(without.drop);
    const plain = await makeService({ DB_DSN: without.dsn });
    expect((await plain.ingest(envelope([node('Service', 'svc-no-audit')]))).status).toBe(202);
    await plain.dispose();
    expect((await rows(without.dsn, 'select count(*)::int as n from audit_chain'))[0].n).toBe(0);
  });

  it('AUDIT_RETENTION prunes the database chain behind an anchor it stays verifiable from', async () => {
    const { dsn, drop } = await schemaDsn('auditret');
    cleanups.push(drop);
    const HOUR = 3_600_000;
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const env = { DB_DSN: dsn, GOVERNANCE_BACKEND: 'postgres' };
    const first = await makeService(env, { now: () => clock });
    for (let i = 0; i < 3; i++) await first.ingest(envelope([node('Service', `old-${i}`)]));
    await first.dispose();
    const old = (await rows(dsn, 'select max(seq)::int as seq from audit_chain'))[0].seq as number;
    expect(old).toBeGreaterThanOrEqual(3);
    clock += 48 * HOUR;
    const second = await makeService({ ...env, AUDIT_RETENTION: '24h' }, { now: () => clock });
    try {
      await vi.waitFor(
        async () => {
          const metrics = await second.apiApp.inject({ method: 'GET', url: '/metrics' });
          expect(metrics.body).toContain(`service_audit_pruned_records_total ${old}`);
        },
        { timeout: 10_000, interval: 100 },
      );
      await second.ingest(envelope([node('Service', 'new-0')]));
    } finally {
      await second.dispose();
    }
    const anchor = await rows(dsn, 'select seq::int as seq, pruned_total::int as total from audit_anchor');
    expect(anchor).toEqual([{ seq: old, total: old }]);
    expect((await rows(dsn, 'select min(seq)::int as seq from audit_chain'))[0].seq).toBe(old + 1);
    const pruneRecord = await rows(dsn, "select line from audit_chain where line like '%audit.pruned%'");
    expect(pruneRecord).toHaveLength(1);
    const intact = await verifyPostgres(dsn);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(
      new RegExp(`^audit log intact: \\d+ records \\(pruned through record ${old} by AUDIT_RETENTION\\)\\n$`),
    );
    // A record removed right after the anchor is still caught.
    await rows(dsn, `delete from audit_chain where seq = ${old + 1}`);
    const broken = await verifyPostgres(dsn);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/sequence \d+, expected \d+/);
  });
});
