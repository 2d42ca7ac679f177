// The audit log through the listeners: requests, refusals, lockouts and the paths each principal was
// shown, with request ids; an exfiltration alert; and `pathgate verify-audit` on an intact and a tampered log.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));
const TOKEN = 'audit-viewer-token-0123456789';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

async function verify(file: string, env: Record<string, string> = {}) {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, 'verify-audit', file], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

it('records requests, refusals and viewed paths, alerts on unusual reads, and verify-audit checks the chain', async () => {
  const file = path.join(await tempDir('pathgate-audit-app-'), 'audit.log');
  service = await makeService({
    API_TOKENS: `${TOKEN}:viewer`,
    AUDIT_LOG_PATH: file,
    EXFIL_ALERT_THRESHOLD: '1',
    INGEST_HMAC_SECRET: 'audit-ingest-secret',
  });
  const s = service;
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const web = node('Service', 'web');
  const db = node('Database', 'orders', { crown_jewel: true });
  const bucket = node('Bucket', 'exports', { crown_jewel: true });
  await s.engine.ingest({
    tenant: 'default',
    source: 'events',
    body: envelope(
      [lb, web, db, bucket],
      [
        edge('ROUTES_TO', lb, web, 0.5),
        edge('CONNECTS_TO', web, db, 0.5),
        edge('CONNECTS_TO', web, bucket, 0.5),
      ],
    ),
    query: {},
  });
  await s.settle();
  const graphql = (token?: string) =>
    s.apiApp.inject({
      method: 'POST',
      url: '/graphql',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'req-42',
        ...(token && { authorization: `Bearer ${token}` }),
      },
      payload: JSON.stringify({ query: '{ attackPaths { id } }' }),
    });
  expect((await graphql()).statusCode).toBe(401);
  const shown = await graphql(TOKEN);
  const ids = shown.json().data.attackPaths.map((p: { id: string }) => p.id);
  expect(ids).toHaveLength(2);
  expect(
    (
      await s.ingestApp.inject({
        method: 'POST',
        url: '/ingest/events',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      })
    ).statusCode,
  ).toBe(401);

  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const events = records.map((r) => r.event);
  expect(events).toEqual([
    'auth.deny',
    'request',
    'view.attack_paths',
    'exfil.alert',
    'request',
    'auth.deny',
  ]);
  expect(records[0]).toMatchObject({
    subject: 'unauthenticated',
    fields: { request_id: 'req-42', reason: 'missing', surface: 'api' },
  });
  expect(records[1].fields).toMatchObject({ request_id: 'req-42', status: 401, path: '/graphql' });
  expect(records[2]).toMatchObject({
    subject: expect.stringMatching(/^token:/),
    tenant: 'default',
    fields: { request_id: 'req-42', path_ids: ids },
  });
  expect(records[3]).toMatchObject({ event: 'exfil.alert', fields: { threshold: 1 } });
  expect(records[5].fields).toMatchObject({ surface: 'ingest', reason: 'missing' });
  expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);

  const intact = await verify(file);
  expect(intact).toEqual({ code: 0, stdout: 'audit log intact: 6 records\n' });
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[2] = lines[2].replace('"path_ids":[', '"path_ids":["ap-0000000000000000",');
  writeFileSync(file, lines.join('\n'));
  const broken = await verify(file);
  expect(broken.code).toBe(1);
  expect(broken.stdout).toMatch(
    /broken at line 3 \(record 3\): hash does not match its contents \(edited\); 2 records before it are intact/,
  );
});

it('never writes a secret to the log, the audit log or an answer', async () => {
  const dir = await tempDir('pathgate-secrets-');
  const secrets = {
    API_TOKENS: 'secret-api-token-5f0e8d2c41:admin,sha256$' + 'ab'.repeat(32) + ':viewer',
    INGEST_HMAC_SECRET: 'secret-hmac-7c1d9e',
    INGEST_HMAC_SECRETS: 'acme:secret-acme-hmac-3b8f',
    STORE_ENCRYPTION_KEY: 'cd'.repeat(32),
  };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      lines.push(String(chunk));
      done();
    },
  });
  service = await makeService(
    { ...secrets, AUDIT_LOG_PATH: path.join(dir, 'audit.log'), AUTH_LOCKOUT_THRESHOLD: '2' },
    { logger: pino({ level: 'debug' }, sink) },
  );
  const answers: string[] = [];
  const call = async (app: 'api' | 'ingest', url: string, headers: Record<string, string>) => {
    const target = app === 'api' ? service!.apiApp : service!.ingestApp;
    const r = await target.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: '{}',
    });
    answers.push(r.body, JSON.stringify(r.headers));
  };
  await call('api', '/graphql', { authorization: 'Bearer secret-api-token-5f0e8d2c41' });
  await call('api', '/graphql', { authorization: 'Bearer secret-api-token-5f0e8d2c41-wrong' });
  await call('ingest', '/ingest/events', { 'x-service-signature': 'sha256=secret-hmac-7c1d9e' });
  await call('ingest', '/ingest/events', { 'x-tenant': 'acme', 'x-service-signature': 'sha256=00' });
  await call('api', '/graphql', { authorization: 'Bearer secret-api-token-5f0e8d2c41' });
  const everything = [...lines, ...answers, readFileSync(path.join(dir, 'audit.log'), 'utf8')].join('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const secret of [
    'secret-api-token-5f0e8d2c41',
    'secret-hmac-7c1d9e',
    'secret-acme-hmac-3b8f',
    'cd'.repeat(32),
  ])
    expect(everything).not.toContain(secret);
});
