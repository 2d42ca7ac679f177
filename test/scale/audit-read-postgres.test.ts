// GET /audit with the shared chain in PostgreSQL: a replica reads every replica's records (sealed under
// STORE_ENCRYPTION_KEY), newest first, with the table's verification, and names a tampered row.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import {
  describeWithServices,
  missingServices,
  schemaDsn,
  uniqueName,
  waitFor,
} from '../helpers/services.js';

const reason = await missingServices({ postgres: true });
const KEY = Buffer.alloc(32, 9).toString('hex');
const ADMIN = 'admin-token-0123456789abcdef';

describeWithServices('GET /audit on the PostgreSQL chain', reason, () => {
  let dsn = '';
  let drop: (() => Promise<void>) | undefined;
  const services: TestService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    ({ dsn, drop } = await schemaDsn('auditread'));
    const lock = uniqueName('r');
    for (const name of ['one', 'two']) {
      const dataDir = await tempDir();
      dirs.push(dataDir);
      services.push(
        await makeService(
          {
            DB_DSN: dsn,
            BUS_SUBJECT_PREFIX: lock,
            AUDIT_LOG_PATH: path.join(dataDir, `audit-${name}.log`),
            STORE_ENCRYPTION_KEY: KEY,
            API_TOKENS: `${ADMIN}:admin`,
          },
          { dataDir },
        ),
      );
    }
  });
  afterAll(async () => {
    await Promise.allSettled(services.map((s) => s.dispose()));
    await drop?.();
    await Promise.allSettled(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const audit = (service: TestService, query = '') =>
    service.apiApp.inject({
      method: 'GET',
      url: `/audit${query}`,
      headers: { authorization: `Bearer ${ADMIN}` },
    });

  it("reads another replica's records from the shared chain, verified", async () => {
    expect((await services[0].ingest(envelope([node('Service', 'from-one')]))).status).toBe(202);
    // replica one writes its records to the table as it goes (src/db/audit-chain.ts)
    const body: any = await waitFor('the ingest record in the shared chain', async () => {
      const answer = await audit(services[1], '?action=ingest.accepted');
      expect(answer.statusCode).toBe(200);
      const json = answer.json() as any;
      return json.entries.length > 0 ? json : undefined;
    });
    expect(body.backend).toBe('postgres');
    expect(body.chain).toMatchObject({ ok: true });
    expect(body.entries.length).toBeGreaterThan(0);
    expect(body.entries[0]).toMatchObject({ action: 'ingest.accepted', tenant: 'default' });
    expect(body.entries[0].target).toMatch(/^events batch /);
  });

  it('names the row an edit in the table breaks', async () => {
    const client = new pg.Client({ connectionString: dsn });
    await client.connect();
    try {
      const { rows } = await client.query<{ seq: string }>(
        'select seq from audit_chain order by seq limit 1',
      );
      await client.query("update audit_chain set hash = repeat('0', 64) where seq = $1", [rows[0].seq]);
    } finally {
      await client.end();
    }
    const body = (await audit(services[1])).json();
    expect(body.chain).toMatchObject({ ok: false, problem: expect.stringMatching(/edited/) });
  });
});
