// The journal's files on disk: segment names, the header line, record lines `<seq> <json>\n` and commit
// lines `~<last seq> <crc32 hex>\n`; reading and scanning a segment, and creating, cutting and quarantining
// segment files. The Journal (journal.ts) appends and replays through these; verify-store and recovery read
// them too.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { subtract } from './journal-damage.js';

/** A segment is rotated once it holds this much; one batch may overshoot it. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
export const SEGMENT_NAME = /^(\d{12})\.log$/;
export const NEWLINE = Buffer.from('\n');
/**
 * The first line of every segment this build creates: a segment is never legitimately empty, so a 0-byte
 * one has lost its contents. Segments written by earlier builds have no header and are read as before.
 */
export const SEGMENT_HEADER = '#pathgate-journal 1\n';
export const HEADER_PREFIX = Buffer.from('#pathgate-journal ');
/** Where cut or moved-aside bytes are kept, inside the journal folder. */
export const QUARANTINE_DIR = 'quarantine';
/** What the operator runs next; appended to every refusal. */
export const STORE_ADVICE =
  '`pathgate verify-store` shows what is affected; `pathgate verify-store -repair` sets the damaged bytes aside (a copy kept) so that the next start goes on without them (docs/operations.md)';
/** Segment names have 12 digits. */
export const MAX_SEQ = 999_999_999_999;

export interface Segment {
  firstSeq: number;
  file: string;
}

export class JournalError extends Error {}

/** Inclusive range of sequence numbers. */
export interface SeqRange {
  from: number;
  to: number;
}

/** One segment as found on disk: `lastSeq` is firstSeq - 1 when it holds no whole commit. */
export interface SegmentRange {
  file: string;
  firstSeq: number;
  lastSeq: number;
}

/** What follows the last whole commit of a segment that runs on from its start. */
export interface SegmentTail {
  /**
   * `torn`: the unfinished last write of a crash (records without their commit line, or a line cut short):
   * never acknowledged, since a write is acknowledged only once its commit line is synced.
   * `damaged`: anything else (a commit line that does not match, a broken line before the end): whole
   * commits were hit and may have been acknowledged.
   */
  kind: 'torn' | 'damaged';
  offset: number;
  bytes: number;
  why: string;
  /** Records in the cut bytes that no whole commit after the damage keeps, as far as their heads read. */
  lost: SeqRange[];
  /** Batch ids of those records, as far as they read (at most 50). */
  batches: string[];
  /** True when some damaged bytes could not be matched to sequence numbers at all. */
  unknown: boolean;
  /** Whole commits after the damage, continuing each other: a repair keeps them in a new segment. */
  salvage: { start: number; end: number; from: number; to: number }[];
}

export interface SegmentScan {
  file: string;
  firstSeq: number;
  size: number;
  header: boolean;
  /** The last seq of the whole commits that run on from the start, and the byte where they end. */
  lastSeq: number;
  committedEnd: number;
  tail?: SegmentTail;
}

/** What opening cut off or moved aside; the bytes are in `quarantined`. */
export interface JournalRecovery {
  file: string;
  offset: number;
  droppedBytes: number;
  kind: 'torn' | 'damaged' | 'empty';
  why: string;
  lost: SeqRange[];
  batches: string[];
  unknown: boolean;
  /** Where the cut bytes are kept. */
  quarantined: string;
  /** New segments holding whole commits found after the damage. */
  salvaged: SegmentRange[];
  /** Damage whose records the restored snapshot holds: nothing is lost. */
  held?: boolean;
}

/** Refusal to open: whole commits are damaged or a segment lost its contents. */
export class JournalDamage extends JournalError {
  constructor(
    message: string,
    readonly problems: JournalRecovery[],
  ) {
    super(message);
  }
}

export function segmentFile(dir: string, firstSeq: number): string {
  return path.join(dir, `${String(firstSeq).padStart(12, '0')}.log`);
}

export function commitLine(lastSeq: number, crc: number): string {
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
export function decodeHead(line: Buffer): Head {
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

export function isHeader(line: FileLine): boolean {
  return (
    line.offset === 0 && line.terminated && line.text.subarray(0, HEADER_PREFIX.length).equals(HEADER_PREFIX)
  );
}

/** A record's batch id, read from the head of its JSON (the bus writes it among the first keys). */
export function batchOf(line: Buffer): string | undefined {
  return /"batchId":"([^"\\]{1,200})"/.exec(line.toString('utf8', 0, Math.min(line.length, 600)))?.[1];
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

/**
 * Reads a whole segment: the whole commits that run on from its start, and what follows them (a torn
 * last write, or damage with whatever whole commits come after it). Reads only; changes nothing.
 */
export async function scanSegment(
  file: string,
  firstSeq: number,
  options: { nextFirstSeq?: number } = {},
): Promise<SegmentScan> {
  // Sequence numbers read from damaged bytes are believed only below the next segment's first.
  const ceiling = (options.nextFirstSeq ?? Number.MAX_SAFE_INTEGER) - 1;
  let header = false;
  let lastSeq = firstSeq - 1;
  let committedEnd = 0;
  let expected = lastSeq;
  let crc = 0;
  let end = 0;
  let bad: { offset: number; why: string; torn: boolean } | undefined;
  // The uncommitted records of the prefix, then every record read after the damage: (seq, batch).
  let seen: { seq: number; batch?: string }[] = [];
  let run: { start: number; from: number; last: number; crc: number } | undefined;
  const salvage: SegmentTail['salvage'] = [];
  let highest = lastSeq;
  let unknown = false;
  const note = (seq: number, text?: Buffer) => {
    if (seq > ceiling) return;
    highest = Math.max(highest, seq);
    if (seen.length < 100_000) seen.push({ seq, batch: text && batchOf(text) });
  };
  for await (const line of readLines(file)) {
    end = line.offset + line.text.length + (line.terminated ? 1 : 0);
    if (isHeader(line)) {
      header = true;
      committedEnd = end;
      continue;
    }
    const head = line.terminated ? decodeHead(line.text) : undefined;
    if (!bad) {
      if (head?.kind === 'record' && head.seq === expected + 1) {
        crc = crc32(NEWLINE, crc32(line.text, crc));
        expected = head.seq;
        note(head.seq, line.text);
        continue;
      }
      if (head?.kind === 'commit' && head.lastSeq === expected && head.crc === crc) {
        lastSeq = expected;
        committedEnd = end;
        crc = 0;
        seen = [];
        continue;
      }
      bad = !line.terminated
        ? { offset: line.offset, why: 'a line cut short at the end', torn: true }
        : head?.kind === 'commit'
          ? {
              offset: line.offset,
              why: `commit line ~${head.lastSeq} does not match its records`,
              torn: false,
            }
          : head?.kind === 'record'
            ? { offset: line.offset, why: `record ${head.seq} where ${expected + 1} was due`, torn: false }
            : { offset: line.offset, why: 'a line that is neither a record nor a commit', torn: false };
    }
    // After the damage: look for runs of consecutive records closed by a matching commit line.
    if (head?.kind === 'record') {
      note(head.seq, line.text);
      run =
        run && head.seq === run.last + 1
          ? { ...run, last: head.seq, crc: crc32(NEWLINE, crc32(line.text, run.crc)) }
          : { start: line.offset, from: head.seq, last: head.seq, crc: crc32(NEWLINE, crc32(line.text)) };
      continue;
    }
    if (head?.kind === 'commit' && run && head.lastSeq === run.last && head.crc === run.crc) {
      const previous = salvage.at(-1);
      if (run.from > (previous ? previous.to : lastSeq) && run.last <= ceiling) {
        if (previous && previous.to + 1 === run.from && previous.end === run.start)
          salvage[salvage.length - 1] = { ...previous, end, to: run.last };
        else salvage.push({ start: run.start, end, from: run.from, to: run.last });
      }
    } else if (head?.kind === 'commit') {
      // A commit whose records no longer read still tells how far they went.
      if (head.lastSeq <= ceiling) highest = Math.max(highest, head.lastSeq);
    } else if (line.terminated) {
      // A line that is neither: whatever records it was part of cannot be told.
      unknown = true;
    }
    run = undefined;
  }
  const size = end;
  if (!bad && expected > lastSeq)
    bad = { offset: committedEnd, why: 'records without their commit line at the end', torn: true };
  if (!bad) return { file, firstSeq, size, header, lastSeq, committedEnd };
  // A torn write is a prefix of one commit: consecutive records and at most one line cut short.
  const torn = bad.torn;
  const kept = salvage.map((s) => ({ from: s.from, to: s.to }));
  const lost = highest > lastSeq ? subtract([{ from: lastSeq + 1, to: highest }], kept) : [];
  const lostBatches = new Set<string>();
  for (const { seq, batch } of seen) {
    if (batch && lost.some((r) => seq >= r.from && seq <= r.to) && lostBatches.size < 50)
      lostBatches.add(batch);
  }
  return {
    file,
    firstSeq,
    size,
    header,
    lastSeq,
    committedEnd,
    tail: {
      kind: torn ? 'torn' : 'damaged',
      offset: committedEnd,
      bytes: size - committedEnd,
      why: bad.offset === committedEnd ? bad.why : `${bad.why} at byte ${bad.offset}`,
      lost,
      batches: [...lostBatches],
      unknown: torn ? false : unknown || lost.length === 0,
      salvage: torn ? [] : salvage,
    },
  };
}

/**
 * The last seq of a segment from its final line, read from the end of the file; undefined when the
 * file does not end with a commit line (damaged, or the active segment mid-write). -1 when empty.
 */
export async function lastCommitOf(file: string): Promise<number | undefined> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return -1;
    const length = Math.min(size, 64);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    if (buffer[length - 1] !== 10) return undefined;
    const start = buffer.lastIndexOf(10, length - 2) + 1;
    if (start === 0 && size > length) return undefined;
    const head = decodeHead(buffer.subarray(start, length - 1));
    return head?.kind === 'commit' ? head.lastSeq : undefined;
  } finally {
    await handle.close();
  }
}

/** Lists the segment files of a journal folder, oldest first. */
export async function listSegments(dir: string): Promise<Segment[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => SEGMENT_NAME.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ firstSeq: Number(m[1]), file: path.join(dir, m[0]) }))
    .sort((x, y) => x.firstSeq - y.firstSeq);
}

/** Creates a segment whole (header and any content) under a temporary name, synced, then renamed. */
export async function createSegment(dir: string, firstSeq: number, content: Buffer[] = []): Promise<string> {
  const file = segmentFile(dir, firstSeq);
  const temp = `${file}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writev([Buffer.from(SEGMENT_HEADER), ...content]);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  await syncDir(dir);
  return file;
}

/** Copies `[from, to)` of a file into the quarantine folder, synced; returns the copy's path. */
export async function quarantineBytes(dir: string, file: string, from: number, to: number): Promise<string> {
  const folder = path.join(dir, QUARANTINE_DIR);
  await mkdir(folder, { recursive: true });
  // A later cut at the same byte (another kill mid-write) gets its own copy.
  let target = path.join(folder, `${path.basename(file)}.${from}.cut`);
  for (
    let n = 2;
    await stat(target).then(
      () => true,
      () => false,
    );
    n++
  )
    target = path.join(folder, `${path.basename(file)}.${from}.${n}.cut`);
  const source = await open(file, 'r');
  const out = await open(target, 'w');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    for (let at = from; at < to;) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, to - at), at);
      if (!bytesRead) break;
      await out.write(buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
    await out.sync();
  } finally {
    await source.close();
    await out.close();
  }
  await syncDir(folder);
  return target;
}

export async function readBytes(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    await handle.read(buffer, 0, buffer.length, from);
    return buffer;
  } finally {
    await handle.close();
  }
}

export async function truncateFile(file: string, at: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.truncate(at);
    await handle.sync();
  } finally {
    await handle.close();
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
