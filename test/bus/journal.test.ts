import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, JournalError } from '../../src/bus/journal.js';
import { tempDir } from '../helpers/service.js';

async function replayAll(journal: Journal, afterSeq = 0) {
  const seen: [number, unknown][] = [];
  await journal.replay(afterSeq, (seq, record) => {
    seen.push([seq, record]);
  });
  return seen;
}

async function onlySegment(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.log'));
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]);
}

describe('Journal', () => {
  it('keeps records in order with their sequence numbers across a reopen', async () => {
    const dir = await tempDir();
    const first = await Journal.open(dir);
    expect(await first.append([{ a: 1 }, { a: 2 }])).toEqual([1, 2]);
    expect(await first.append([{ a: 3 }])).toEqual([3]);
    await first.close();
    const second = await Journal.open(dir);
    expect(second.lastSeq).toBe(3);
    expect(await second.append([{ a: 4 }])).toEqual([4]);
    expect(await replayAll(second)).toEqual([
      [1, { a: 1 }],
      [2, { a: 2 }],
      [3, { a: 3 }],
      [4, { a: 4 }],
    ]);
    expect(await replayAll(second, 2)).toEqual([
      [3, { a: 3 }],
      [4, { a: 4 }],
    ]);
    await second.close();
  });

  it('group-commits concurrent appends: one commit line for all of them, each caller gets its own seqs', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ warm: true }]);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        journal.append([
          { i, part: 0 },
          { i, part: 1 },
        ]),
      ),
    );
    expect(results.flat()).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    const text = await readFile(await onlySegment(dir), 'utf8');
    const commits = text.split('\n').filter((l) => l.startsWith('~'));
    // The first append commits alone; the 20 queued behind it commit in far fewer writes than 20.
    expect(commits.length).toBeLessThan(10);
    await journal.close();
  });

  it('cuts off a torn final commit on open and carries on from the last whole one', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ kept: 1 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const whole = (await readFile(file)).length;
    // A crash mid-write: records of an unacknowledged commit, without its commit line, half a line at the end.
    await appendFile(file, '2 {"lost":2}\n3 {"lo');
    const reopened = await Journal.open(dir);
    expect((await readFile(file)).length).toBe(whole);
    expect(await replayAll(reopened)).toEqual([[1, { kept: 1 }]]);
    expect(await reopened.append([{ next: 2 }])).toEqual([2]);
    await reopened.close();
  });

  it('cuts off a final commit whose checksum does not match', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ kept: 1 }]);
    await journal.close();
    const file = await onlySegment(dir);
    await appendFile(file, '2 {"lost":2}\n~2 00000000\n');
    const reopened = await Journal.open(dir);
    expect(await replayAll(reopened)).toEqual([[1, { kept: 1 }]]);
    await reopened.close();
  });

  it('refuses to open when damage is followed by committed records, naming the file and byte', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }]);
    await journal.append([{ a: 2 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('{"a":1}', '{"a":9}'));
    const error = await Journal.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(/byte 0/);
  });

  it('rotates segments and compacts whole segments covered by a snapshot', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, { rotateAt: 200 });
    for (let i = 1; i <= 10; i++) await journal.append([{ i, pad: 'x'.repeat(80) }]);
    const segments = (await readdir(dir)).filter((f) => f.endsWith('.log'));
    expect(segments.length).toBeGreaterThan(3);
    const before = journal.bytes;
    await journal.compact(6);
    const after = (await readdir(dir)).filter((f) => f.endsWith('.log'));
    expect(after.length).toBeLessThan(segments.length);
    expect(journal.bytes).toBeLessThan(before);
    // Everything after the snapshot point is still there, in order.
    expect((await replayAll(journal, 6)).map(([seq]) => seq)).toEqual([7, 8, 9, 10]);
    await journal.close();
    const reopened = await Journal.open(dir, { rotateAt: 200 });
    expect(reopened.lastSeq).toBe(10);
    await reopened.close();
  });
});
