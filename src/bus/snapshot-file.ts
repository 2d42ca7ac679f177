// Atomic snapshot files: written to a temporary file, synced, renamed over the old one, folder synced.
// The first line is the metadata, the last a trailer with the line count and a CRC-32 of everything
// before it; a snapshot whose trailer does not match is refused, naming the file.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';
import { syncDir } from './journal.js';

export const SNAPSHOT_FILE = 'snapshot.ndjson';

export interface SnapshotMeta {
  seq: number;
  [key: string]: unknown;
}

export class SnapshotError extends Error {}

export async function writeSnapshot(dir: string, meta: SnapshotMeta, lines: Iterable<string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, SNAPSHOT_FILE);
  const temp = `${target}.tmp`;
  const out = createWriteStream(temp);
  let crc = 0;
  let count = 0;
  const write = async (text: string) => {
    crc = crc32(text, crc);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${JSON.stringify(meta)}\n`);
  for (const line of lines) {
    await write(`${line}\n`);
    count++;
  }
  out.end(`${JSON.stringify({ end: true, lines: count, crc })}\n`);
  await once(out, 'finish');
  const handle = await open(temp, 'r+');
  await handle.sync();
  await handle.close();
  await rename(temp, target);
  await syncDir(dir);
}

/** Reads a snapshot, verifying its trailer first; undefined when there is none. */
export async function readSnapshot(
  dir: string,
): Promise<{ meta: SnapshotMeta; lines: AsyncIterable<string> } | undefined> {
  const file = path.join(dir, SNAPSHOT_FILE);
  try {
    await stat(file);
  } catch {
    return undefined;
  }
  const readLines = () =>
    createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let meta: SnapshotMeta | undefined;
  let crc = 0;
  let count = -1;
  let trailer: { end?: boolean; lines?: number; crc?: number } | undefined;
  for await (const line of readLines()) {
    if (trailer) throw new SnapshotError(`snapshot: ${file} has data after its trailer`);
    if (line.startsWith('{"end":true')) {
      trailer = JSON.parse(line) as typeof trailer;
      continue;
    }
    crc = crc32(`${line}\n`, crc);
    if (meta === undefined) meta = JSON.parse(line) as SnapshotMeta;
    count++;
  }
  if (!meta || !trailer || trailer.lines !== count || trailer.crc !== crc) {
    throw new SnapshotError(
      `snapshot: ${file} is incomplete or damaged (trailer does not match its content); restore it from a backup: the journal holds only what came after it`,
    );
  }
  const lines = async function* () {
    let first = true;
    for await (const line of readLines()) {
      if (first) {
        first = false;
        continue;
      }
      if (line.startsWith('{"end":true')) return;
      yield line;
    }
  };
  return { meta, lines: lines() };
}
