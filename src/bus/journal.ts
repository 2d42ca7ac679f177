// The embedded bus's append-only journal: segment files under one folder, one record per line,
// `<seq> <json>\n`, each group commit closed by `~<last seq> <crc32 hex of the commit's record lines>\n`.
// Appends are group-committed (one write and one fsync for all queued) and resolve only once synced; a
// commit is all or nothing. On open, a torn final commit (a crash mid-write) is cut off; damage anywhere
// else stops the open with the file and offset, rather than silently dropping acknowledged data.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** A segment is rotated once it holds this much; one batch may overshoot it. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
const SEGMENT_NAME = /^(\d{12})\.log$/;
const NEWLINE = Buffer.from('\n');
/** Record text is encoded in pieces of about this many characters, far below V8's string limit. */
const ENCODE_PIECE = 4 * 1024 * 1024;

interface Segment {
  firstSeq: number;
  file: string;
}

interface Pending {
  lines: string[];
  resolve: (seqs: number[]) => void;
  reject: (error: Error) => void;
}

export class JournalError extends Error {}

/** What opening cut off the end of the active segment: an unacknowledged, torn final write. */
export interface JournalRecovery {
  file: string;
  offset: number;
  droppedBytes: number;
}

function segmentFile(dir: string, firstSeq: number): string {
  return path.join(dir, `${String(firstSeq).padStart(12, '0')}.log`);
}

function commitLine(lastSeq: number, crc: number): string {
  return `~${lastSeq} ${crc.toString(16).padStart(8, '0')}\n`;
}

function digits(buf: Buffer, from: number, to: number): number | undefined {
  if (to <= from || to - from > 15) return undefined;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = buf[i];
    if (c < 48 || c > 57) return undefined;
    n = n * 10 + c - 48;
  }
  return n;
}

type Head =
  | { kind: 'record'; seq: number; jsonAt: number }
  | { kind: 'commit'; lastSeq: number; crc: number }
  | undefined;

/** Reads a line's head without decoding its JSON. */
function decodeHead(line: Buffer): Head {
  if (line[0] === 126 /* ~ */) {
    const space = line.indexOf(32);
    const lastSeq = digits(line, 1, space);
    if (space < 0 || lastSeq === undefined || line.length !== space + 9) return undefined;
    const hex = line.toString('latin1', space + 1);
    return /^[0-9a-f]{8}$/.test(hex) ? { kind: 'commit', lastSeq, crc: Number.parseInt(hex, 16) } : undefined;
  }
  const space = line.indexOf(32);
  const seq = space < 0 ? undefined : digits(line, 0, space);
  return seq === undefined ? undefined : { kind: 'record', seq, jsonAt: space + 1 };
}

export interface FileLine {
  /** The line without its `\n`. */
  text: Buffer;
  /** Byte offset of the line in the file. */
  offset: number;
  /** False for a last line without a `\n`. */
  terminated: boolean;
}

/**
 * Streams a file's lines, split on `\n` only (a line may be far longer than a read). `end` is exclusive.
 * Yielded buffers stay valid after the next line is read.
 */
export async function* readLines(
  file: string,
  range: { start?: number; end?: number } = {},
): AsyncGenerator<FileLine> {
  const start = range.start ?? 0;
  if (range.end !== undefined && range.end <= start) return;
  const input = createReadStream(file, {
    start,
    ...(range.end === undefined ? {} : { end: range.end - 1 }),
    highWaterMark: 1024 * 1024,
  });
  let parts: Buffer[] = [];
  let partBytes = 0;
  let offset = start;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      let text = chunk.subarray(from, nl);
      if (parts.length) {
        parts.push(text);
        text = Buffer.concat(parts, partBytes + text.length);
        parts = [];
        partBytes = 0;
      }
      yield { text, offset, terminated: true };
      offset += text.length + 1;
      from = nl + 1;
    }
    if (from < chunk.length) {
      parts.push(chunk.subarray(from));
      partBytes += chunk.length - from;
    }
  }
  if (parts.length) yield { text: Buffer.concat(parts, partBytes), offset, terminated: false };
}

export class Journal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** Set when a failed write could not be undone: the file's tail is unknown, so nothing more is appended. */
  private failure: JournalError | null = null;

  private constructor(
    readonly dir: string,
    private segments: Segment[],
    private handle: FileHandle,
    private segmentBytes: number,
    private nextSeq: number,
    private totalBytes: number,
    private readonly rotateAt: number,
    /** Set when opening cut off a torn final write. */
    readonly recovered: JournalRecovery | undefined,
  ) {}

  static async open(dir: string, options: { rotateAt?: number } = {}): Promise<Journal> {
    await mkdir(dir, { recursive: true });
    const segments = (await readdir(dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ firstSeq: Number(m[1]), file: path.join(dir, m[0]) }))
      .sort((x, y) => x.firstSeq - y.firstSeq);
    let nextSeq = 1;
    let totalBytes = 0;
    let tailBytes = 0;
    let recovered: JournalRecovery | undefined;
    if (segments.length) {
      const last = segments[segments.length - 1];
      const tail = await Journal.recoverTail(last);
      nextSeq = tail.lastSeq + 1;
      tailBytes = tail.bytes;
      recovered = tail.recovered;
      for (const s of segments.slice(0, -1)) totalBytes += (await stat(s.file)).size;
      totalBytes += tailBytes;
    } else {
      segments.push({ firstSeq: 1, file: segmentFile(dir, 1) });
    }
    const handle = await open(segments[segments.length - 1].file, 'a');
    await syncDir(dir);
    return new Journal(
      dir,
      segments,
      handle,
      tailBytes,
      nextSeq,
      totalBytes,
      options.rotateAt ?? SEGMENT_BYTES,
      recovered,
    );
  }

  /** Validates the active segment commit by commit, cutting off a torn final commit. */
  private static async recoverTail(
    segment: Segment,
  ): Promise<{ lastSeq: number; bytes: number; recovered?: JournalRecovery }> {
    let committedAt = 0;
    let lastSeq = segment.firstSeq - 1;
    let expected = lastSeq;
    let crc = 0;
    let end = 0;
    let damaged = false;
    for await (const line of readLines(segment.file)) {
      end = line.offset + line.text.length + (line.terminated ? 1 : 0);
      if (damaged) continue;
      const head = line.terminated ? decodeHead(line.text) : undefined;
      if (head?.kind === 'record' && head.seq === expected + 1) {
        crc = crc32(NEWLINE, crc32(line.text, crc));
        expected = head.seq;
      } else if (head?.kind === 'commit' && head.lastSeq === expected && head.crc === crc) {
        lastSeq = expected;
        committedAt = end;
        crc = 0;
      } else {
        damaged = true;
      }
    }
    if (end === committedAt) return { lastSeq, bytes: committedAt };
    // A crash tears only the last write, so whatever follows the last good commit must be one
    // unfinished commit: if a commit that was (or may have been) acknowledged lies beyond it, refuse.
    const committedLater = await Journal.commitAfter(segment.file, committedAt);
    if (committedLater !== undefined) {
      throw new JournalError(
        `journal: ${segment.file} is damaged at byte ${committedAt}, with committed records after it (a commit ends at byte ${committedLater}); refusing to drop them`,
      );
    }
    const handle = await open(segment.file, 'r+');
    try {
      await handle.truncate(committedAt);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return {
      lastSeq,
      bytes: committedAt,
      recovered: { file: segment.file, offset: committedAt, droppedBytes: end - committedAt },
    };
  }

  /**
   * Where a commit line ends that is followed by more data, or that closes a run of consecutive records
   * matching its checksum, past `from`; undefined when the tail is at most one unfinished commit.
   */
  private static async commitAfter(file: string, from: number): Promise<number | undefined> {
    let runLast: number | undefined;
    let runCrc = 0;
    let lastCommitEnd: number | undefined;
    for await (const line of readLines(file, { start: from })) {
      const end = line.offset + line.text.length + 1;
      if (lastCommitEnd !== undefined && line.text.length > 0) return lastCommitEnd;
      const head = line.terminated ? decodeHead(line.text) : undefined;
      if (head?.kind === 'record') {
        if (runLast === undefined || head.seq !== runLast + 1) runCrc = 0;
        runCrc = crc32(NEWLINE, crc32(line.text, runCrc));
        runLast = head.seq;
        continue;
      }
      if (head?.kind === 'commit' || line.text[0] === 126) {
        if (head?.kind === 'commit' && head.lastSeq === runLast && head.crc === runCrc) return end;
        lastCommitEnd = end;
      }
      runLast = undefined;
    }
    return undefined;
  }

  /** Appends records in order; resolves with their sequence numbers once they are on disk. */
  append(records: unknown[]): Promise<number[]> {
    return this.appendSerialized(records.map((r) => JSON.stringify(r)));
  }

  /** Appends records already serialized as single-line JSON (the bus reuses ingest's serialization). */
  appendSerialized(lines: string[]): Promise<number[]> {
    if (this.closed) return Promise.reject(new JournalError('journal: closed'));
    if (this.failure) return Promise.reject(this.failure);
    // A newline inside a record would split it on reading and make the whole journal unreadable.
    const bad = lines.findIndex((line) => line.includes('\n') || line.length === 0);
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
      const buffers: Buffer[] = [];
      let crc = 0;
      let seq = this.nextSeq;
      let piece: string[] = [];
      let pieceChars = 0;
      const cut = () => {
        const buffer = Buffer.from(piece.join(''), 'utf8');
        crc = crc32(buffer, crc);
        buffers.push(buffer);
        piece = [];
        pieceChars = 0;
      };
      for (const pending of batch) {
        for (const json of pending.lines) {
          const line = `${seq++} ${json}\n`;
          piece.push(line);
          pieceChars += line.length;
          if (pieceChars >= ENCODE_PIECE) cut();
        }
      }
      if (piece.length) cut();
      buffers.push(Buffer.from(commitLine(lastSeq, crc), 'utf8'));
      const size = buffers.reduce((sum, b) => sum + b.length, 0);
      const { bytesWritten } = await this.handle.writev(buffers);
      if (bytesWritten !== size) throw new Error(`short write: ${bytesWritten} of ${size} bytes`);
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
    const segment = { firstSeq: this.nextSeq, file: segmentFile(this.dir, this.nextSeq) };
    // Open the next segment first: if that fails, the current one stays usable.
    const handle = await open(segment.file, 'a');
    await syncDir(this.dir);
    await this.handle.close();
    this.handle = handle;
    this.segments.push(segment);
    this.segmentBytes = 0;
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
        new JournalError(`journal: ${segment.file} is damaged at byte ${offset}: ${why}`);
      let expected = segment.firstSeq - 1;
      let crc = 0;
      let pending: { seq: number; json: string }[] = [];
      let uncommitted = 0;
      let pendingAt = 0;
      for await (const line of readLines(segment.file, next ? {} : { end: activeBytes })) {
        if (!line.terminated) throw damaged(line.offset, 'unterminated last line');
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
  }
}

/** Makes a rename, creation or deletion in `dir` durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
