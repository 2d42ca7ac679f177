// The bundled Action (dist/index.js) run as GitHub runs it: INPUT_* variables, GITHUB_EVENT_PATH pointing
// at a real pull_request payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; against a loopback server.
// Checks exit codes, outputs, the summary (with a Mermaid diagram per route), the annotations, the SARIF
// file, and what the server was told. PATHGATE_ACTION_SOURCE=1 runs app/action/index.ts through tsx instead
// of the bundle (before `npm run build:action` has caught up with the source).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { edge, envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = process.env.PATHGATE_ACTION_SOURCE
  ? ['--import', 'tsx', path.join(root, 'app', 'action', 'index.ts')]
  : [path.join(root, 'dist', 'index.js')];
const schema = JSON.parse(
  readFileSync(path.join(root, 'test', 'app', 'fixtures', 'sarif-schema-2.1.0.json'), 'utf8'),
);
const ajv = new Ajv({ strict: false });
(addFormats as unknown as (a: Ajv) => Ajv)(ajv);
const validateSarif = ajv.compile(schema);
const payloads = path.resolve(root, '../shared/fixtures/real/github');
const event = path.join(payloads, 'pull_request.opened.payload.json');
const TOKEN = 'action-test-token-0123456789';

let service: TestService;
let apiUrl: string;
let dir: string;
beforeAll(async () => {
  dir = await tempDir('pathgate-action-');
  // The Action's token records the commit's verdict (the PR's comment and status): an operator's.
  service = await makeService({ API_TOKENS: `${TOKEN}:operator` });
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy' });
  await service.ingest(gateEstate());
  await service.settle();
});
afterAll(async () => {
  await service.dispose();
});

/** Runs the bundle with the environment a GitHub runner gives an action step. */
async function runAction(
  report: unknown,
  inputs: Record<string, string> = {},
  options: { event?: string; noReport?: boolean } = {},
) {
  const name = `run-${Math.random().toString(36).slice(2)}`;
  const reportFile = path.join(dir, `${name}-report.json`);
  const output = path.join(dir, `${name}-output`);
  const summary = path.join(dir, `${name}-summary.md`);
  if (!options.noReport)
    writeFileSync(reportFile, typeof report === 'string' ? report : JSON.stringify(report));
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: options.event ?? event,
    GITHUB_REPOSITORY: 'Codertocat/Hello-World',
    GITHUB_SHA: '0000000000000000000000000000000000000000',
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_WORKSPACE: dir,
    'INPUT_API-URL': apiUrl,
    'INPUT_API-TOKEN': TOKEN,
    INPUT_REPORT: reportFile,
    'INPUT_ALLOW-UNKNOWN': 'false',
    // action.yml's default, which the runner passes as it passes every input
    INPUT_SARIF: 'pathgate.sarif',
  };
  for (const [key, value] of Object.entries(inputs)) env[`INPUT_${key.toUpperCase()}`] = value;
  const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, entry, { env: { ...env, NODE_OPTIONS: '' } }, (error, stdout) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
  // GITHUB_OUTPUT holds `name<<delimiter\nvalue\ndelimiter` blocks.
  const outputs: Record<string, string> = {};
  const text = readFileSync(output, 'utf8');
  for (const m of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1]] = m[3];
  return { ...result, outputs, summary: readFileSync(summary, 'utf8') };
}

describe('the bundled Action', () => {
  it('reads a report written as YAML as `pathgate gate` does: the same verdict as its JSON', async () => {
    const r = await runAction(stringify(trivyReport([LOW_CVE, KEV_CVE])), { source: 'trivy' });
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: 'blocked', worsened: '1' });
  });

  it('blocks a PR that adds a known-exploited CVE: exit 1, outputs, summary and an annotation', async () => {
    const r = await runAction(trivyReport([LOW_CVE, KEV_CVE]), { source: 'trivy' });
    expect(r.code, r.stdout).toBe(1);
    expect(r.outputs).toEqual({
      verdict: 'blocked',
      reason: expect.stringMatching(/1 critical route opened or made likelier/),
      opened: '0',
      worsened: '1',
      exposed: '0',
      preexisting: '0',
      unjoined: '0',
      sarif: path.join(dir, 'pathgate.sarif'),
      'exit-code': '1',
    });
    expect(r.summary).toMatch(/### ⛔ pathgate: blocked/);
    expect(r.summary).toMatch(
      /\| ⛔ \| worsened \| P1 \| .* \| shop-alb → checkout → orders \| upgrade log4j-core to 2\.15\.0/,
    );
    // The route as a diagram GitHub renders, the repriced hop highlighted.
    expect(r.summary).toMatch(
      /```mermaid\nflowchart LR\n {2}n0\["shop-alb<br\/><small>LoadBalancer<\/small>"\]/,
    );
    expect(r.summary).toMatch(
      /n0 -->\|"ROUTES_TO 0\.77 \(was 0\.\d\d\)"\| n1\n[\s\S]*linkStyle 0 stroke:#d73a49/,
    );
    // The SARIF file for github/codeql-action/upload-sarif.
    const sarif = JSON.parse(readFileSync(r.outputs.sarif, 'utf8'));
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(sarif.runs[0].results[0]).toMatchObject({
      ruleId: 'pathgate/attack-path-worsened',
      level: 'error',
    });
    expect(r.stdout).toMatch(
      /::error title=pathgate%3A critical attack path::shop-alb → checkout → orders \(score 0\.689, P1\): upgrade/,
    );
    // The server was told the PR from the event payload.
    const verdict = service.engine.prVerdict('default', 'ec26c3e57ca3a959ca5aad62de7213c562f8c821');
    expect(verdict).toMatchObject({ verdict: 'blocked', slug: 'Codertocat/Hello-World', pr: 2 });
    // The token is handed to the runner's masking, and appears nowhere else.
    expect(r.stdout.split(TOKEN)).toHaveLength(2);
    expect(r.stdout).toContain(`::add-mask::${TOKEN}`);
  });

  it('passes a PR that changes nothing: exit 0', async () => {
    const r = await runAction(trivyReport([LOW_CVE]));
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ verdict: 'clean', preexisting: '1', 'exit-code': '0' });
    expect(r.summary).toMatch(/✅ pathgate: clean/);
  });

  it('exits 2 on unknown, 0 with allow-unknown, 3 when the server refuses', async () => {
    const unknown = await runAction(trivyReport([KEV_CVE], 'ghcr.io/acme/other:2.0'));
    expect(unknown.code).toBe(2);
    expect(unknown.outputs.verdict).toBe('unknown');
    const allowed = await runAction(trivyReport([KEV_CVE], 'ghcr.io/acme/other:2.0'), {
      'allow-unknown': 'true',
    });
    expect(allowed.code).toBe(0);
    const refused = await runAction(trivyReport([LOW_CVE]), { 'api-token': 'wrong-token-wrong-token' });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/::error::pathgate: .*answered 401/);
    // A report that is not JSON is one the gate cannot read: unknown (exit 2), not a failure to ask (3).
    const broken = await runAction('{"SchemaVersion": 2, "Results": [');
    expect(broken.code).toBe(2);
    expect(broken.outputs.verdict).toBe('unknown');
    expect(broken.stdout).toMatch(/::error::pathgate: unknown: the report could not be read: not JSON/);
  });
});

/** Every output action.yml declares: the Action sets each on every exit. */
const OUTPUTS = [
  'verdict',
  'reason',
  'opened',
  'worsened',
  'exposed',
  'preexisting',
  'unjoined',
  'sarif',
  'exit-code',
];
const allOutputs = (outputs: Record<string, string>) =>
  expect(Object.keys(outputs).sort()).toEqual([...OUTPUTS].sort());

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the Action on every exit (issue 32: a safe, actionable unknown)', () => {
  const sarifFile = () => path.join(dir, 'pathgate.sarif');

  it('declares in action.yml exactly the outputs it sets', () => {
    const yml = readFileSync(path.join(root, 'action.yml'), 'utf8');
    const declared = [
      ...yml
        .split(/^outputs:$/m)[1]
        .split(/^runs:$/m)[0]
        .matchAll(/^ {2}([\w-]+):$/gm),
    ].map((m) => m[1]);
    expect(declared.sort()).toEqual([...OUTPUTS].sort());
  });

  it('blocked → 1, clean → 0, on the synchronize and organization payloads too, every output set', async () => {
    for (const payload of [
      'pull_request.synchronize.payload.json',
      'pull_request.opened.with-organization.payload.json',
    ]) {
      const blocked = await runAction(
        trivyReport([LOW_CVE, KEV_CVE]),
        { source: 'trivy' },
        { event: path.join(payloads, payload) },
      );
      expect(blocked.code, blocked.stdout).toBe(1);
      allOutputs(blocked.outputs);
      expect(blocked.outputs).toMatchObject({ verdict: 'blocked', 'exit-code': '1', sarif: sarifFile() });
      const clean = await runAction(trivyReport([LOW_CVE]), {}, { event: path.join(payloads, payload) });
      expect(clean.code, clean.stdout).toBe(0);
      allOutputs(clean.outputs);
      expect(clean.outputs).toMatchObject({
        verdict: 'clean',
        'exit-code': '0',
        preexisting: '1',
        sarif: sarifFile(),
      });
      // A clean analysis may close alerts: its log has no result.
      expect(JSON.parse(readFileSync(sarifFile(), 'utf8')).runs[0].results).toEqual([]);
    }
  });

  it('unknown → 2 (0 with allow-unknown): no SARIF log, and it names what it read and what would join it', async () => {
    rmSync(sarifFile(), { force: true });
    const unknown = await runAction(trivyReport([KEV_CVE], 'ghcr.io/acme/other:2.0'));
    expect(unknown.code, unknown.stdout).toBe(2);
    allOutputs(unknown.outputs);
    expect(unknown.outputs).toMatchObject({ verdict: 'unknown', 'exit-code': '2', sarif: '', unjoined: '1' });
    // No log that an upload would read as a clean analysis (closing every open alert).
    expect(existsSync(sarifFile())).toBe(false);
    expect(unknown.stdout).toMatch(
      /::error::pathgate: unknown: the report names nothing the estate holds \(image acme\/other:2\.0\)/,
    );
    expect(unknown.stdout).toMatch(
      /not joined: image acme\/other:2\.0: no image the estate runs has its digest, tag or bare name/,
    );
    expect(unknown.stdout).toMatch(
      /to join it: record where the running image comes from: POST \/ingest\/build/,
    );
    expect(unknown.summary).toMatch(/not joined: image acme\/other:2\.0/);
    const allowed = await runAction(trivyReport([KEV_CVE], 'ghcr.io/acme/other:2.0'), {
      'allow-unknown': 'true',
    });
    expect(allowed.code, allowed.stdout).toBe(0);
    allOutputs(allowed.outputs);
    expect(allowed.outputs).toMatchObject({ verdict: 'unknown', 'exit-code': '0', sarif: '' });
    expect(existsSync(sarifFile())).toBe(false);
    expect(allowed.stdout).toMatch(/::warning::pathgate: unknown \(allowed by allow-unknown\)/);
  });

  it('a misconfigured step → 3 whatever allow-unknown says, naming the value, every output set', async () => {
    rmSync(sarifFile(), { force: true });
    const cases: [string, Record<string, string>, { noReport?: boolean }, RegExp][] = [
      [
        'a misspelt source',
        { source: 'trivyy' },
        {},
        /source "trivyy" is not one the gate reads; use one of events, trivy, grype, .*terraform/,
      ],
      [
        'a missing report',
        {},
        { noReport: true },
        /the report ".*-report\.json" cannot be read \(ENOENT: no such file/,
      ],
      [
        'an api-url that is no URL',
        { 'api-url': 'pathgate.example.com' },
        {},
        /api-url "pathgate\.example\.com" is not a URL/,
      ],
      [
        'an api-url of another scheme',
        { 'api-url': 'ftp://127.0.0.1/' },
        {},
        /api-url "ftp:\/\/127\.0\.0\.1\/" is not an http\(s\) URL/,
      ],
      [
        'an attribution that is neither',
        { attribution: 'blame' },
        {},
        /attribution "blame" is not report or commit/,
      ],
    ];
    for (const [what, inputs, options, message] of cases) {
      const r = await runAction(trivyReport([LOW_CVE]), { 'allow-unknown': 'true', ...inputs }, options);
      expect(r.code, `${what}: ${r.stdout}`).toBe(3);
      allOutputs(r.outputs);
      expect(r.outputs, what).toMatchObject({ verdict: 'error', 'exit-code': '3', sarif: '', opened: '' });
      expect(r.outputs.reason, what).toMatch(message);
      expect(r.stdout, what).toMatch(/::error::pathgate: configuration: /);
      expect(existsSync(sarifFile()), what).toBe(false);
    }
  });

  it('an unreachable service or a wrong token → 3, naming the URL and the cause, every output set', async () => {
    const port = await closedPort();
    const down = await runAction(trivyReport([LOW_CVE]), {
      'api-url': `http://127.0.0.1:${port}`,
      'allow-unknown': 'true',
    });
    expect(down.code, down.stdout).toBe(3);
    allOutputs(down.outputs);
    expect(down.outputs.reason).toMatch(
      new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/gate/impact: .*ECONNREFUSED`),
    );
    expect(down.outputs.reason).not.toMatch(/^cannot reach [^:]+: fetch failed$/);
    const refused = await runAction(trivyReport([LOW_CVE]), { 'api-token': 'wrong-token-wrong-token' });
    expect(refused.code, refused.stdout).toBe(3);
    allOutputs(refused.outputs);
    expect(refused.outputs).toMatchObject({ verdict: 'error', sarif: '', 'exit-code': '3' });
    expect(refused.outputs.reason).toMatch(/\/gate\/impact answered 401 Unauthorized: .*api-token/);
    // The wrong token is masked and appears nowhere else.
    expect(refused.stdout.split('wrong-token-wrong-token')).toHaveLength(2);
    expect(existsSync(sarifFile())).toBe(false);
  });

  it('evaluates a report adding a new internet-facing load balancer that routes to a live workload by id', async () => {
    // Raw events restating only the new node: its edge names the live `checkout` service by id.
    const live = node('Service', 'checkout');
    const opening = node('LoadBalancer', 'pr-7-public-alb', { internet_exposed: true });
    const blocked = await runAction(envelope([opening], [edge('ROUTES_TO', opening, live, 0.9)], 'pr'), {
      source: 'events',
    });
    expect(blocked.code, blocked.stdout).toBe(1);
    expect(blocked.outputs).toMatchObject({ verdict: 'blocked', opened: '1', 'exit-code': '1' });
    expect(blocked.summary).toMatch(/opened \| P1 \| 0\.810 \| pr-7-public-alb → checkout → orders/);
    // Negative twin: the same load balancer kept internal starts no route; evaluated all the same (clean).
    const internal = node('LoadBalancer', 'pr-7-internal-alb', { internet_exposed: false });
    const clean = await runAction(envelope([internal], [edge('ROUTES_TO', internal, live, 0.9)], 'pr'), {
      source: 'events',
    });
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.outputs).toMatchObject({ verdict: 'clean', opened: '0', preexisting: '1' });
  });
});
