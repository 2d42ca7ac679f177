// The CLI's genload, genverdicts and importverdicts against a running service on loopback (startService,
// real listeners): load is bounded and refused off loopback; a template is written from the open paths
// (the demo estate) and, filled in, imported; a wrong record is named with its value and nothing is sent.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../app/cli-commands.js';
import { startService, loadDemo, type RunningService } from '../../app/service.js';
import { loadSettings } from '../../src/config/settings.js';
import { tempDir } from '../helpers/service.js';
import { freePort } from '../helpers/nats-server.js';

let service: RunningService;
let dir: string;

beforeAll(async () => {
  dir = await tempDir('pathgate-cli-');
  const settings = loadSettings({
    DATA_DIR: path.join(dir, 'data'),
    INGEST_ADDR: '127.0.0.1:0',
    API_ADDR: '127.0.0.1:0',
    DASHBOARD_ADDR: 'off',
    ANALYZER_THREADS: '1',
    ANALYZER_INTERVAL: '200ms',
    INGEST_RATE_RPS: '1000',
    API_RATE_RPS: '1000',
  });
  service = await startService({ settings, demo: false, logger: pino({ level: 'silent' }) });
  await loadDemo(service);
  await service.engine.analyzeAll();
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...process.env, INGEST_HMAC_SECRET: '', PATHGATE_API_TOKEN: '' },
    isTTY: false,
  });
  return { code, out, err };
}

const verdicts = async () => {
  const response = await service.apiApp.inject({ method: 'GET', url: '/validations' });
  return response.json().verdicts as { pathId: string | null; outcome: string; source: string }[];
};

describe('pathgate genload', () => {
  it('sends bounded load to the loopback service, ingest and reads, and reports it', async () => {
    const before = service.engine.tenant('default')!.graph.order;
    const r = await cli(
      'genload',
      '-ingest',
      service.ingestUrl,
      '-api',
      service.apiUrl,
      '-rate',
      '20',
      '-duration',
      '1s',
      '-nodes',
      '12',
    );
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^\d+ requests in /);
    expect([r.code, r.out]).toEqual([0, r.out]);
    expect(r.out).toMatch(/ingest 202: \d+/);
    expect(r.out).toMatch(/read 200: \d+/);
    const sent = Number(/^(\d+) requests/.exec(r.out)![1]);
    expect(sent).toBeLessThanOrEqual(21); // 20 a second for one second, and the first at once
    await service.engine.drain();
    expect(service.engine.tenant('default')!.graph.order).toBeGreaterThan(before);
  });

  it('refuses a non-loopback address unless -allow-remote, and out-of-bounds values', async () => {
    const remote = await cli('genload', '-ingest', 'http://192.0.2.10:8081', '-mix', 'ingest');
    expect(remote.code).toBe(64);
    expect(remote.err).toMatch(
      /"http:\/\/192\.0\.2\.10:8081\/?" is not a loopback address; .* -allow-remote/,
    );
    expect((await cli('genload', '-rate', '5000')).err).toMatch(
      /-rate "5000" is not a whole number from 1 to 1000/,
    );
    expect((await cli('genload', '-duration', '2h')).err).toMatch(
      /-duration "2h" is not a duration from 1s to 1h/,
    );
    expect((await cli('genload', '-mix', 'write')).code).toBe(64);
  });

  it('exits 2 when the service cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await cli('genload', '-ingest', closed, '-mix', 'ingest', '-duration', '1s');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot reach the service: .*ECONNREFUSED/);
  });
});

describe('pathgate genverdicts and importverdicts', () => {
  it('writes a template of the open paths, and imports it once filled in', async () => {
    const file = path.join(dir, 'exercise.json');
    const gen = await cli('genverdicts', '-api', service.apiUrl, '-source', 'red-team-q4', '-o', file);
    expect(gen.code).toBe(0);
    const template = JSON.parse(await readFile(file, 'utf8'));
    const paths = [...service.engine.tenant('default')!.paths.all()].filter((p) => p.state === 'open');
    expect(template.source).toBe('red-team-q4');
    expect(template.results.map((r: any) => r.pathId).sort()).toEqual(paths.map((p) => p.id).sort());
    expect(template.results.every((r: any) => r.outcome === null && r.hops[0] === r.start)).toBe(true);

    // Unfilled: every record is named, with its value; nothing is sent.
    const unfilled = await cli('importverdicts', file, '-api', service.apiUrl);
    expect(unfilled.code).toBe(1);
    expect(unfilled.err).toMatch(
      /record 1 \(\/results\/0\): outcome null is not one of confirmed, refuted, partial, missed/,
    );
    expect(unfilled.err).toMatch(/nothing was sent/);
    expect(await verdicts()).toEqual([]);

    // Filled in: the first confirmed, the others refuted.
    template.results.forEach((r: any, i: number) => (r.outcome = i === 0 ? 'confirmed' : 'refuted'));
    await writeFile(file, JSON.stringify(template));
    const done = await cli('importverdicts', file, '-api', service.apiUrl);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain(`${paths.length} verdicts recorded from ${paths.length} records`);
    const stored = await verdicts();
    expect(stored).toHaveLength(paths.length);
    expect(stored.find((v) => v.pathId === template.results[0].pathId)).toMatchObject({
      outcome: 'confirmed',
      source: 'red-team-q4',
    });
  });

  it('reads NDJSON, names a bad line and its value, and keeps what is stored', async () => {
    const stored = await verdicts();
    const file = path.join(dir, 'exercise.ndjson');
    const gen = await cli(
      'genverdicts',
      '-api',
      service.apiUrl,
      '-format',
      'ndjson',
      '-outcome',
      'partial',
      '-o',
      file,
    );
    expect(gen.code).toBe(0);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    const bad = JSON.parse(lines[0]);
    bad.pathId = 'ap-nothex';
    bad.outcome = 'maybe';
    await writeFile(
      file,
      [JSON.stringify(bad), ...lines.slice(1), '{"source":"x","outcome":"missed"}'].join('\n'),
    );
    const r = await cli('importverdicts', file, '-api', service.apiUrl);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/record 1 \(line 1\): outcome "maybe" is not one of/);
    expect(r.err).toMatch(/record 1 \(line 1\): pathId "ap-nothex" is not a path id/);
    expect(r.err).toMatch(
      new RegExp(`record ${lines.length + 1} \\(line ${lines.length + 1}\\): names no path`),
    );
    expect(await verdicts()).toEqual(stored);

    // A missed route the service does not report is recorded as a miss; a path id it does not know is named.
    const other = path.join(dir, 'misses.ndjson');
    await writeFile(
      other,
      [
        '{"source":"bas","outcome":"missed","hops":["printer-7","orders-postgres"]}',
        '{"source":"bas","outcome":"confirmed","pathId":"ap-0123456789abcdef"}',
      ].join('\n'),
    );
    const partial = await cli('importverdicts', other, '-api', service.apiUrl);
    expect(partial.code).toBe(1);
    expect(partial.err).toMatch(/record 2 \(line 2\): no attack path ap-0123456789abcdef in this tenant/);
    expect(partial.out).toMatch(/1 verdicts recorded from 2 records, 1 not matched/);
    expect(await verdicts()).toHaveLength(stored.length + 1);
  });

  it('exits 2 on a file it cannot read, 3 on a service it cannot reach, 64 off loopback', async () => {
    expect((await cli('importverdicts', path.join(dir, 'nope.json'))).code).toBe(2);
    const file = path.join(dir, 'one.json');
    await writeFile(file, JSON.stringify([{ source: 's', outcome: 'missed', hops: ['a', 'b'] }]));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await cli('importverdicts', file, '-api', closed);
    expect(unreachable.code).toBe(3);
    expect(unreachable.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED/);
    const remote = await cli('importverdicts', file, '-api', 'https://pathgate.example.com');
    expect(remote.code).toBe(64);
    expect(remote.err).toMatch(/is not a loopback address; give -allow-remote/);
    expect((await cli('genverdicts', '-api', closed)).code).toBe(1);
  });
});
