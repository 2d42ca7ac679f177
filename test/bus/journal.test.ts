import { spawn } from 'node:child_process';
import { appendFile, open, readFile, readdir, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  COMMIT_BUFFER_BYTES,
  Journal,
  JournalDamage,
  JournalError,
  SEGMENT_HEADER,
} from '../../src/bus/journal.js';
import { tempDir } from '../helpers/service.js';
import { crashRecord, type CrashRecord } from './fixtures/crash-record.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The FileHandle class's prototype, to make writes fail on purpose. */
async function fileHandlePrototype(dir: string) {
  const handle = await open(path.join(dir, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

async function segments(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.log')).sort();
}

async function replayAll(journal: Journal, afterSeq = 0) {
  const seen: [number, unknown][] = [];
  await journal.replay(afterSeq, (seq, record) => {
    seen.push([seq, record]);
  });
  return seen;
}

/** What a journal reopened on `dir` replays, once the reopening found nothing to recover. */
async function replayedClean(dir: string): Promise<[number, unknown][]> {
  const reopened = await Journal.open(dir);
  expect(reopened.recovered).toBeUndefined();
  const replayed = await replayAll(reopened);
  await reopened.close();
  return replayed;
}

async function onlySegment(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.log'));
  expect(files).toHaveLength(1);
  return path.join(dir, files[0]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

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

  it('refuses a final commit that is whole but fails its checksum: it may have been acknowledged', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ kept: 1 }]);
    await journal.append([{ batchId: 'b-acked', n: 2 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const text = await readFile(file, 'utf8');
    // Bit rot inside the last record: its commit line is whole, so its write completed and was synced.
    const damaged = text.replace('"n":2', '"n":3');
    await writeFile(file, damaged);
    const error = await Journal.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalDamage);
    const message = (error as Error).message;
    expect(message).toContain(`${file} is damaged at byte ${text.indexOf('2 {')}`);
    expect(message).toContain('record 2 (batch b-acked) committed, and may have been acknowledged');
    expect(message).toContain('pathgate verify-store');
    expect(message).not.toMatch(/not (been )?acknowledged/);
    // Nothing was cut: the operator decides.
    expect(await readFile(file, 'utf8')).toBe(damaged);

    // A repair cuts it, keeping the bytes aside, and says what went.
    const repaired = await Journal.open(dir, { repair: true });
    const [recovery] = repaired.recoveries;
    expect(recovery).toMatchObject({ kind: 'damaged', lost: [{ from: 2, to: 2 }], batches: ['b-acked'] });
    expect(recovery.quarantined).toBe(
      path.join(dir, 'quarantine', `000000000001.log.${text.indexOf('2 {')}.cut`),
    );
    expect(await readFile(recovery.quarantined, 'utf8')).toBe(damaged.slice(text.indexOf('2 {')));
    expect(await replayAll(repaired)).toEqual([[1, { kept: 1 }]]);
    expect(await repaired.append([{ next: true }])).toEqual([2]);
    await repaired.close();
    expect((await Journal.open(dir)).recoveries).toEqual([]);
  });

  it('cuts off records written without their commit line, keeping a copy: they were never acknowledged', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ kept: 1 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const whole = (await readFile(file)).length;
    await appendFile(file, '2 {"batchId":"b-torn"}\n3 {"batchId":"b-torn"}\n');
    const reopened = await Journal.open(dir);
    expect(reopened.recovered).toMatchObject({
      kind: 'torn',
      offset: whole,
      lost: [{ from: 2, to: 3 }],
      batches: ['b-torn'],
    });
    expect(await readFile(reopened.recovered!.quarantined, 'utf8')).toBe(
      '2 {"batchId":"b-torn"}\n3 {"batchId":"b-torn"}\n',
    );
    expect((await readFile(file)).length).toBe(whole);
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
    // Right after the segment's header line.
    expect((error as Error).message).toContain(`at byte ${SEGMENT_HEADER.length} `);
    expect((error as Error).message).toContain('the whole record after it (seq 2) is intact');
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
  it('writes nothing for an empty append, and a reopen still finds every record', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    expect(await journal.append([])).toEqual([]);
    expect(await journal.append([{ a: 1 }])).toEqual([1]);
    expect(await journal.append([])).toEqual([]);
    await journal.close();
    expect(await replayedClean(dir)).toEqual([[1, { a: 1 }]]);
  });

  it('refuses a pre-serialized record that spans lines, and writes nothing of its batch', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await expect(journal.appendSerialized(['{"a":1}', '{\n"b":2}'])).rejects.toThrow(
      /record 1 is not single-line/,
    );
    expect(await journal.appendSerialized(['{"a":1}'])).toEqual([1]);
    expect(await replayAll(journal)).toEqual([[1, { a: 1 }]]);
    await journal.close();
  });

  it('takes stringified lines without a scan: a newline inside a value is escaped, an empty line refused', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    const record = { note: 'two\nlines' };
    expect(await journal.appendSerialized([JSON.stringify(record)], { stringified: true })).toEqual([1]);
    await expect(journal.appendSerialized(['{"a":1}', ''], { stringified: true })).rejects.toThrow(
      /record 1 is not single-line/,
    );
    expect(await replayAll(journal)).toEqual([[1, record]]);
    await journal.close();
  });

  it('writes a line given as pieces byte for byte as the joined line, through commits that outgrow the buffer', async () => {
    // Records whose text is ASCII, two-byte (é), three-byte (€) and four-byte (a surrogate pair): the commit
    // buffer is sized by the UTF-16 length's bound or, past it, by the exact UTF-8 size.
    const records = (n: number, unit: string, repeat: number) =>
      Array.from({ length: n }, (_, i) => ({ i, text: unit.repeat(repeat + i) }));
    const batches = [
      records(3, 'plain', 10),
      records(40, 'é€𝄞', 500),
      records(2, '€', 200_000),
      records(200, 'x', 1),
      records(5, '𝄞', 100_000),
    ];
    const pieced = await tempDir();
    const bytes = await tempDir();
    const joined = await tempDir();
    const a = await Journal.open(pieced);
    const c = await Journal.open(bytes);
    const b = await Journal.open(joined);
    for (const batch of batches) {
      const lines = batch.map((r) => {
        const json = JSON.stringify(r);
        // Cut between code points (each piece is encoded alone: half a surrogate pair is not a character).
        let half = json.length >> 1;
        if (/[\uDC00-\uDFFF]/.test(json[half])) half++;
        return [json.slice(0, 9), json.slice(9, half), '', json.slice(half)];
      });
      const seqs = await a.appendSerialized(lines);
      // The same with the middle piece as its UTF-8 bytes (as an ingest worker posts a chunk's items).
      const withBytes = lines.map(([first, middle, empty, last]) => [
        first,
        Buffer.from(middle),
        empty,
        last,
      ]);
      expect(await c.appendSerialized(withBytes, { stringified: true })).toEqual(seqs);
      expect(seqs).toEqual(await b.appendSerialized(batch.map((r) => JSON.stringify(r))));
    }
    await a.close();
    await b.close();
    await c.close();
    expect(await readFile(await onlySegment(pieced))).toEqual(await readFile(await onlySegment(joined)));
    expect(await readFile(await onlySegment(bytes))).toEqual(await readFile(await onlySegment(joined)));
    expect((await replayedClean(pieced)).map(([, record]) => record)).toEqual(batches.flat());
  });

  it('refuses a line given as pieces when a piece spans lines or the pieces are all empty', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await expect(
      journal.appendSerialized([
        ['{"a":', '1}'],
        ['{"b":', '\n2}'],
      ]),
    ).rejects.toThrow(/record 1 is not single-line/);
    await expect(
      journal.appendSerialized([
        ['{"a":', Buffer.from('1}')],
        ['{"b":', Buffer.from('\n2}')],
      ]),
    ).rejects.toThrow(/record 1 is not single-line/);
    await expect(journal.appendSerialized([['{"a":1}'], ['', '']], { stringified: true })).rejects.toThrow(
      /record 1 is not single-line/,
    );
    await expect(
      journal.appendSerialized([['{"a":1}'], ['', Buffer.alloc(0)]], { stringified: true }),
    ).rejects.toThrow(/record 1 is not single-line/);
    expect(await journal.appendSerialized([['{"a":', Buffer.from('1}')]])).toEqual([1]);
    expect(await replayAll(journal)).toEqual([[1, { a: 1 }]]);
    await journal.close();
  });

  it('streams records longer than a read, across rotated segments', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, { rotateAt: 2 * 1024 * 1024 });
    const big = (i: number) => ({ i, blob: `${'é'.repeat(300_000)}${'z'.repeat(500_000)}${i}` });
    for (let i = 0; i < 6; i++) await journal.append([big(i)]);
    expect((await segments(dir)).length).toBeGreaterThan(1);
    await journal.close();
    const reopened = await Journal.open(dir, { rotateAt: 2 * 1024 * 1024 });
    const seen = await replayAll(reopened, 1);
    expect(seen.map(([seq]) => seq)).toEqual([2, 3, 4, 5, 6]);
    expect(seen.every(([seq, r]) => JSON.stringify(r) === JSON.stringify(big(seq - 1)))).toBe(true);
    await reopened.close();
  });

  it('writes commits of every size through its one reused buffer, byte for byte', async () => {
    // The commit buffer outlives commits and is replaced mid-commit when a piece does not fit: earlier
    // pieces must still be written as they were, and a later, smaller commit must not leave old bytes.
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    const record = (i: number, chars: number) => ({ i, text: `${'ü€'.repeat(chars / 2)}${'x'.repeat(i)}` });
    const sizes = [3_000_000, 10, 2_500_000, 5_000_000, 40, 1_000_000];
    // Not awaited one by one: later appends queue up while a commit is written, and group-commit.
    const appended = await Promise.all(
      sizes.map((chars, i) => journal.append([record(i, chars), record(i + 100, chars >> 3)])),
    );
    expect(appended.flat()).toEqual(Array.from({ length: sizes.length * 2 }, (_, k) => k + 1));
    await journal.close();
    // Reopening checks every commit line's CRC over the bytes written.
    const reopened = await Journal.open(dir);
    const seen = await replayAll(reopened);
    expect(seen.map(([, r]) => r)).toEqual(
      sizes.flatMap((chars, i) => [record(i, chars), record(i + 100, chars >> 3)]),
    );
    await reopened.close();
  });

  it('cuts a torn write off a freshly rotated segment and goes on with the seq it is named after', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, { rotateAt: 100 });
    await journal.append([{ pad: 'x'.repeat(120) }]);
    await journal.append([{ pad: 'y'.repeat(120) }]);
    await journal.close();
    const files = await segments(dir);
    expect(files).toEqual(['000000000001.log', '000000000002.log']);
    // The crash came mid-way through the next segment's first write.
    await writeFile(path.join(dir, '000000000003.log'), '3 {"lost":');
    const reopened = await Journal.open(dir, { rotateAt: 100 });
    expect(reopened.recovered).toMatchObject({
      file: path.join(dir, '000000000003.log'),
      offset: 0,
      droppedBytes: 10,
      kind: 'torn',
    });
    expect(await readFile(reopened.recovered!.quarantined, 'utf8')).toBe('3 {"lost":');
    expect(reopened.lastSeq).toBe(2);
    expect(await reopened.append([{ next: true }])).toEqual([3]);
    expect((await replayAll(reopened)).map(([seq]) => seq)).toEqual([1, 2, 3]);
    await reopened.close();
  });

  it('refuses to open when an earlier commit line is damaged and a later commit is whole', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }]);
    await journal.append([{ a: 2 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const text = await readFile(file, 'utf8');
    // Bit rot in the first commit line, which then no longer looks like one.
    await writeFile(file, text.replace(/^~1 /m, '#1 '));
    const error = await Journal.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as Error).message).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(text.replace(/^~1 /m, '#1 '));
  });

  it('refuses damage in an older segment on open, and replay still stops at damage that comes later', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, { rotateAt: 100 });
    for (let i = 1; i <= 3; i++) await journal.append([{ i, pad: 'x'.repeat(120) }]);
    await journal.close();
    const first = path.join(dir, '000000000001.log');
    const text = await readFile(first, 'utf8');
    const opened = await Journal.open(dir, { rotateAt: 100 });
    // Bit rot while it runs: replay names file and byte rather than delivering it.
    await writeFile(first, text.replace('"i":1', '"i":7'));
    const error = await replayAll(opened).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as Error).message).toMatch(
      new RegExp(`${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged at byte \\d+`),
    );
    // Replay after it does not read the damaged segment.
    expect((await replayAll(opened, 1)).map(([seq]) => seq)).toEqual([2, 3]);
    await opened.close();
    // The next open reads it whole before anything is replayed, and names what it held.
    await expect(Journal.open(dir, { rotateAt: 100 })).rejects.toThrow(
      /000000000001\.log is damaged at byte 20 \(commit line ~1 does not match its records at byte \d+\): record 1 committed, and may have been acknowledged/,
    );
    // Unless a snapshot holds it: then replay skips the segment.
    const covered = await Journal.open(dir, { rotateAt: 100, coveredUpTo: 1 });
    expect((await replayAll(covered, 1)).map(([seq]) => seq)).toEqual([2, 3]);
    await covered.close();
  });

  it('rejects a commit whose write fails, naming file and byte, and keeps no trace of it', async () => {
    const dir = await tempDir();
    const proto = await fileHandlePrototype(dir);
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }]);
    vi.spyOn(proto, 'writev').mockRejectedValueOnce(new Error('EIO: i/o error, write'));
    const failed = await journal.append([{ lost: 1 }, { lost: 2 }]).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(JournalError);
    expect((failed as Error).message).toMatch(/000000000001\.log at byte \d+ failed: EIO/);
    // A failed fsync is as bad as a failed write: the records were never acknowledged.
    vi.spyOn(proto, 'datasync').mockRejectedValueOnce(new Error('EIO: i/o error, fsync'));
    await expect(journal.append([{ lost: 3 }])).rejects.toThrow(/failed: EIO: i\/o error, fsync/);
    expect(await journal.append([{ a: 2 }])).toEqual([2]);
    await journal.close();
    expect(await replayedClean(dir)).toEqual([
      [1, { a: 1 }],
      [2, { a: 2 }],
    ]);
  });

  it('writes a commit larger than its buffer in several writes, checksummed and replayed as one', async () => {
    const dir = await tempDir();
    const proto = await fileHandlePrototype(dir);
    const journal = await Journal.open(dir);
    const writes = vi.spyOn(proto, 'writev');
    // Lines of many pieces past the buffer, a text piece and a bytes piece each larger than the buffer alone.
    const big = 'é'.repeat(COMMIT_BUFFER_BYTES / 2 + 7);
    const records = [
      { i: 0, text: big },
      { i: 1, text: 'x'.repeat(COMMIT_BUFFER_BYTES + 3) },
      ...Array.from({ length: 300 }, (_, i) => ({ i: i + 2, text: `€𝄞${'y'.repeat(40_000 + i)}` })),
    ];
    const lines = records.map((r, k) => {
      const json = JSON.stringify(r);
      if (k === 1) return [json.slice(0, 5), Buffer.from(json.slice(5))];
      return k % 2 ? json : [json.slice(0, 7), json.slice(7)];
    });
    expect(await journal.appendSerialized(lines)).toEqual(records.map((_r, k) => k + 1));
    expect(writes.mock.calls.length).toBeGreaterThan(4);
    await journal.close();
    // One commit line after it all, whose checksum the reopening checks.
    const text = await readFile(await onlySegment(dir), 'utf8');
    expect(text.match(/^~\d+ [0-9a-f]{8}$/gm)).toEqual([expect.stringMatching(/^~302 /)]);
    expect((await replayedClean(dir)).map(([, record]) => record)).toEqual(records);
  });

  it('rejects a commit whose later write fails, and cuts back what its earlier writes left', async () => {
    const dir = await tempDir();
    const proto = await fileHandlePrototype(dir);
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }]);
    const writev = proto.writev;
    let calls = 0;
    vi.spyOn(proto, 'writev').mockImplementation(function (this: FileHandle, ...args) {
      if (++calls === 2) return Promise.reject(new Error('EIO: i/o error, write'));
      return writev.apply(this, args);
    });
    const lost = Array.from({ length: 3 }, (_, i) => ({
      lost: i,
      text: 'z'.repeat(COMMIT_BUFFER_BYTES / 2),
    }));
    await expect(journal.append(lost)).rejects.toThrow(/failed: EIO: i\/o error, write/);
    expect(calls).toBe(2);
    vi.restoreAllMocks();
    expect(await journal.append([{ a: 2 }])).toEqual([2]);
    await journal.close();
    expect(await replayedClean(dir)).toEqual([
      [1, { a: 1 }],
      [2, { a: 2 }],
    ]);
  });

  it('stops appending when a failed write cannot be cut back', async () => {
    const dir = await tempDir();
    const proto = await fileHandlePrototype(dir);
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }]);
    vi.spyOn(proto, 'datasync').mockRejectedValueOnce(new Error('EIO: i/o error, fsync'));
    vi.spyOn(proto, 'truncate').mockRejectedValueOnce(new Error('EIO: i/o error, truncate'));
    await expect(journal.append([{ lost: 1 }])).rejects.toThrow(/EIO/);
    await expect(journal.append([{ b: 2 }])).rejects.toThrow(
      /could not be cut back.*refusing further appends/,
    );
    await journal.close();
    // The written but unacknowledged commit may surface after a reopen; everything acknowledged does.
    const reopened = await Journal.open(dir);
    expect((await replayAll(reopened))[0]).toEqual([1, { a: 1 }]);
    await reopened.close();
  });

  it('keeps the active segment however far compaction reaches', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, { rotateAt: 100 });
    for (let i = 1; i <= 4; i++) await journal.append([{ i, pad: 'x'.repeat(120) }]);
    await journal.compact(1000);
    expect(await segments(dir)).toEqual(['000000000004.log']);
    await journal.close();
    const reopened = await Journal.open(dir, { rotateAt: 100 });
    expect(reopened.lastSeq).toBe(4);
    expect(await reopened.append([{ i: 5 }])).toEqual([5]);
    await reopened.close();
  });

  it('recovers exactly the committed records from a cut at any byte of the final commit', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir);
    await journal.append([{ a: 1 }, { a: 2 }]);
    await journal.close();
    const file = await onlySegment(dir);
    const committed = await readFile(file);
    const reopened = await Journal.open(dir);
    await reopened.append([{ b: 3, pad: 'é'.repeat(40) }, { b: 4 }]);
    await reopened.close();
    const full = await readFile(file);
    for (let cut = committed.length; cut < full.length; cut++) {
      await writeFile(file, full.subarray(0, cut));
      const torn = await Journal.open(dir);
      expect(torn.lastSeq).toBe(2);
      expect(torn.recovered?.droppedBytes ?? 0).toBe(cut - committed.length);
      expect((await replayAll(torn)).map(([seq]) => seq)).toEqual([1, 2]);
      await torn.close();
      expect(await readFile(file)).toEqual(committed);
    }
    // Every cut kept its own copy.
    expect(await readdir(path.join(dir, 'quarantine'))).toHaveLength(full.length - committed.length - 1);
  });

  it('keeps every acknowledged record through repeated SIGKILLs of a writing process', async () => {
    const dir = await tempDir();
    const rotateAt = 256 * 1024;
    const fixture = path.join(here, 'fixtures', 'journal-writer.ts');
    const acked = new Map<number, number>();
    for (let round = 0; round < 3; round++) {
      const before = acked.size;
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, String(rotateAt)], {
        cwd: path.resolve(here, '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let buffered = '';
      let armed = false;
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buffered += d;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const [seq, n] = buffered.slice(0, nl).split(' ').map(Number);
          acked.set(seq, n);
          buffered = buffered.slice(nl + 1);
        }
        // Killed at a random moment after enough acknowledgements: between writes, mid-write or mid-fsync.
        if (acked.size - before >= 60 && !armed) {
          armed = true;
          setTimeout(() => child.kill('SIGKILL'), Math.random() * 100);
        }
      });
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (c, s) => resolve([c, s]));
      });
      expect({ code, signal, stderr: signal ? '' : stderr }).toEqual({
        code: null,
        signal: 'SIGKILL',
        stderr: '',
      });

      const journal = await Journal.open(dir, { rotateAt });
      const found = new Map<number, CrashRecord>();
      let last = 0;
      await journal.replay(0, (seq, record) => {
        expect(seq).toBe(last + 1);
        last = seq;
        found.set(seq, record as CrashRecord);
      });
      expect(journal.lastSeq).toBe(last);
      expect(last).toBeGreaterThanOrEqual(Math.max(...acked.keys()));
      for (const [seq, n] of acked) expect(found.get(seq)).toEqual(crashRecord(n));
      await journal.close();
    }
    expect((await segments(dir)).length).toBeGreaterThan(1);
  });
});
