// The embedded bus's append-only journal: segment files under one folder, each opened by a header line,
// then one record per line, `<seq> <json>\n`, each group commit closed by `~<last seq> <crc32 hex of the
// commit's record lines>\n`. Appends are group-committed (one write and one fsync for all queued) and
// resolve only once synced; a commit is all or nothing.
// On open, the unfinished last write of a crash (records without their commit line) is cut off, with a
// copy kept under `quarantine/`: it was never acknowledged. Damage to whole commits, which may have been
// acknowledged, stops the open with what was lost, unless the operator asked for a repair
// (docs/operations.md).
// The files' format and reading are in journal-segments.ts, what damage lost in journal-damage.ts.
import { mkdir, open, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';

import { writePiece, type JsonPiece } from '../ingest/envelope-json.js';
import { describeProblem, OWNER_FILE, type JournalOwner } from './journal-damage.js';
import {
  commitLine,
  createSegment,
  decodeHead,
  isHeader,
  JournalDamage,
  JournalError,
  lastCommitOf,
  listSegments,
  NEWLINE,
  QUARANTINE_DIR,
  quarantineBytes,
  readBytes,
  readLines,
  scanSegment,
  SEGMENT_BYTES,
  SEGMENT_HEADER,
  segmentFile,
  STORE_ADVICE,
  syncDir,
  truncateFile,
  type JournalRecovery,
  type Segment,
  type SegmentRange,
} from './journal-segments.js';

export * from './journal-segments.js';
export * from './journal-damage.js';

/**
 * The commit buffer's size: a commit's text is encoded into it and written out each time it is full. A buffer
 * as large as the largest commit (a 30 MiB report's) was fresh memory each time it grew, touched page by page
 * on the event loop, and was kept to the process's end. One buffer, kept: a fresh one per commit was memory
 * outside V8's heap that started full collections (docs/perf.md, "Fifth session: external memory").
 */
export const COMMIT_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * One record's JSON line (without its newline), or its pieces in order: a record spliced from pieces (the
 * bus's record fields around an ingest chunk's JSON) is encoded piece by piece into the commit buffer, never
 * joined into one string first (docs/perf.md, "The journal writes a record's pieces without joining them").
 * Each piece is encoded alone, so none may end or begin inside a surrogate pair; a piece that is bytes (an
 * ingest worker's, envelope-json.ts) is UTF-8 already and copied as it is.
 */
export type SerializedLine = string | readonly JsonPiece[];

/** A line's length in UTF-16 code units (UTF-8 bytes for a piece that is bytes), pieces summed. */
export function lineLength(line: SerializedLine): number {
  if (typeof line === 'string') return line.length;
  let length = 0;
  for (const piece of line) length += piece.length;
  return length;
}

const LINE_FEED = 0x0a;

const isEmpty = (line: SerializedLine) => lineLength(line) === 0;
const holdsNewline = (line: SerializedLine) =>
  typeof line === 'string'
    ? line.includes('\n')
    : line.some((piece) => (typeof piece === 'string' ? piece.includes('\n') : piece.includes(LINE_FEED)));

interface Pending {
  lines: readonly SerializedLine[];
  resolve: (seqs: number[]) => void;
  reject: (error: Error) => void;
}

export interface JournalOpenOptions {
  rotateAt?: number;
  /**
   * The highest seq already used elsewhere (the snapshots' seqs): numbering goes on after it even when
   * the journal ends earlier (emptied, or restored from an older backup), so no new record is taken
   * for one the snapshot already holds.
   */
  minSeq?: number;
  /** Records up to this seq are held by the snapshot being restored: damage below it loses nothing. */
  coveredUpTo?: number;
  /** Cut damaged commits too (a copy kept), keeping whole commits after them in new segments. */
  repair?: boolean;
  /** Write `OWNER_FILE` (this process) once open, and remove it on close: `verify-store` reads it. */
  owner?: boolean;
}

/** Names the process that has the journal open; left behind by a kill. */
export class Journal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** Set when a failed write could not be undone: the file's tail is unknown, so nothing more is appended. */
  private failure: JournalError | null = null;
  /** The commit buffer (COMMIT_BUFFER_BYTES), made at the first commit and reused by every commit after. */
  private commitBuffer: Buffer | undefined;
  private owner = false;

  private constructor(
    readonly dir: string,
    private segments: Segment[],
    private handle: FileHandle,
    private segmentBytes: number,
    private nextSeq: number,
    private totalBytes: number,
    private readonly rotateAt: number,
    /** What opening cut off or moved aside, each with the copy's path. */
    readonly recoveries: JournalRecovery[],
    /** The segments and their seqs as opening found (and left) them. */
    readonly ranges: SegmentRange[],
  ) {}

  /** The torn final write opening cut off, if any. */
  get recovered(): JournalRecovery | undefined {
    return this.recoveries.find((r) => r.kind === 'torn');
  }

  static async open(dir: string, options: JournalOpenOptions = {}): Promise<Journal> {
    const minSeq = options.minSeq ?? 0;
    const covered = options.coveredUpTo ?? 0;
    const repair = options.repair === true;
    await mkdir(dir, { recursive: true });
    // A segment being created when a crash came: it never held an acknowledged record.
    for (const name of await readdir(dir))
      if (/^\d{12}\.log\.tmp$/.test(name)) await rm(path.join(dir, name), { force: true });
    const found = await listSegments(dir);
    const recoveries: JournalRecovery[] = [];
    const refusals: JournalRecovery[] = [];
    const kept: SegmentRange[] = [];
    for (let i = 0; i < found.length; i++) {
      const segment = found[i];
      const next = found[i + 1];
      // Whether the segment may hold records the snapshot does not.
      const relevant = !next || next.firstSeq > covered + 1;
      const keep = (lastSeq: number) => kept.push({ ...segment, lastSeq });
      const size = (await stat(segment.file)).size;
      if (size === 0) {
        if (!relevant) {
          keep(segment.firstSeq - 1);
          continue;
        }
        const problem: JournalRecovery = {
          file: segment.file,
          offset: 0,
          droppedBytes: 0,
          kind: 'empty',
          why: 'an empty segment',
          lost: [],
          batches: [],
          unknown: true,
          quarantined: '',
          salvaged: [],
        };
        if (!repair) {
          refusals.push(problem);
          keep(segment.firstSeq - 1);
          continue;
        }
        const folder = path.join(dir, QUARANTINE_DIR);
        await mkdir(folder, { recursive: true });
        problem.quarantined = path.join(folder, `${path.basename(segment.file)}.0.cut`);
        await rename(segment.file, problem.quarantined);
        await syncDir(dir);
        recoveries.push(problem);
        continue;
      }
      if (next && !relevant) {
        // Replay skips a segment the snapshot holds whole: its final commit line says enough.
        const last = await lastCommitOf(segment.file);
        keep(
          last !== undefined && last >= segment.firstSeq - 1 && last < next.firstSeq
            ? last
            : next.firstSeq - 1,
        );
        continue;
      }
      // Every segment replay will read is read whole first, so damage stops the start before anything is
      // applied, naming what it holds.
      const scan = await scanSegment(segment.file, segment.firstSeq, { nextFirstSeq: next?.firstSeq });
      const tail = scan.tail;
      if (!tail) {
        keep(scan.lastSeq);
        continue;
      }
      // A crash tears only the newest segment's last write; in an older segment it is damage.
      const kind = tail.kind === 'torn' && !next ? 'torn' : 'damaged';
      // Damage whose records the snapshot holds loses nothing.
      const held =
        !tail.unknown &&
        tail.lost.every((r) => r.to <= covered) &&
        tail.salvage.every((s) => s.to <= covered);
      const problem: JournalRecovery = {
        file: segment.file,
        offset: tail.offset,
        droppedBytes: tail.bytes,
        kind,
        why: tail.why,
        lost: tail.lost,
        batches: tail.batches,
        unknown: tail.unknown,
        quarantined: '',
        salvaged: tail.salvage.map((s) => ({
          file: segmentFile(dir, s.from),
          firstSeq: s.from,
          lastSeq: s.to,
        })),
      };
      if (kind === 'damaged' && !held && !repair) {
        refusals.push(problem);
        keep(scan.lastSeq);
        continue;
      }
      // Whole commits after the damage go to segments of their own, before anything is cut.
      for (const s of held ? [] : tail.salvage)
        await createSegment(dir, s.from, [await readBytes(segment.file, s.start, s.end)]);
      if (held) {
        // Whole commits after the damage are cut too: the snapshot holds them as well.
        const to = Math.max(scan.lastSeq, ...tail.lost.map((r) => r.to), ...tail.salvage.map((x) => x.to));
        problem.lost = to > scan.lastSeq ? [{ from: scan.lastSeq + 1, to }] : [];
        problem.salvaged = [];
        problem.held = true;
      }
      problem.quarantined = await quarantineBytes(dir, segment.file, tail.offset, scan.size);
      await truncateFile(segment.file, tail.offset);
      recoveries.push(problem);
      keep(scan.lastSeq);
      kept.push(...problem.salvaged);
    }
    if (refusals.length) {
      throw new JournalDamage(`${refusals.map(describeProblem).join('; ')}; ${STORE_ADVICE}`, refusals);
    }
    kept.sort((x, y) => x.firstSeq - y.firstSeq);
    const lastSeq = kept.length ? kept[kept.length - 1].lastSeq : 0;
    if (!kept.length || lastSeq < minSeq) {
      // Numbering goes on after the snapshot: a new segment, so that every segment stays gapless inside.
      const firstSeq = Math.max(lastSeq, minSeq) + 1;
      kept.push({ file: await createSegment(dir, firstSeq), firstSeq, lastSeq: firstSeq - 1 });
    }
    const segments = kept.map(({ file, firstSeq }) => ({ file, firstSeq }));
    let totalBytes = 0;
    for (const s of segments) totalBytes += (await stat(s.file)).size;
    const active = segments[segments.length - 1];
    const tailBytes = (await stat(active.file)).size;
    const handle = await open(active.file, 'a');
    await syncDir(dir);
    if (options.owner) {
      const owner: JournalOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
      await writeFile(path.join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`);
    }
    const journal = new Journal(
      dir,
      segments,
      handle,
      tailBytes,
      Math.max(lastSeq, minSeq) + 1,
      totalBytes,
      options.rotateAt ?? SEGMENT_BYTES,
      recoveries,
      kept.map((r) => ({ ...r })),
    );
    journal.owner = options.owner === true;
    return journal;
  }

  /** Appends records in order; resolves with their sequence numbers once they are on disk. */
  append(records: unknown[]): Promise<number[]> {
    return this.appendSerialized(
      records.map((r) => JSON.stringify(r)),
      { stringified: true },
    );
  }

  /**
   * Appends records already serialized as single-line JSON (the bus reuses ingest's serialization). With
   * `stringified`, the caller vouches that each line is JSON.stringify output, or such outputs joined by text
   * without a newline: JSON.stringify escapes every newline, so the scan for one is skipped. The scan was
   * most of the journal's own time for a large report: it flattens each line, which the bus builds by
   * concatenation (docs/perf.md, "Tenth session").
   */
  appendSerialized(
    lines: readonly SerializedLine[],
    options: { stringified?: boolean } = {},
  ): Promise<number[]> {
    if (this.closed) return Promise.reject(new JournalError('journal: closed'));
    if (this.failure) return Promise.reject(this.failure);
    // A newline inside a record would split it on reading and make the whole journal unreadable.
    const bad = options.stringified
      ? lines.findIndex(isEmpty)
      : lines.findIndex((line) => holdsNewline(line) || isEmpty(line));
    if (bad >= 0) return Promise.reject(new JournalError(`journal: record ${bad} is not single-line JSON`));
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing) return;
    // Cleared in a callback, which runs after this assignment even when flush() finishes synchronously.
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      if (this.queue.length) this.kick();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      if (this.failure) {
        for (const pending of batch) pending.reject(this.failure);
        continue;
      }
      let seq = this.nextSeq;
      const seqs = batch.map((pending) => pending.lines.map(() => seq++));
      // Nothing to write: an empty commit would only be a line for recovery to puzzle over.
      if (seq > this.nextSeq && !(await this.commit(batch, seq - 1))) continue;
      batch.forEach((pending, i) => pending.resolve(seqs[i]));
    }
  }

  /** Writes and syncs one group commit; on failure rejects the batch, cuts the file back, returns false. */
  private async commit(batch: Pending[], lastSeq: number): Promise<boolean> {
    try {
      if (this.segmentBytes >= this.rotateAt) await this.rotate();
      // Each line's seq, then its text piece by piece, straight into the commit buffer: no joined copy of the
      // commit's text, and a piece is encoded as it is. A full buffer is written out and filled again, so a
      // commit of any size touches no memory beyond the one buffer (docs/perf.md, "The journal's commit
      // buffer"); the checksum runs over what is written, and the commit line follows it all.
      const buffer = (this.commitBuffer ??= Buffer.allocUnsafeSlow(COMMIT_BUFFER_BYTES));
      let at = 0;
      let crc = 0;
      let size = 0;
      const write = async (bytes: Uint8Array) => {
        crc = crc32(bytes, crc);
        const { bytesWritten } = await this.handle.writev([bytes]);
        if (bytesWritten !== bytes.length)
          throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
        size += bytes.length;
      };
      /** Room for `most` more bytes: the buffer written out if they would not fit. */
      const room = async (most: number) => {
        if (at + most <= buffer.length || at === 0) return;
        await write(buffer.subarray(0, at));
        at = 0;
      };
      let seq = this.nextSeq;
      for (const pending of batch)
        for (const line of pending.lines) {
          const prefix = `${seq++} `;
          if (at + prefix.length > buffer.length) await room(prefix.length);
          at += buffer.write(prefix, at, 'latin1');
          for (const piece of typeof line === 'string' ? [line] : line) {
            // UTF-8 takes at most three bytes per UTF-16 code unit.
            const most = typeof piece === 'string' ? piece.length * 3 : piece.length;
            if (at + most > buffer.length) await room(most);
            if (most <= buffer.length) at += writePiece(buffer, piece, at);
            else await write(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
          }
          if (at + 1 > buffer.length) await room(1);
          buffer[at++] = LINE_FEED;
        }
      const text = buffer.subarray(0, at);
      crc = crc32(text, crc);
      const buffers = [text, Buffer.from(commitLine(lastSeq, crc), 'utf8')];
      const last = at + buffers[1].length;
      const { bytesWritten } = await this.handle.writev(buffers);
      if (bytesWritten !== last) throw new Error(`short write: ${bytesWritten} of ${last} bytes`);
      size += last;
      await this.handle.datasync();
      this.nextSeq = lastSeq + 1;
      this.segmentBytes += size;
      this.totalBytes += size;
      return true;
    } catch (error) {
      const file = this.activeFile;
      const failure = new JournalError(
        `journal: write to ${file} at byte ${this.segmentBytes} failed: ${(error as Error).message}`,
        { cause: error },
      );
      // Cut whatever of this commit reached the file, so that no unacknowledged record is replayed.
      try {
        await this.handle.truncate(this.segmentBytes);
        await this.handle.datasync();
      } catch (undo) {
        this.failure = new JournalError(
          `journal: ${file} could not be cut back to byte ${this.segmentBytes} after a failed write (${(undo as Error).message}); refusing further appends until reopened`,
          { cause: error },
        );
      }
      for (const pending of batch) pending.reject(failure);
      return false;
    }
  }

  private get activeFile(): string {
    return this.segments[this.segments.length - 1].file;
  }

  private async rotate(): Promise<void> {
    // Create the next segment whole first: if that fails, the current one stays usable.
    const segment = { firstSeq: this.nextSeq, file: await createSegment(this.dir, this.nextSeq) };
    const handle = await open(segment.file, 'a');
    await this.handle.close();
    this.handle = handle;
    this.segments.push(segment);
    this.segmentBytes = SEGMENT_HEADER.length;
    this.totalBytes += SEGMENT_HEADER.length;
  }

  /** Calls `onRecord` for every committed record with seq > afterSeq, in order, awaiting each. */
  async replay(
    afterSeq: number,
    onRecord: (seq: number, record: unknown) => void | Promise<void>,
  ): Promise<number> {
    let count = 0;
    // Read only what was committed when the replay began: appends may go on meanwhile.
    const segments = [...this.segments];
    const activeBytes = this.segmentBytes;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      const next = segments[i + 1];
      if (next && next.firstSeq <= afterSeq + 1) continue;
      const damaged = (offset: number, why: string) =>
        new JournalError(`journal: ${segment.file} is damaged at byte ${offset}: ${why}; ${STORE_ADVICE}`);
      let expected = segment.firstSeq - 1;
      let crc = 0;
      let pending: { seq: number; json: string }[] = [];
      let uncommitted = 0;
      let pendingAt = 0;
      for await (const line of readLines(segment.file, next ? {} : { end: activeBytes })) {
        if (!line.terminated) throw damaged(line.offset, 'unterminated last line');
        if (isHeader(line)) continue;
        const head = decodeHead(line.text);
        if (head?.kind === 'record') {
          if (head.seq !== expected + 1)
            throw damaged(line.offset, `record ${head.seq} where ${expected + 1} was due`);
          if (!uncommitted++) pendingAt = line.offset;
          crc = crc32(NEWLINE, crc32(line.text, crc));
          expected = head.seq;
          if (head.seq > afterSeq)
            pending.push({ seq: head.seq, json: line.text.toString('utf8', head.jsonAt) });
          continue;
        }
        if (head?.kind !== 'commit') throw damaged(line.offset, 'neither a record nor a commit line');
        if (head.crc !== crc || head.lastSeq !== expected)
          throw damaged(line.offset, 'commit does not match its records');
        for (const record of pending) {
          let value: unknown;
          try {
            value = JSON.parse(record.json);
          } catch (error) {
            throw damaged(pendingAt, `record ${record.seq} is not JSON (${(error as Error).message})`);
          }
          await onRecord(record.seq, value);
          count++;
        }
        pending = [];
        uncommitted = 0;
        crc = 0;
      }
      if (uncommitted) throw damaged(pendingAt, 'records without a commit line at the end');
    }
    return count;
  }

  /** Deletes whole segments whose records all have seq <= uptoSeq; the active segment stays. */
  async compact(uptoSeq: number): Promise<number> {
    let removed = 0;
    while (this.segments.length > 1 && this.segments[1].firstSeq <= uptoSeq + 1) {
      const gone = this.segments[0];
      const size = (await stat(gone.file)).size;
      await rm(gone.file, { force: true });
      this.segments.shift();
      this.totalBytes -= size;
      removed++;
    }
    if (removed) await syncDir(this.dir);
    return removed;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.handle.close();
    if (this.owner) await rm(path.join(this.dir, OWNER_FILE), { force: true });
  }
}
