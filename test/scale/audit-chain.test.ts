// The audit chain two replicas share in PostgreSQL: records from both land in one unbroken chain (their
// own files keep theirs too), `pathgate verify-audit -postgres` finds it intact, and names the record an
// edit or a removal in the table breaks.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
