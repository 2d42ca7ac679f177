// Atomic snapshot files: written to a temporary file, synced, renamed over the old one, folder synced.
// The first line is the metadata, the last a trailer with the line count and a CRC-32 of everything
// before it; a snapshot whose trailer does not match is refused, naming the file. The snapshot it
// replaces is kept as `snapshot.previous.ndjson`, so a damaged snapshot can fall back on it (the journal
// is compacted only up to the previous snapshot's seq).
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { readLines, syncDir } from './journal.js';

export const SNAPSHOT_FILE = 'snapshot.ndjson';
export const PREVIOUS_SNAPSHOT_FILE = 'snapshot.previous.ndjson';
/** Where damaged snapshots are moved, inside the state folder. */
export const SNAPSHOT_QUARANTINE_DIR = 'quarantine';
const NEWLINE = Buffer.from('\n');
/** Lines are written in pieces of about this many characters. */
const WRITE_PIECE = 4 * 1024 * 1024;

export interface SnapshotMeta {
  seq: number;
  [key: string]: unknown;
}

export class SnapshotError extends Error {}

/**
 * Replaces `<dir>/snapshot.ndjson` atomically: either the old snapshot or the whole new one survives.
 * The old one becomes `snapshot.previous.ndjson`; resolves with its seq (undefined when there was none).
 */
export async function writeSnapshot(
  dir: string,
  meta: SnapshotMeta,
  lines: Iterable<string>,
): Promise<{ previousSeq: number | undefined }> {
  if (!Number.isSafeInteger(meta.seq) || meta.seq < 0) {
    throw new SnapshotError(`snapshot: meta.seq must be a non-negative integer, not ${String(meta.seq)}`);
  }
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, SNAPSHOT_FILE);
  const temp = `${target}.tmp`;
  const handle = await open(temp, 'w');
  try {
    let crc = 0;
    let count = 0;
    let piece: string[] = [];
    let pieceChars = 0;
    const put = async (buffer: Buffer) => {
      const { bytesWritten } = await handle.write(buffer);
      if (bytesWritten !== buffer.length)
        throw new Error(`short write: ${bytesWritten} of ${buffer.length} bytes`);
    };
    const cut = async () => {
      const buffer = Buffer.from(piece.join(''), 'utf8');
      piece = [];
      pieceChars = 0;
      crc = crc32(buffer, crc);
      await put(buffer);
    };
    piece.push(`${JSON.stringify(meta)}\n`);
    for (const line of lines) {
      // A newline inside a line would shift every later line on reading.
      if (line.includes('\n')) throw new SnapshotError(`snapshot: line ${count + 1} contains a newline`);
      piece.push(line, '\n');
      pieceChars += line.length + 1;
      count++;
      if (pieceChars >= WRITE_PIECE) await cut();
    }
    await cut();
    await put(Buffer.from(`${JSON.stringify({ end: true, lines: count, crc })}\n`, 'utf8'));
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await handle.close();
  // The current snapshot becomes the previous one; one whose metadata does not even read is moved aside.
  const currentSeq = await peekSnapshotSeq(target);
  let previousSeq: number | undefined;
  if (currentSeq !== undefined) {
    await rename(target, path.join(dir, PREVIOUS_SNAPSHOT_FILE));
    previousSeq = currentSeq;
  } else if (await exists(target)) {
    await quarantineSnapshot(dir, SNAPSHOT_FILE);
  }
  // A crash here leaves no current snapshot: start-up then restores the previous one and the journal.
  await rename(temp, target);
  await syncDir(dir);
  if (previousSeq === undefined) previousSeq = await peekSnapshotSeq(path.join(dir, PREVIOUS_SNAPSHOT_FILE));
  return { previousSeq };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The seq in a snapshot's first line, without verifying the rest; undefined when absent or unreadable. */
export async function peekSnapshotSeq(file: string): Promise<number | undefined> {
  try {
    for await (const line of readLines(file, { end: 64 * 1024 })) {
      const seq = (parse(line.text) as { seq?: unknown } | undefined)?.seq;
      return line.terminated && typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0
        ? seq
        : undefined;
    }
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Moves a snapshot file aside into `<dir>/quarantine/`, stamped with the time; returns where it went. */
export async function quarantineSnapshot(dir: string, name: string, now = Date.now()): Promise<string> {
  const folder = path.join(dir, SNAPSHOT_QUARANTINE_DIR);
  await mkdir(folder, { recursive: true });
  const target = path.join(folder, `${name}.${new Date(now).toISOString().replace(/[:.]/g, '-')}.damaged`);
  await rename(path.join(dir, name), target);
  await syncDir(dir);
  await syncDir(folder);
  return target;
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Reads a snapshot, verifying its trailer first; undefined when there is none. */
export async function readSnapshot(
  dir: string,
  name = SNAPSHOT_FILE,
): Promise<{ meta: SnapshotMeta; lines: AsyncIterable<string> } | undefined> {
  const file = path.join(dir, name);
  let identity: string;
  try {
    const info = await stat(file);
    identity = `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const damaged = (why: string) => new SnapshotError(`snapshot: ${file} is incomplete or damaged (${why})`);

  // Every line but the last is checksummed; the last is the trailer.
  let meta: unknown;
  let previous: Buffer | undefined;
  let crc = 0;
  let lines = -1;
  for await (const line of readLines(file)) {
    if (!line.terminated) throw damaged(`unterminated line at byte ${line.offset}`);
    if (previous) {
      crc = crc32(NEWLINE, crc32(previous, crc));
      if (lines++ < 0) meta = parse(previous);
    }
    previous = line.text;
  }
  const trailer =
    previous && (parse(previous) as { end?: unknown; lines?: unknown; crc?: unknown } | undefined);
  if (!trailer || trailer.end !== true) throw damaged('no trailer');
  if (trailer.lines !== lines || trailer.crc !== crc) throw damaged('the trailer does not match the content');
  const seq = (meta as SnapshotMeta | undefined)?.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq))
    throw damaged('its first line is not metadata with a seq');

  async function* content(): AsyncGenerator<string> {
    const info = await stat(file);
    if (`${info.ino}:${info.size}:${info.mtimeMs}` !== identity) {
      throw new SnapshotError(`snapshot: ${file} was replaced while being read`);
    }
    let index = 0;
    for await (const line of readLines(file)) {
      if (index > 0 && index <= lines) yield line.text.toString('utf8');
      index++;
    }
  }
  return { meta: meta as SnapshotMeta, lines: content() };
}
