// The embedded bus's append-only journal: segment files under one folder, one record per line,
// `<seq> <json>\n`, each group commit closed by `~<last seq> <crc32 hex of the commit's record lines>\n`.
// Appends are group-committed (one write and one fsync for all queued) and resolve only once synced; a
// commit is all or nothing. On open, a torn final commit (a crash mid-write) is cut off; damage anywhere
// else stops the open with the file and offset, rather than silently dropping acknowledged data.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';

/** A segment is rotated once it holds this much; one batch may overshoot it. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
const SEGMENT_NAME = /^(\d{12})\.log$/;

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

function commitLine(lastSeq: number, crc: number): string {
  return `~${lastSeq} ${crc.toString(16).padStart(8, '0')}\n`;
}

type Line =
  | { kind: 'record'; seq: number; json: string }
  | { kind: 'commit'; lastSeq: number; crc: number }
  | undefined;

function decode(line: string): Line {
  if (line.startsWith('~')) {
    const space = line.indexOf(' ');
    const lastSeq = Number(line.slice(1, space));
    const crc = Number.parseInt(line.slice(space + 1), 16);
    return space > 1 && Number.isSafeInteger(lastSeq) && line.length === space + 9 && !Number.isNaN(crc)
      ? { kind: 'commit', lastSeq, crc }
      : undefined;
  }
  const space = line.indexOf(' ');
  const seq = Number(line.slice(0, space));
  return space > 0 && Number.isSafeInteger(seq)
    ? { kind: 'record', seq, json: line.slice(space + 1) }
    : undefined;
}

export class Journal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    readonly dir: string,
    private segments: Segment[],
    private handle: FileHandle,
    private segmentBytes: number,
    private nextSeq: number,
    private totalBytes: number,
    private readonly rotateAt: number,
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
    if (segments.length) {
      const last = segments[segments.length - 1];
      const recovered = await Journal.recoverTail(last);
      nextSeq = recovered.lastSeq === null ? last.firstSeq : recovered.lastSeq + 1;
      tailBytes = recovered.bytes;
      for (const s of segments.slice(0, -1)) totalBytes += (await stat(s.file)).size;
      totalBytes += tailBytes;
    } else {
      segments.push({ firstSeq: 1, file: path.join(dir, `${String(1).padStart(12, '0')}.log`) });
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
    );
  }

  /** Validates the active segment commit by commit, cutting off a torn final commit. */
  private static async recoverTail(segment: Segment): Promise<{ lastSeq: number | null; bytes: number }> {
    const buffer = await readFile(segment.file);
    let offset = 0;
    let committedAt = 0;
    let lastSeq: number | null = null;
    let expected: number | null = null;
    let crc = 0;
    let torn = false;
    while (offset < buffer.length) {
      const end = buffer.indexOf(10, offset);
      if (end < 0) {
        torn = true;
        break;
      }
      const line = decode(buffer.toString('utf8', offset, end));
      if (line?.kind === 'record' && (expected === null || line.seq === expected + 1)) {
        crc = crc32(buffer.subarray(offset, end + 1), crc);
        expected = line.seq;
      } else if (line?.kind === 'commit' && line.lastSeq === expected && line.crc === crc) {
        lastSeq = expected;
        committedAt = end + 1;
        crc = 0;
      } else {
        torn = true;
        break;
      }
      offset = end + 1;
    }
    if (torn || committedAt < buffer.length) {
      // Only the last commit may be damaged: a crash can tear the last write, nothing before it.
      // Torn: the last commit's records, maybe its (bad) commit line, and nothing after that line.
      const rest = buffer.toString('utf8', committedAt).split('\n');
      const commitAt = rest.findIndex((line) => line.startsWith('~'));
      if (commitAt >= 0 && rest.slice(commitAt + 1).some((line) => line.length > 0)) {
        throw new JournalError(
          `journal: ${segment.file} is damaged at byte ${committedAt}, with committed records after it; refusing to drop them`,
        );
      }
      const handle = await open(segment.file, 'r+');
      await handle.truncate(committedAt);
      await handle.sync();
      await handle.close();
    }
    return { lastSeq, bytes: committedAt };
  }

  /** Appends records in order; resolves with their sequence numbers once they are on disk. */
  append(records: unknown[]): Promise<number[]> {
    return this.appendSerialized(records.map((r) => JSON.stringify(r)));
  }

  /** Appends records already serialized as single-line JSON (the bus reuses ingest's serialization). */
  appendSerialized(lines: string[]): Promise<number[]> {
    if (this.closed) return Promise.reject(new JournalError('journal: closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        try {
          if (this.segmentBytes >= this.rotateAt) await this.rotate();
          let seq = this.nextSeq;
          const seqs: number[][] = [];
          const text: string[] = [];
          for (const pending of batch) {
            const own: number[] = [];
            for (const json of pending.lines) {
              text.push(`${seq} ${json}\n`);
              own.push(seq++);
            }
            seqs.push(own);
          }
          const records = Buffer.from(text.join(''), 'utf8');
          const commit = Buffer.from(commitLine(seq - 1, crc32(records)), 'utf8');
          await this.handle.writev([records, commit]);
          await this.handle.datasync();
          this.nextSeq = seq;
          const written = records.length + commit.length;
          this.segmentBytes += written;
          this.totalBytes += written;
          batch.forEach((pending, i) => pending.resolve(seqs[i]));
        } catch (error) {
          // Cut whatever of this commit reached the file, so no unacknowledged record is replayed.
          await this.handle.truncate(this.segmentBytes).catch(() => undefined);
          const failure = new JournalError(
            `journal: write to ${this.segments[this.segments.length - 1].file} failed: ${(error as Error).message}`,
          );
          for (const pending of batch) pending.reject(failure);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private async rotate(): Promise<void> {
    await this.handle.close();
    const segment = {
      firstSeq: this.nextSeq,
      file: path.join(this.dir, `${String(this.nextSeq).padStart(12, '0')}.log`),
    };
    this.handle = await open(segment.file, 'a');
    await syncDir(this.dir);
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
      if (!next && activeBytes === 0) break;
      let offset = 0;
      let crc = 0;
      let pending: { seq: number; json: string }[] = [];
      const input = createReadStream(segment.file, {
        encoding: 'utf8',
        ...(next ? {} : { end: activeBytes - 1 }),
      });
      const lines = createInterface({ input, crlfDelay: Infinity });
      for await (const text of lines) {
        const line = decode(text);
        const at = offset;
        offset += Buffer.byteLength(text) + 1;
        if (line?.kind === 'record') {
          crc = crc32(`${text}\n`, crc);
          pending.push(line);
          continue;
        }
        if (
          line?.kind !== 'commit' ||
          line.crc !== crc ||
          (pending.length && pending[pending.length - 1].seq !== line.lastSeq)
        ) {
          throw new JournalError(`journal: ${segment.file} has a damaged commit at byte ${at}`);
        }
        for (const record of pending) {
          if (record.seq <= afterSeq) continue;
          await onRecord(record.seq, JSON.parse(record.json));
          count++;
        }
        pending = [];
        crc = 0;
      }
    }
    return count;
  }

  /** Deletes whole segments whose records all have seq <= uptoSeq; the active segment stays. */
  async compact(uptoSeq: number): Promise<number> {
    let removed = 0;
    while (this.segments.length > 1 && this.segments[1].firstSeq <= uptoSeq + 1) {
      const [gone] = this.segments.splice(0, 1);
      const size = (await stat(gone.file)).size;
      await rm(gone.file, { force: true });
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
