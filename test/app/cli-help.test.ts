// Every `pathgate` subcommand answers --help (exit 0) with its flags, from the command table: a command
// added without a spec, or whose help misses a flag, fails here. Usage errors exit 64, apart from the
// verdict codes, and errors name the value and the underlying cause.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { COMMANDS, runCli } from '../../app/cli-commands.js';
import { describeError, EXIT_USAGE } from '../../app/cli-flags.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));

async function inProcess(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...process.env },
    isTTY: false,
  });
  return { code, out, err };
}

async function spawned(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('pathgate <command> --help', () => {
  it('the table holds every command the usage lists, and the spec names its own', async () => {
    const names = COMMANDS.map((c) => c.spec.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'serve',
        'healthz',
        'ingestreal',
        'gate',
        'intel',
        'verify-audit',
        'verify-store',
        'verify-export',
        'mcp',
        'version',
        'help',
      ]),
    );
    const usage = (await inProcess('help')).out;
    for (const name of names) expect(usage).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  for (const command of COMMANDS) {
    const name = command.spec.name;
    it(`${name} --help, -help and -h exit 0 and list every flag of its table`, async () => {
      for (const flag of ['--help', '-help', '-h']) {
        const help = await inProcess(name, flag);
        expect(help.code, `${name} ${flag}`).toBe(0);
        expect(help.err).toBe('');
        expect(help.out).toContain(`Usage: pathgate ${name}`);
        for (const f of Object.keys(command.spec.flags))
          expect(help.out).toMatch(new RegExp(`^  -${f}\\b`, 'm'));
        expect(help.out.replace(/\s+/g, ' ')).toContain(`${EXIT_USAGE} usage error`);
      }
      // `pathgate help <command>` answers the same.
      expect((await inProcess('help', name)).out).toBe((await inProcess(name, '--help')).out);
    });
  }

  it('as a process: gate --help exits 0 (not 1 = blocked) and serve --help starts nothing', async () => {
    const gate = await spawned('gate', '--help');
    expect(gate.code).toBe(0);
    expect(gate.stdout).toContain('-allow-unknown');
    const serve = await spawned('serve', '--help');
    expect(serve.code).toBe(0);
    expect(serve.stdout).toContain('Usage: pathgate serve');
    expect(serve.stdout).not.toContain('is running');
  });
});

describe('usage errors and error messages', () => {
  it('exit 64 for an unknown flag, a missing value, a malformed URL, a bad choice, a wrong argument count', async () => {
    const cases: [string[], RegExp][] = [
      [['gate', '-report', 'x.json', '-frobnicate'], /Unknown option '--frobnicate'/],
      [['gate', '-report'], /argument missing/],
      [['gate', '-report', 'x.json', '-api', 'not a url'], /-api "not a url" is not a URL/],
      [['gate', '-report', 'x.json', '-attribution', 'blame'], /not "blame"/],
      [['healthz', '-url', 'localhost:8080x'], /-url "localhost:8080x" is not a URL|Unknown|not a URL/],
      [['ingestreal'], /expected one <dir>, got none/],
      [['mcp', '--api', 'not a url'], /-api "not a url" is not a URL/],
      [['verify-export', 'a'], /expected <file> <sig>, got "a"/],
      [['serve', 'extra'], /Unexpected argument 'extra'/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    for (const [argv, message] of cases) {
      const result = await inProcess(...argv);
      expect(result.code, argv.join(' ')).toBe(EXIT_USAGE);
      expect(result.err, argv.join(' ')).toMatch(message);
    }
  });

  it('the single-dash spellings the spec names keep working', async () => {
    // -local, -report, -slug, -sha, -attribution, -json parse (and fail later, on the missing folder: 3).
    const gate = await inProcess(
      'gate',
      '-local',
      '/nonexistent',
      '-report',
      'x.json',
      '-slug',
      'acme/shop',
      '-sha',
      'abc',
      '-attribution',
      'report',
      '-json',
    );
    expect(gate.code).toBe(3);
    expect(gate.err).toContain('-local /nonexistent: no such folder');
    const repair = await inProcess('verify-store', '-data-dir', '/nonexistent', '-repair');
    expect(repair.code).toBe(2);
    expect(repair.err).toContain('no store at /nonexistent');
  });

  it('an unreachable listener is named with the cause, not "fetch failed" alone', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const result = await inProcess('healthz', '-url', `http://127.0.0.1:${port}`);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`http://127.0.0.1:${port}/healthz`);
    expect(result.err).toMatch(/fetch failed: .*ECONNREFUSED/);
  });

  it('describeError follows the cause chain, with codes and the input of an invalid URL', () => {
    let invalid: unknown;
    try {
      new URL('not a url');
    } catch (error) {
      invalid = error;
    }
    expect(describeError(invalid)).toContain('"not a url"');
    const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(describeError(new Error('fetch failed', { cause: inner }))).toBe(
      'fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(describeError(new Error('outer', { cause: 'plain' }))).toBe('outer: plain');
  });
});
