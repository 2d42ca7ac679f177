import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { normalizeFlags } from '../../app/cli-flags.js';
import { ingestReal } from '../../app/ingest-real.js';
import { makeService, tempDir } from '../helpers/service.js';

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
    expect(result.code).toBe(64);
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

  it('ingestreal: posts every recognised report under a folder and says what each produced', async () => {
    const dir = await tempDir('pathgate-ingestreal-');
    const events = {
      source: 'cli-test',
      kind: 'asset',
      observed_at: '2026-11-01T00:00:00Z',
      nodes: [{ label: 'Service', name: 'web' }],
      edges: [],
    };
    await mkdir(path.join(dir, 'nested'));
    await writeFile(path.join(dir, 'nested', 'estate.json'), JSON.stringify(events));
    await writeFile(path.join(dir, 'notes.json'), JSON.stringify({ hello: 'world' }));
    await writeFile(path.join(dir, 'broken.json'), '{ nope');
    await writeFile(
      path.join(dir, 'bad.json'),
      JSON.stringify({ ...events, nodes: [{ label: 'Spaceship', name: 'x' }] }),
    );
    const service = await makeService();
    const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    try {
      const result = await pathgate('ingestreal', dir, '-url', url);
      expect(result.stdout).toContain('nested/estate.json: events -> 202, 1 nodes, 0 edges');
      expect(result.stdout).toContain('notes.json: skipped, not a report any ingest source takes');
      expect(result.stdout).toContain('broken.json: skipped, not JSON');
      expect(result.stdout).toMatch(/bad\.json: events -> 400 .*Spaceship/);
      expect(result.stdout).toContain('1 accepted, 1 rejected, 2 skipped');
      expect(result.code).toBe(1);
      await service.settle();
      expect(service.engine.tenant('default')!.graph.order).toBe(1);
    } finally {
      await service.dispose();
      await rm(dir, { recursive: true, force: true });
    }
    const usage = await pathgate('ingestreal');
    expect(usage.code).toBe(64);
  });

  it('ingestreal signs its requests when given the secret of a signed listener', async () => {
    const dir = await tempDir('pathgate-ingestreal-signed-');
    await writeFile(
      path.join(dir, 'estate.json'),
      JSON.stringify({
        source: 't',
        kind: 'asset',
        observed_at: '2026-11-01T00:00:00Z',
        nodes: [{ label: 'Service', name: 'web' }],
        edges: [],
      }),
    );
    const service = await makeService({ INGEST_HMAC_SECRET: 'cli-signing-secret' });
    const url = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
    try {
      const lines: string[] = [];
      const unsigned = await ingestReal({ dir, url, out: (l) => lines.push(l) });
      expect(unsigned.rejected).toBe(1);
      expect(lines[0]).toMatch(/estate\.json: events -> 401 .*signed/);
      const signed = await ingestReal({ dir, url, secret: 'cli-signing-secret', out: () => undefined });
      expect(signed).toEqual({ accepted: 1, rejected: 0, skipped: 0 });
      await service.settle();
      expect(service.engine.tenant('default')!.graph.order).toBe(1);
    } finally {
      await service.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
