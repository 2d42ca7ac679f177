import { readFile, writeFile } from 'node:fs/promises';
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
});
