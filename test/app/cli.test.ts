import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { normalizeFlags } from '../../app/cli-flags.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));

async function pathgate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('pathgate CLI', () => {
  it('accepts -flag and --flag alike', () => {
    expect(normalizeFlags(['-url', 'x', '--url=y', '-url=z', '-h', 'value'])).toEqual([
      '--url',
      'x',
      '--url=y',
      '--url=z',
      '-h',
      'value',
    ]);
  });

  it('prints help and its version', async () => {
    const help = await pathgate('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: pathgate <command>/);
    const version = await pathgate('version');
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('fails with usage on an unknown command', async () => {
    const result = await pathgate('frobnicate');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });

  it('healthz: exit 0 when a listener answers ok, 1 when it does not', async () => {
    const server = Fastify();
    server.get('/healthz', async () => 'ok');
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    try {
      const ok = await pathgate('healthz', '-url', url);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('200 ok');
    } finally {
      await server.close();
    }
    const down = await pathgate('healthz', '--url', url);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(url);
  });
});
