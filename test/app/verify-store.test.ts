// `pathgate verify-store` as an operator runs it: on a stopped service's DATA_DIR, through the real CLI.
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { StoreReport } from '../../src/bus/store.js';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, tempDir } from '../helpers/service.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));

async function pathgate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      env: { ...process.env, DATA_DIR: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A stopped service's DATA_DIR holding `n` reports, with only the journal (no snapshot). */
async function stoppedStore(n: number): Promise<{ dataDir: string; batches: string[] }> {
  const service = await makeService();
  const batches: string[] = [];
  for (let i = 0; i < n; i++) {
    const answer = await service.ingest(envelope([node('Service', `svc-${i}`)]));
    batches.push(answer.json.batchId);
  }
  await service.dispose({ keepData: true });
  await rm(path.join(service.dataDir, 'state'), { recursive: true });
  return { dataDir: service.dataDir, batches };
}

describe('pathgate verify-store', () => {
  it('exit 0 on a healthy store, with its segments, ranges and what a start would do', async () => {
    const { dataDir } = await stoppedStore(3);
    const result = await pathgate('verify-store', '-data-dir', dataDir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`store ${dataDir}: healthy`);
    expect(result.stdout).toMatch(/journal 000000000001\.log: seqs 1-3, \d+ bytes/);
    expect(result.stdout).toContain('a start would restore nothing (seq 0), replay 3 journal records');
  });

  it('exit 1 with the damage named (-json), then -repair quarantines it and leaves a healthy store', async () => {
    const { dataDir, batches } = await stoppedStore(3);
    const file = path.join(dataDir, 'journal', '000000000001.log');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"svc-1"', '"svc-5"'));

    const checked = await pathgate('verify-store', '-data-dir', dataDir, '-json');
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout) as StoreReport;
    expect(report.healthy).toBe(false);
    expect(report.start.outcome).toBe('refuse');
    expect(report.segments[0].tail).toMatchObject({
      kind: 'damaged',
      lost: [{ from: 2, to: 2 }],
      batches: [batches[1]],
      salvage: [{ from: 3, to: 3 }],
    });
    expect(report.problems.join('\n')).toContain('may have been acknowledged');

    const repaired = await pathgate('verify-store', '-repair', '--data-dir', dataDir);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(
      new RegExp(`repair:\\n.*record 2 \\(batch ${batches[1]}\\) committed, and may have been acknowledged`),
    );
    expect(repaired.stdout).toMatch(/wrote a new snapshot \(seq 3\)/);
    // The cut record is named once, with its damage, not again as a missing segment.
    expect(repaired.stdout).not.toContain('a segment deleted');
    expect(await readdir(path.join(dataDir, 'journal', 'quarantine'))).toHaveLength(1);

    const after = await pathgate('verify-store', '-data-dir', dataDir);
    expect(after.code).toBe(0);
    const revived = await makeService({}, { dataDir });
    try {
      const graph = revived.engine.tenant('default')!.graph;
      expect([0, 1, 2].map((i) => graph.hasNode(node('Service', `svc-${i}`).id))).toEqual([
        true,
        false,
        true,
      ]);
    } finally {
      await revived.dispose();
    }
  });

  it('-repair refuses a store a running service has open, and one last opened on another host unless -force', async () => {
    const service = await makeService();
    try {
      await service.ingest(envelope([node('Service', 'live')]));
      const refused = await pathgate('verify-store', '-data-dir', service.dataDir, '-repair');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`a service (pid ${process.pid} on `);
      expect(refused.stderr).toContain('stop it before -repair');
      const looked = await pathgate('verify-store', '-data-dir', service.dataDir);
      expect(looked.stdout).toContain('has this store open: the newest segment may be mid-write');
      // In use, not "healthy": the holder of the DATA_DIR lock is named, and the exit is 1.
      expect(looked.stdout).toContain(`store ${service.dataDir}: IN USE by pid ${process.pid} on `);
      expect(looked.stdout).not.toContain(': healthy');
      expect(looked.code).toBe(1);
    } finally {
      await service.dispose({ keepData: true });
    }
    // A clean stop removes the owner file.
    expect(await readdir(path.join(service.dataDir, 'journal'))).not.toContain('OWNER');
    await writeFile(
      path.join(service.dataDir, 'journal', 'OWNER'),
      JSON.stringify({ pid: 1, host: 'elsewhere.example', startedAt: '2026-11-01T00:00:00.000Z' }),
    );
    const foreign = await pathgate('verify-store', '-data-dir', service.dataDir, '-repair');
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('was opened on another host (pid 1 on elsewhere.example');
    const forced = await pathgate('verify-store', '-data-dir', service.dataDir, '-repair', '-force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('repair:');
  });

  it('exit 64 on a flag it does not know, and 2 on a folder that does not exist', async () => {
    const result = await pathgate('verify-store', '-frobnicate');
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('pathgate verify-store:');
    const missing = path.join(await tempDir(), 'no-such-data');
    const typo = await pathgate('verify-store', '-data-dir', missing, '-repair');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`no store at ${missing}`);
    await expect(readdir(missing)).rejects.toThrow(/ENOENT/);
  });
});
