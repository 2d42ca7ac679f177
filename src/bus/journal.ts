// The embedded bus's append-only journal: segment files under one folder, each opened by a header line,
// then one record per line, `<seq> <json>\n`, each group commit closed by `~<last seq> <crc32 hex of the
// commit's record lines>\n`. Appends are group-committed (one write and one fsync for all queued) and
// resolve only once synced; a commit is all or nothing.
// On open, the unfinished last write of a crash (records without their commit line) is cut off, with a
// copy kept under `quarantine/`: it was never acknowledged. Damage to whole commits, which may have been
// acknowledged, stops the open with what was lost, unless the operator asked for a repair
// (docs/operations.md).
import { createReadStream } from 'node:fs';
import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** A segment is rotated once it holds this much; one batch may overshoot it. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
const SEGMENT_NAME = /^(\d{12})\.log$/;
const NEWLINE = Buffer.from('\n');
/** Record text is encoded in pieces of about this many characters, far below V8's string limit. */
const ENCODE_PIECE = 4 * 1024 * 1024;
/** The commit buffer is kept for the next commit up to this size (encode). */
const KEPT_COMMIT_BUFFER = 64 * 1024 * 1024;
/**
 * The first line of every segment this build creates: a segment is never legitimately empty, so a 0-byte
 * one has lost its contents. Segments written by earlier builds have no header and are read as before.
 */
export const SEGMENT_HEADER = '#pathgate-journal 1\n';
const HEADER_PREFIX = Buffer.from('#pathgate-journal ');
/** Where cut or moved-aside bytes are kept, inside the journal folder. */
export const QUARANTINE_DIR = 'quarantine';
/** What the operator runs next; appended to every refusal. */
export const STORE_ADVICE =
  '`pathgate verify-store` shows what is affected; `pathgate verify-store -repair` sets the damaged bytes aside (a copy kept) so that the next start goes on without them (docs/operations.md)';
/** Segment names have 12 digits. */
export const MAX_SEQ = 999_999_999_999;

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

function isHeader(line: FileLine): boolean {
  return (
    line.offset === 0 && line.terminated && line.text.subarray(0, HEADER_PREFIX.length).equals(HEADER_PREFIX)
  );
}

/** A record's batch id, read from the head of its JSON (the bus writes it among the first keys). */
function batchOf(line: Buffer): string | undefined {
  return /"batchId":"([^"\\]{1,200})"/.exec(line.toString('utf8', 0, Math.min(line.length, 600)))?.[1];
}

/** `5-7, 9` */
export function formatRanges(ranges: SeqRange[]): string {
  return ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(', ');
}

export function countRanges(ranges: SeqRange[]): number {
  return ranges.reduce((n, r) => n + r.to - r.from + 1, 0);
}

/** `ranges` minus `holes`, both sorted. */
export function subtract(ranges: SeqRange[], holes: SeqRange[]): SeqRange[] {
  const out: SeqRange[] = [];
  for (const range of ranges) {
    let from = range.from;
    for (const hole of holes) {
      if (hole.to < from || hole.from > range.to) continue;
      if (hole.from > from) out.push({ from, to: hole.from - 1 });
      from = Math.max(from, hole.to + 1);
    }
    if (from <= range.to) out.push({ from, to: range.to });
  }
  return out;
}

/** What a segment's damaged tail held, in words, e.g. `records 5-6 (batches b-1, b-2)`. */
export function describeLoss(problem: Pick<JournalRecovery, 'lost' | 'batches' | 'unknown'>): string {
  const parts: string[] = [];
  if (problem.lost.length) {
    const n = countRanges(problem.lost);
    parts.push(`${n === 1 ? 'record' : `${n} records`} ${formatRanges(problem.lost)}`);
    if (problem.batches.length)
      parts.push(`(batch${problem.batches.length > 1 ? 'es' : ''} ${problem.batches.join(', ')})`);
  }
  if (problem.unknown)
    parts.push(parts.length ? 'and bytes whose records cannot be told' : 'records that cannot be told apart');
  return parts.join(' ') || 'no record';
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
async function createSegment(dir: string, firstSeq: number, content: Buffer[] = []): Promise<string> {
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
async function quarantineBytes(dir: string, file: string, from: number, to: number): Promise<string> {
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

async function readBytes(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    await handle.read(buffer, 0, buffer.length, from);
    return buffer;
  } finally {
    await handle.close();
  }
}

async function truncateFile(file: string, at: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.truncate(at);
    await handle.sync();
  } finally {
    await handle.close();
  }
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
export const OWNER_FILE = 'OWNER';

export interface JournalOwner {
  pid: number;
  host: string;
  startedAt: string;
}

/** Who last opened the journal and did not close it (a running service, or one that was killed). */
export async function readOwner(dir: string): Promise<JournalOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path.join(dir, OWNER_FILE), 'utf8')) as Partial<JournalOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string'
      ? { pid: owner.pid, host: owner.host, startedAt: String(owner.startedAt) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Sequence numbers in (after, upTo] that no segment holds. */
export function uncovered(ranges: SegmentRange[], after: number, upTo: number): SeqRange[] {
  const out: SeqRange[] = [];
  let need = after + 1;
  for (const range of ranges) {
    if (range.lastSeq < range.firstSeq || range.lastSeq < need) continue;
    if (range.firstSeq > need) out.push({ from: need, to: Math.min(range.firstSeq - 1, upTo) });
    need = range.lastSeq + 1;
  }
  if (need <= upTo) out.push({ from: need, to: upTo });
  return out.filter((r) => r.from <= r.to);
}

/** One line on what a refused or repaired segment lost. */
export function describeProblem(problem: JournalRecovery): string {
  const name = problem.file;
  if (problem.kind === 'empty')
    return `journal: ${name} is empty (0 bytes) though every segment starts with a header line: what it held from seq ${path.basename(name, '.log').replace(/^0+(?=\d)/, '')} on is lost and may have been acknowledged (unless an older build made it and no report ever arrived)`;
  const kept = problem.salvaged.map((s) => ({ from: s.firstSeq, to: s.lastSeq }));
  const n = countRanges(kept);
  const verb = problem.quarantined
    ? n === 1
      ? 'was kept'
      : 'were kept'
    : n === 1
      ? 'is intact'
      : 'are intact';
  const salvaged = n
    ? `; ${n === 1 ? 'the whole record' : `the ${n} whole records`} after it (${n === 1 ? 'seq' : 'seqs'} ${formatRanges(kept)}) ${verb}`
    : '';
  return `journal: ${name} is damaged at byte ${problem.offset} (${problem.why}): ${describeLoss(problem)} ${problem.kind === 'torn' ? 'never acknowledged' : problem.held ? 'which the snapshot holds: nothing is lost' : 'committed, and may have been acknowledged'}${salvaged}`;
}

export class Journal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** Set when a failed write could not be undone: the file's tail is unknown, so nothing more is appended. */
  private failure: JournalError | null = null;
  /** The commit buffer (encode) and how much of it the commit being built has used. */
  private commitBuffer = Buffer.alloc(0);
  private commitUsed = 0;
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
  appendSerialized(lines: string[], options: { stringified?: boolean } = {}): Promise<number[]> {
    if (this.closed) return Promise.reject(new JournalError('journal: closed'));
    if (this.failure) return Promise.reject(this.failure);
    // A newline inside a record would split it on reading and make the whole journal unreadable.
    const bad = options.stringified
      ? lines.findIndex((line) => line.length === 0)
      : lines.findIndex((line) => line.includes('\n') || line.length === 0);
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
      this.commitUsed = 0;
      // An unusually large group commit does not pin its buffer for the journal's life.
      if (this.commitBuffer.length > KEPT_COMMIT_BUFFER) this.commitBuffer = Buffer.alloc(0);
      const cut = () => {
        const buffer = this.encode(piece.join(''));
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

  /**
   * `text` as UTF-8 in the journal's commit buffer, after what this commit wrote there so far: one buffer
   * kept from commit to commit (commits never overlap), replaced by a larger one when a commit needs more.
   * Fresh buffers per commit are memory outside V8's heap that lives through the write and the sync: V8
   * counts it, and started a full collection for every large report (docs/perf.md, "Fifth session:
   * external memory").
   */
  private encode(text: string): Buffer {
    const at = this.commitUsed;
    // UTF-8 takes at most three bytes per UTF-16 code unit; the exact length only when that bound is close.
    if (this.commitBuffer.length - at < text.length * 3) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (this.commitBuffer.length - at < bytes) {
        // Pieces already cut keep the old buffer alive until they are written.
        this.commitBuffer = Buffer.allocUnsafeSlow(Math.max(bytes, this.commitBuffer.length * 2));
        this.commitUsed = 0;
        return this.encode(text);
      }
    }
    const written = this.commitBuffer.write(text, at, 'utf8');
    this.commitUsed = at + written;
    return this.commitBuffer.subarray(at, at + written);
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

/** Makes a rename, creation or deletion in `dir` durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
