// The README's and docs' examples, run: every fenced block tagged ```sh test in README.md and docs/*.md
// runs with bash from the repository root against a service started here on loopback (the demo estate,
// THREATINTEL=on), with the documented addresses (127.0.0.1:8080 API, 127.0.0.1:8081 ingest) pointed at
// it and `npx pathgate` at this checkout's CLI. A line `# answers: TEXT` states what the block's output
// must contain: a doc that drifts from what the service answers fails here.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { startService, type RunningService } from '../../app/service.js';
import { tempDir } from '../helpers/service.js';

const run = promisify(execFile);

/** The example's output; on a failing exit, the error carries what it printed. */
async function runExample(...args: Parameters<typeof run>): Promise<{ stdout: string }> {
  try {
    const { stdout } = await run(...args);
    return { stdout: String(stdout) };
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${e.message}\nstdout:\n${e.stdout ?? ''}\nstderr:\n${e.stderr ?? ''}`, { cause: error });
  }
}
const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Example {
  file: string;
  line: number;
  script: string;
  answers: string[];
}

/** The ```sh test blocks of a Markdown text, with their `# answers:` lines. */
export function examplesIn(file: string, text: string): Example[] {
  const out: Example[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```sh\s+test\s*$/.test(lines[i])) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
    out.push({
      file,
      line: start + 1,
      script: body.join('\n'),
      answers: body.flatMap((l) => /^#\s*answers:\s*(.+)$/.exec(l.trim())?.[1] ?? []),
    });
  }
  return out;
}

const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs')).map((f) => path.join('docs', f)),
].filter((f) => f.endsWith('.md'));
const examples = documents.flatMap((f) => examplesIn(f, readFileSync(path.join(root, f), 'utf8')));

let service: RunningService;
let dataDir: string;
beforeAll(async () => {
  dataDir = await tempDir('pathgate-examples-');
  const settings = loadSettings(
    {
      DATA_DIR: dataDir,
      INGEST_ADDR: '127.0.0.1:0',
      API_ADDR: '127.0.0.1:0',
      ANALYZER_THREADS: '1',
      THREATINTEL: 'on',
      INGEST_RATE_RPS: '1000',
      API_RATE_RPS: '1000',
    },
    { demoData: true },
  );
  service = await startService({ settings, demo: true, logger: pino({ level: 'silent' }) });
}, 180_000);
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('README and docs examples', () => {
  it('finds the runnable examples, each stating what it answers', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const e of examples) expect(e.answers, `${e.file}:${e.line}`).not.toEqual([]);
    expect(
      examplesIn('x.md', '```sh test\necho hi\n# answers: hi\n```\n```sh\nnot run\n```\n').map(
        (e) => e.answers,
      ),
    ).toEqual([['hi']]);
  });

  for (const example of examples) {
    it(`${example.file}:${example.line} answers as documented`, async () => {
      const cli = `node --import tsx ${path.join(root, 'app', 'cli.ts')}`;
      const script = example.script
        .replaceAll('http://127.0.0.1:8080', service.apiUrl)
        .replaceAll('http://127.0.0.1:8081', service.ingestUrl)
        .replaceAll('npx pathgate', cli);
      const { stdout } = await runExample('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: root,
        env: { ...process.env, PATHGATE_API_TOKEN: '', INGEST_HMAC_SECRET: '', BASH_ENV: '', ENV: '' },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 240_000,
      });
      for (const answer of example.answers)
        expect(stdout, `${example.file}:${example.line}`).toContain(answer);
    }, 300_000);
  }
});
