import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Journal, SEGMENT_HEADER, uncovered } from '../../src/bus/journal.js';
import { PREVIOUS_SNAPSHOT_FILE, SNAPSHOT_FILE, writeSnapshot } from '../../src/bus/snapshot-file.js';
import { inspectStore, openStore, StoreError } from '../../src/bus/store.js';
import { tempDir } from '../helpers/service.js';

function stubLog() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

async function collect(lines: AsyncIterable<string>) {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

async function replaySeqs(journal: Journal, afterSeq: number) {
  const seqs: number[] = [];
  await journal.replay(afterSeq, (seq) => {
    seqs.push(seq);
  });
  return seqs;
}

/** A data dir with `count` journal records in small segments. */
async function store(count: number, rotateAt = 200) {
  const dataDir = await tempDir();
  const journalDir = path.join(dataDir, 'journal');
  const journal = await Journal.open(journalDir, { rotateAt });
  for (let i = 1; i <= count; i++) await journal.append([{ i, pad: 'x'.repeat(60) }]);
  return { dataDir, journalDir, stateDir: path.join(dataDir, 'state'), journal };
}

async function segments(dir: string) {
  return (await readdir(dir)).filter((f) => f.endsWith('.log')).sort();
}

describe('opening the store', () => {
  it('falls back on the previous snapshot when the current one is damaged and the journal was compacted', async () => {
    const { dataDir, journalDir, stateDir, journal } = await store(30);
    await writeSnapshot(stateDir, { seq: 10 }, ['{"at":10}']);
    const { previousSeq } = await writeSnapshot(stateDir, { seq: 20 }, ['{"at":20}']);
    expect(previousSeq).toBe(10);
    // As the engine does: only what the previous snapshot holds is compacted.
    await journal.compact(previousSeq!);
    await journal.close();
    expect(Number((await segments(journalDir))[0].slice(0, 12))).toBeGreaterThan(1);
    const current = path.join(stateDir, SNAPSHOT_FILE);
    await writeFile(current, (await readFile(current, 'utf8')).replace('"at":20', '"at":21'));
    const report = await inspectStore(dataDir);
    expect(report).toMatchObject({ healthy: false, start: { outcome: 'start', afterSeq: 10, replays: 20 } });
    expect(report.problems).toEqual([
      expect.stringMatching(
        /snapshot\.ndjson is damaged .*; nothing is lost: the journal holds every record after .*snapshot\.previous\.ndjson \(seq 10\)$/,
      ),
    ]);

    const log = stubLog();
    const opened = await openStore({ dataDir, log, rotateAt: 200 });
    expect(opened.afterSeq).toBe(10);
    expect(opened.snapshot?.file).toBe(path.join(stateDir, PREVIOUS_SNAPSHOT_FILE));
    expect(await collect(opened.snapshot!.lines)).toEqual(['{"at":10}']);
    expect(await replaySeqs(opened.journal, 10)).toEqual(Array.from({ length: 20 }, (_, i) => i + 11));
    expect(opened.journal.lastSeq).toBe(30);
    expect(log.warn.mock.calls.map((c) => c[1]).join('\n')).toMatch(
      /snapshot\.ndjson is damaged \(the trailer does not match the content\); moved to .*quarantine.*restoring .*snapshot\.previous\.ndjson \(seq 10\)/,
    );
    await opened.journal.close();
  });

  it('refuses when both snapshots are damaged and the journal no longer starts at 1', async () => {
    const { dataDir, stateDir, journal } = await store(30);
    await writeSnapshot(stateDir, { seq: 10 }, ['{"at":10}']);
    await writeSnapshot(stateDir, { seq: 20 }, ['{"at":20}']);
    await journal.compact(10);
    await journal.close();
    for (const name of [SNAPSHOT_FILE, PREVIOUS_SNAPSHOT_FILE]) {
      const file = path.join(stateDir, name);
      await writeFile(file, (await readFile(file, 'utf8')).replace('"at"', '"At"'));
    }
    const error = await openStore({ dataDir, rotateAt: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      /^refusing to start: the journal starts at seq \d+ and there is no intact snapshot: \d+ records 1-\d+, compacted into a snapshot that is now missing or damaged, are lost and were acknowledged; .*snapshot\.ndjson is damaged/,
    );
    // Nothing was moved: the operator decides.
    expect((await readdir(stateDir)).sort()).toEqual([SNAPSHOT_FILE, PREVIOUS_SNAPSHOT_FILE].sort());
  });

  it('numbers on after the highest snapshot seq, in a new segment, so every segment stays gapless', async () => {
    const { dataDir, journalDir, stateDir, journal } = await store(3, 1 << 20);
    await journal.close();
    await writeSnapshot(stateDir, { seq: 50 }, []);
    const opened = await openStore({ dataDir });
    expect(opened.journal.lastSeq).toBe(50);
    expect(await opened.journal.append([{ next: true }])).toEqual([51]);
    await opened.journal.close();
    expect(await segments(journalDir)).toEqual(['000000000001.log', '000000000051.log']);
    const reopened = await Journal.open(journalDir);
    expect(await replaySeqs(reopened, 0)).toEqual([1, 2, 3, 51]);
    await reopened.close();
  });

  it('keeps the whole commits after damage in a segment of their own on repair, and says what went', async () => {
    const { dataDir, journalDir, journal } = await store(6, 1 << 20);
    await journal.close();
    const [name] = await segments(journalDir);
    const file = path.join(journalDir, name);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('{"i":3,', '{"i":9,'));

    await expect(openStore({ dataDir })).rejects.toThrow(
      /damaged at byte \d+ \(commit line ~3 does not match its records at byte \d+\): record 3 committed, and may have been acknowledged; the 3 whole records after it \(seqs 4-6\) are intact/,
    );
    const report = await inspectStore(dataDir);
    expect(report.healthy).toBe(false);
    expect(report.start.outcome).toBe('refuse');
    expect(report.segments[0].tail).toMatchObject({ kind: 'damaged', lost: [{ from: 3, to: 3 }] });

    const log = stubLog();
    const opened = await openStore({ dataDir, repair: true, log });
    expect(log.error.mock.calls.map((c) => c[1]).join('\n')).toMatch(
      /record 3 committed, and may have been acknowledged; the 3 whole records after it \(seqs 4-6\) were kept; a copy is in .*quarantine/,
    );
    expect(await segments(journalDir)).toEqual(['000000000001.log', '000000000004.log']);
    expect(
      (await readFile(path.join(journalDir, '000000000004.log'), 'utf8')).startsWith(SEGMENT_HEADER),
    ).toBe(true);
    expect(await replaySeqs(opened.journal, 0)).toEqual([1, 2, 4, 5, 6]);
    expect(await opened.journal.append([{ next: true }])).toEqual([7]);
    await opened.journal.close();
    // The gap is known now: a plain start refuses until a snapshot covers it.
    await expect(openStore({ dataDir })).rejects.toThrow(/the journal lacks record 3 /);
  });

  it('cuts damage the snapshot already holds without refusing, keeping a copy', async () => {
    const { dataDir, journalDir, stateDir, journal } = await store(5, 1 << 20);
    await journal.close();
    await writeSnapshot(stateDir, { seq: 5 }, []);
    const [name] = await segments(journalDir);
    const file = path.join(journalDir, name);
    await writeFile(file, (await readFile(file, 'utf8')).replace('{"i":3,', '{"i":8,'));
    const log = stubLog();
    const opened = await openStore({ dataDir, log });
    expect(log.error).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls.map((c) => c[1]).join('\n')).toMatch(
      /is damaged at byte \d+ .*3 records 3-5 which the snapshot holds: nothing is lost; a copy is in .*quarantine/,
    );
    expect(await opened.journal.append([{ next: true }])).toEqual([6]);
    await opened.journal.close();
    expect(await readdir(path.join(journalDir, 'quarantine'))).toHaveLength(1);
  });

  it('refuses damage in an older segment before replaying anything, and a repair keeps the rest', async () => {
    const { dataDir, journalDir, journal } = await store(12);
    await journal.close();
    const names = await segments(journalDir);
    expect(names.length).toBeGreaterThan(3);
    const file = path.join(journalDir, names[1]);
    const firstSeq = Number(names[1].slice(0, 12));
    await writeFile(file, (await readFile(file, 'utf8')).replace(`{"i":${firstSeq},`, '{"i":0,'));
    await expect(openStore({ dataDir, rotateAt: 200 })).rejects.toThrow(
      new RegExp(
        `${names[1].replace('.', '\\.')} is damaged at byte 20 .*record ${firstSeq} committed, and may have been acknowledged`,
      ),
    );
    const opened = await openStore({ dataDir, rotateAt: 200, repair: true });
    const seqs = await replaySeqs(opened.journal, 0);
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1).filter((seq) => seq !== firstSeq));
    await opened.journal.close();
  });

  it('reports a healthy store, and what a start would replay', async () => {
    const { dataDir, stateDir, journal } = await store(12);
    await journal.close();
    await writeSnapshot(stateDir, { seq: 5 }, []);
    const report = await inspectStore(dataDir);
    expect(report).toMatchObject({
      healthy: true,
      gaps: [],
      problems: [],
      start: { outcome: 'start', afterSeq: 5, replays: 7, nextSeq: 13 },
    });
    expect(report.snapshots.map((s) => s.status)).toEqual(['intact', 'absent']);
    expect(report.segments.at(-1)!.lastSeq).toBe(12);
  });

  it('says a torn last write will be cut, and that it was never acknowledged, without calling it a problem', async () => {
    const { dataDir, journalDir, journal } = await store(2, 1 << 20);
    await journal.close();
    const [name] = await segments(journalDir);
    await writeFile(
      path.join(journalDir, name),
      `${await readFile(path.join(journalDir, name), 'utf8')}3 {"i":3`,
    );
    const report = await inspectStore(dataDir);
    expect(report.healthy).toBe(true);
    expect(report.notes.join('\n')).toContain('the unfinished last write of a crash');
    expect(report.start.actions.join('\n')).toMatch(/cut 8 bytes off .* never acknowledged/);
  });

  it('finds gaps only after the snapshot being restored', () => {
    const ranges = [
      { file: 'a', firstSeq: 1, lastSeq: 10 },
      { file: 'b', firstSeq: 11, lastSeq: 20 },
      { file: 'c', firstSeq: 31, lastSeq: 40 },
      { file: 'd', firstSeq: 41, lastSeq: 40 },
    ];
    expect(uncovered(ranges, 0, 40)).toEqual([{ from: 21, to: 30 }]);
    expect(uncovered(ranges, 30, 40)).toEqual([]);
    expect(uncovered(ranges, 0, 45)).toEqual([
      { from: 21, to: 30 },
      { from: 41, to: 45 },
    ]);
    expect(uncovered(ranges.slice(2), 0, 40)).toEqual([{ from: 1, to: 30 }]);
  });

  it('takes no new segment or refusal for a store that was never used', async () => {
    const dataDir = await tempDir();
    const opened = await openStore({ dataDir });
    expect(opened.afterSeq).toBe(0);
    expect(await opened.journal.append([{ a: 1 }])).toEqual([1]);
    await opened.journal.close();
    await rm(path.join(dataDir, 'state'), { recursive: true, force: true });
    expect((await inspectStore(dataDir)).healthy).toBe(true);
  });
});
