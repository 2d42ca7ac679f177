// The bundled Action (dist/index.js) run as GitHub runs it: INPUT_* variables, GITHUB_EVENT_PATH pointing
// at a real pull_request payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; against a loopback server.
// Checks exit codes, outputs, the summary (with a Mermaid diagram per route), the annotations, the SARIF
// file, and what the server was told. PATHGATE_ACTION_SOURCE=1 runs app/action/index.ts through tsx instead
// of the bundle (before `npm run build:action` has caught up with the source).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
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
const event = path.resolve(root, '../shared/fixtures/real/github/pull_request.opened.payload.json');
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
async function runAction(report: unknown, inputs: Record<string, string> = {}) {
  const name = `run-${Math.random().toString(36).slice(2)}`;
  const reportFile = path.join(dir, `${name}-report.json`);
  const output = path.join(dir, `${name}-output`);
  const summary = path.join(dir, `${name}-summary.md`);
  writeFileSync(reportFile, typeof report === 'string' ? report : JSON.stringify(report));
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
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
      opened: '0',
      worsened: '1',
      exposed: '0',
      preexisting: '0',
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
