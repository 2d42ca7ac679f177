import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_FILE, SnapshotError, readSnapshot, writeSnapshot } from '../../src/bus/snapshot-file.js';
import { tempDir } from '../helpers/service.js';

async function collect(lines: AsyncIterable<string>) {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe('snapshot files', () => {
  it('round-trips metadata and lines, and is absent before the first write', async () => {
    const dir = await tempDir();
    expect(await readSnapshot(dir)).toBeUndefined();
    await writeSnapshot(dir, { seq: 42, format: 1 }, ['{"a":1}', '{"b":2}']);
    const snapshot = (await readSnapshot(dir))!;
    expect(snapshot.meta).toEqual({ seq: 42, format: 1 });
    expect(await collect(snapshot.lines)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('replaces the previous snapshot whole', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, { seq: 1 }, ['{"old":true}']);
    await writeSnapshot(dir, { seq: 2 }, ['{"new":true}']);
    const snapshot = (await readSnapshot(dir))!;
    expect(snapshot.meta.seq).toBe(2);
    expect(await collect(snapshot.lines)).toEqual(['{"new":true}']);
  });

  it.each([
    ['truncated', (text: string) => text.slice(0, text.lastIndexOf('{"end"'))],
    ['altered', (text: string) => text.replace('{"a":1}', '{"a":2}')],
    ['a line lost', (text: string) => text.replace('{"b":2}\n', '')],
  ])('refuses a snapshot that was %s, naming the file', async (_what, damage) => {
    const dir = await tempDir();
    await writeSnapshot(dir, { seq: 7 }, ['{"a":1}', '{"b":2}']);
    const file = path.join(dir, SNAPSHOT_FILE);
    await writeFile(file, damage(await readFile(file, 'utf8')));
    const error = await readSnapshot(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toContain(file);
  });
  it('keeps lines that hold a carriage return or look like the trailer', async () => {
    const dir = await tempDir();
    const lines = ['{"a":"x\ry"}', '{"end":true,"lines":0,"crc":0}', '', '{"é":"\u2028"}'];
    await writeSnapshot(dir, { seq: 3 }, lines);
    expect(await collect((await readSnapshot(dir))!.lines)).toEqual(lines);
  });

  it('streams a large snapshot, lines longer than a read included', async () => {
    const dir = await tempDir();
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, blob: 'b'.repeat(300_000 + i) }));
    await writeSnapshot(dir, { seq: 9 }, lines);
    expect(await collect((await readSnapshot(dir))!.lines)).toEqual(lines);
  });

  it('leaves the previous snapshot, and no temporary file, when a write fails', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, { seq: 1 }, ['{"old":true}']);
    function* failing() {
      yield '{"new":true}';
      throw new Error('serialization failed');
    }
    await expect(writeSnapshot(dir, { seq: 2 }, failing())).rejects.toThrow('serialization failed');
    await expect(writeSnapshot(dir, { seq: 2 }, ['{"a":\n1}'])).rejects.toThrow(SnapshotError);
    expect(await readdir(dir)).toEqual([SNAPSHOT_FILE]);
    const snapshot = (await readSnapshot(dir))!;
    expect(snapshot.meta.seq).toBe(1);
    expect(await collect(snapshot.lines)).toEqual(['{"old":true}']);
  });

  it.each([
    ['empty', () => ''],
    ['cut mid-line', (text: string) => text.slice(0, 12)],
    ['without metadata', () => `${JSON.stringify({ end: true, lines: -1, crc: 0 })}\n`],
  ])('refuses a snapshot file that is %s', async (_what, content) => {
    const dir = await tempDir();
    await writeSnapshot(dir, { seq: 7 }, ['{"a":1}']);
    const file = path.join(dir, SNAPSHOT_FILE);
    await writeFile(file, content(await readFile(file, 'utf8')));
    await expect(readSnapshot(dir)).rejects.toThrow(SnapshotError);
  });
});
