// `pathgate gate` in both modes: -local (the estate from a folder of reports, no server) and -api (a
// listening server, token from PATHGATE_API_TOKEN); exit codes, text and JSON output, -flag/--flag.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateCommand } from '../../app/gate-cli.js';
import { edge, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));
const TOKEN = 'gate-cli-token-0123456789';

let dir: string;
let files: { estate: string; blocked: string; same: string; unknown: string };
beforeAll(async () => {
  dir = await tempDir('pathgate-gate-cli-');
  await mkdir(path.join(dir, 'estate'));
  await writeFile(path.join(dir, 'estate', 'scan.json'), JSON.stringify(trivyReport([LOW_CVE])));
  await writeFile(path.join(dir, 'estate', 'estate.json'), JSON.stringify(gateEstate()));
  files = {
    estate: path.join(dir, 'estate'),
    blocked: path.join(dir, 'pr-blocked.json'),
    same: path.join(dir, 'pr-same.json'),
    unknown: path.join(dir, 'pr-unknown.json'),
  };
  await writeFile(files.blocked, JSON.stringify(trivyReport([LOW_CVE, KEV_CVE])));
  await writeFile(files.same, JSON.stringify(trivyReport([LOW_CVE])));
  await writeFile(files.unknown, JSON.stringify(trivyReport([KEV_CVE], 'ghcr.io/acme/other:2.0')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function gate(args: string[], isTTY = false) {
  let out = '';
  let err = '';
  const code = await gateCommand(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY });
  return { code, out, err };
}

describe('pathgate gate -local', () => {
  it('builds the estate from a folder and blocks a report that adds a known-exploited CVE', async () => {
    const blocked = await gate(['-local', files.estate, '-report', files.blocked, '-json']);
    expect(blocked.code).toBe(1);
    const answer = JSON.parse(blocked.out);
    expect(answer).toMatchObject({ verdict: 'blocked' });
    expect(answer.worsened[0].nodes.map((n: { name: string }) => n.name)).toEqual([
      'shop-alb',
      'checkout',
      'orders',
    ]);
  });

  it('prints a table on a terminal', async () => {
    const text = await gate(['--local', files.estate, '--report', files.blocked], true);
    expect(text.out).toMatch(/^verdict: BLOCKED \(report\)/);
    expect(text.out).toMatch(/!\s+worsened\s+P1\s+0\.\d+ → 0\.\d+\s+shop-alb → checkout → orders/);
    expect(text.out).toMatch(/fix: upgrade log4j-core to 2\.15\.0/);
  });

  it('exits 0 for clean, 2 for unknown, 0 for unknown with -allow-unknown, 3 when it cannot run', async () => {
    expect((await gate(['-local', files.estate, '-report', files.same])).code).toBe(0);
    expect((await gate(['-local', files.estate, '-report', files.unknown])).code).toBe(2);
    expect((await gate(['-local', files.estate, '-report', files.unknown, '-allow-unknown'])).code).toBe(0);
    const missing = await gate(['-local', files.estate, '-report', path.join(dir, 'nope.json')]);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/cannot read .*nope\.json: ENOENT/);
    expect(
      (await gate(['-local', files.estate, '-api', 'http://127.0.0.1:1', '-report', files.same])).code,
    ).toBe(64);
    const unreachable = await gate(['-api', 'http://127.0.0.1:1', '-report', files.same]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1\S*: fetch failed: \S/);
    // A command line the gate cannot take is a usage error (64), never a verdict's code.
    const usage = await gate(['-report', files.same, '-attribution', 'blame']);
    expect(usage.code).toBe(64);
    expect(usage.err).toContain('-attribution must be report or commit, not "blame"');
    const nowhere = await gate(['-local', path.join(dir, 'nowhere'), '-report', files.same]);
    expect(nowhere.code).toBe(3);
    expect(nowhere.err).toContain(`-local ${path.join(dir, 'nowhere')}: no such folder`);
  });
});

describe('pathgate gate output and exit codes', () => {
  it('on unknown prints what it read and what would join it, and writes no SARIF log', async () => {
    const sarif = path.join(dir, 'unknown.sarif');
    const r = await gate(['-local', files.estate, '-report', files.unknown, '-sarif', sarif], true);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/not joined: image acme\/other:2\.0: no image the estate runs/);
    expect(r.out).toMatch(/to join it: record where the running image comes from: POST \/ingest\/build/);
    expect(r.err).toMatch(/no SARIF log written to .*unknown\.sarif: the verdict is unknown/);
    expect(existsSync(sarif)).toBe(false);
  });

  it('refuses a misspelt -source (exit 3) or an -api that is no URL (usage, 64), naming the value and the cause', async () => {
    const misspelt = await gate(['-api', 'http://127.0.0.1:1', '-report', files.same, '-source', 'trivyy']);
    expect(misspelt.code).toBe(3);
    expect(misspelt.err).toMatch(/source "trivyy" is not one the gate reads; use one of events, trivy/);
    const local = await gate(['-local', files.estate, '-report', files.same, '-source', 'trivyy']);
    expect(local.code).toBe(3);
    expect(local.err).toMatch(/"trivyy" is not one the gate reads/);
    // A malformed -api is a command line the gate cannot take: the usage code (64, docs/cli.md), never a verdict.
    const url = await gate(['-api', 'localhost:8080', '-report', files.same]);
    expect(url.code).toBe(64);
    expect(url.err).toMatch(/-api "localhost:8080" is not a URL \(like http:\/\/127\.0\.0\.1:8080\)/);
    const down = await gate(['-api', 'http://127.0.0.1:1', '-report', files.same]);
    expect(down.code).toBe(3);
    // fetch refuses port 1 outright and said only "fetch failed": the cause is named now.
    expect(down.err).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1\/gate\/impact: (fetch failed: )?bad port/);
  });

  it('answers unknown (exit 2) for a report that is not JSON, naming why', async () => {
    const broken = path.join(dir, 'pr-broken.json');
    await writeFile(broken, '{"SchemaVersion": 2, "Results": [');
    const answer = await gate(['-local', files.estate, '-report', broken, '-json']);
    expect(answer.code).toBe(2);
    expect(JSON.parse(answer.out)).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/^the report could not be read: not JSON/),
      errors: [expect.objectContaining({ pointer: '/' })],
    });
  });

  it('writes the whole answer to a pipe before exiting (a 1 MB answer through head and JSON.parse)', async () => {
    // 1,500 crown-jewel databases behind the workload: a known-exploited CVE worsens 1,500 routes.
    const big = path.join(dir, 'big-estate');
    await mkdir(big, { recursive: true });
    const estate = gateEstate();
    const web = estate.nodes.find((n) => n.label === 'Service')!;
    for (let i = 0; i < 1500; i++) {
      const db = node('Database', `orders-replica-${String(i).padStart(4, '0')}`, { crown_jewel: true });
      estate.nodes.push(db);
      estate.edges.push(edge('HAS_PERMISSION', web, db, 0.9));
    }
    await writeFile(path.join(big, 'estate.json'), JSON.stringify(estate));
    await writeFile(path.join(big, 'scan.json'), JSON.stringify(trivyReport([LOW_CVE])));
    const command = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(cli)} gate -local ${JSON.stringify(big)} -report ${JSON.stringify(files.blocked)} -json | head -c 100000000 | ${JSON.stringify(process.execPath)} -e 'let t="";process.stdin.on("data",(c)=>t+=c).on("end",()=>{const a=JSON.parse(t);console.log(t.length, a.verdict, a.worsened.length)})'`;
    const { stdout } = await run('sh', ['-c', command], { maxBuffer: 1 << 26 });
    const [bytes, verdict, worsened] = stdout.trim().split(' ');
    expect(Number(bytes)).toBeGreaterThan(1_000_000);
    expect(verdict).toBe('blocked');
    expect(Number(worsened)).toBeGreaterThanOrEqual(1500);
  }, 120_000);
});

describe('pathgate gate -api', () => {
  let service: TestService;
  let apiUrl: string;
  beforeAll(async () => {
    service = await makeService({ API_TOKENS: `${TOKEN}:viewer` });
    apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
    await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' });
    await service.ingest(gateEstate());
    await service.settle();
  });
  afterAll(async () => {
    await service.dispose();
  });

  it('asks a running server with the token from PATHGATE_API_TOKEN, as a separate process would', async () => {
    const ask = async (report: string, token: string, ...more: string[]) => {
      try {
        const { stdout } = await run(
          process.execPath,
          ['--import', 'tsx', cli, 'gate', '-api', apiUrl, '-report', report, ...more],
          {
            env: { ...process.env, PATHGATE_API_TOKEN: token },
          },
        );
        return { code: 0, stdout, stderr: '' };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };
    const blocked = await ask(
      files.blocked,
      TOKEN,
      '--slug',
      'acme/checkout',
      '--sha',
      'a1b2c3d4e5f6',
      '--pr',
      '7',
    );
    expect(blocked.code).toBe(1);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ verdict: 'blocked', commit: 'a1b2c3d4e5f6' });
    expect((await ask(files.same, TOKEN)).code).toBe(0);
    const refused = await ask(files.same, 'wrong-token-wrong-token');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/answered 401/);
  });
});

describe('the Trivy output plugin', () => {
  it('takes the report on stdin and exits with the gate’s code', async () => {
    const script = fileURLToPath(new URL('../../trivy-plugin/pathgate-trivy.sh', import.meta.url));
    const plugin = (report: string) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = execFile(
          'sh',
          [script, '-local', files.estate, '-json'],
          {
            env: { ...process.env, PATHGATE: `${process.execPath} --import tsx ${cli}` },
          },
          (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
        );
        child.stdin!.end(readFileSync(report));
      });
    const blocked = await plugin(files.blocked);
    expect(blocked.code).toBe(1);
    expect(JSON.parse(blocked.stdout).verdict).toBe('blocked');
    expect((await plugin(files.same)).code).toBe(0);
  });
});
