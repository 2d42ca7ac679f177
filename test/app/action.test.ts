// The bundled Action (dist/index.js) run as GitHub runs it: INPUT_* variables, GITHUB_EVENT_PATH pointing
// at a real pull_request payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; against a loopback server.
// Checks exit codes, outputs, the summary, the annotations, and what the server was told.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundle = path.join(root, 'dist', 'index.js');
const event = path.resolve(root, '../shared/fixtures/real/github/pull_request.opened.payload.json');
const TOKEN = 'action-test-token-0123456789';

let service: TestService;
let apiUrl: string;
let dir: string;
beforeAll(async () => {
  dir = await tempDir('pathgate-action-');
  service = await makeService({ API_TOKENS: `${TOKEN}:viewer` });
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
  writeFileSync(reportFile, JSON.stringify(report));
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
    'INPUT_API-URL': apiUrl,
    'INPUT_API-TOKEN': TOKEN,
    INPUT_REPORT: reportFile,
    'INPUT_ALLOW-UNKNOWN': 'false',
  };
  for (const [key, value] of Object.entries(inputs)) env[`INPUT_${key.toUpperCase()}`] = value;
  const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [bundle], { env }, (error, stdout) =>
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
  it('blocks a PR that adds a known-exploited CVE: exit 1, outputs, summary and an annotation', async () => {
    const r = await runAction(trivyReport([LOW_CVE, KEV_CVE]), { source: 'trivy' });
    expect(r.code).toBe(1);
    expect(r.outputs).toEqual({
      verdict: 'blocked',
      opened: '0',
      worsened: '1',
      preexisting: '0',
      'exit-code': '1',
    });
    expect(r.summary).toMatch(/### ⛔ pathgate: blocked/);
    expect(r.summary).toMatch(
      /\| ⛔ \| worsened \| P1 \| .* \| shop-alb → checkout → orders \| upgrade log4j-core to 2\.15\.0/,
    );
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
    expect(r.code).toBe(0);
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
  });
});
