// The embedded bus's append-only journal: segment files under one folder, one record per line,
// `<seq> <crc32 hex> <json>\n`. Appends are group-committed (one fsync for all queued) and resolve only
// once synced. On open, a torn final record (a crash mid-write) is cut off; damage anywhere else stops
// the open with the file and offset, rather than silently dropping acknowledged data.
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

function encode(seq: number, json: string): string {
  return `${seq} ${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** Parses one line; undefined when it is torn or corrupt. */
function decode(line: string): { seq: number; json: string } | undefined {
  const a = line.indexOf(' ');
  const b = line.indexOf(' ', a + 1);
  if (a <= 0 || b !== a + 9) return undefined;
  const seq = Number(line.slice(0, a));
  const json = line.slice(b + 1);
  if (!Number.isSafeInteger(seq) || crc32(json).toString(16).padStart(8, '0') !== line.slice(a + 1, b)) return undefined;
  return { seq, json };
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
    return new Journal(dir, segments, handle, tailBytes, nextSeq, totalBytes, options.rotateAt ?? SEGMENT_BYTES);
  }

  /** Validates the active segment, cutting off a torn final record. */
  private static async recoverTail(segment: Segment): Promise<{ lastSeq: number | null; bytes: number }> {
    const buffer = await readFile(segment.file);
    let offset = 0;
    let lastSeq: number | null = null;
    while (offset < buffer.length) {
      const end = buffer.indexOf(10, offset);
      const record = end < 0 ? undefined : decode(buffer.toString('utf8', offset, end));
      if (!record || (lastSeq !== null && record.seq !== lastSeq + 1)) {
        // Only the very end may be damaged: a crash can tear the last write, nothing else.
        const rest = end < 0 ? [] : buffer.toString('utf8', end + 1).split('\n').filter(Boolean);
        if (rest.some((line) => decode(line) !== undefined)) {
          throw new JournalError(`journal: ${segment.file} is damaged at byte ${offset}, with intact records after it; refusing to drop them`);
        }
        const handle = await open(segment.file, 'r+');
        await handle.truncate(offset);
        await handle.sync();
        await handle.close();
        break;
      }
      lastSeq = record.seq;
      offset = end + 1;
    }
    return { lastSeq, bytes: Math.min(offset, buffer.length) };
  }

  /** Appends records in order; resolves with their sequence numbers once they are on disk. */
  append(records: unknown[]): Promise<number[]> {
    if (this.closed) return Promise.reject(new JournalError('journal: closed'));
    const lines = records.map((r) => JSON.stringify(r));
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
        const firstSeq = this.nextSeq;
        try {
          if (this.segmentBytes >= this.rotateAt) await this.rotate();
          let seq = firstSeq;
          const seqs: number[][] = [];
          const text: string[] = [];
          for (const pending of batch) {
            const own: number[] = [];
            for (const json of pending.lines) {
              text.push(encode(seq, json));
              own.push(seq++);
            }
            seqs.push(own);
          }
          const data = Buffer.from(text.join(''), 'utf8');
          await this.handle.write(data);
          await this.handle.datasync();
          this.nextSeq = seq;
          this.segmentBytes += data.length;
          this.totalBytes += data.length;
          batch.forEach((pending, i) => pending.resolve(seqs[i]));
        } catch (error) {
          // Cut whatever of this batch reached the file, so no unacknowledged record is replayed.
          await this.handle.truncate(this.segmentBytes).catch(() => undefined);
          const failure = new JournalError(`journal: write to ${this.segments[this.segments.length - 1].file} failed: ${(error as Error).message}`);
          for (const pending of batch) pending.reject(failure);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private async rotate(): Promise<void> {
    await this.handle.close();
    const segment = { firstSeq: this.nextSeq, file: path.join(this.dir, `${String(this.nextSeq).padStart(12, '0')}.log`) };
    this.handle = await open(segment.file, 'a');
    await syncDir(this.dir);
    this.segments.push(segment);
    this.segmentBytes = 0;
  }

  /** Calls `onRecord` for every record with seq > afterSeq, in order, awaiting each. */
  async replay(afterSeq: number, onRecord: (seq: number, record: unknown) => void | Promise<void>): Promise<number> {
    let count = 0;
    const limit = this.nextSeq;
    for (let i = 0; i < this.segments.length; i++) {
      const segment = this.segments[i];
      const next = this.segments[i + 1];
      if (next && next.firstSeq <= afterSeq + 1) continue;
      let offset = 0;
      const lines = createInterface({ input: createReadStream(segment.file, { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const line of lines) {
        const record = decode(line);
        if (!record) throw new JournalError(`journal: ${segment.file} has a damaged record at byte ${offset}`);
        offset += Buffer.byteLength(line) + 1;
        if (record.seq <= afterSeq) continue;
        if (record.seq >= limit) break;
        await onRecord(record.seq, JSON.parse(record.json));
        count++;
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
