// Exports are written to a spool file under DATA_DIR/exports while their SHA-256 is computed, a batch of
// about 1 MiB at a time with the event loop free between batches, then streamed out: memory stays flat
// however large the export, and the signature covers exactly the bytes sent.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';

/** Text gathered before one write (and one yield to the event loop). */
const BATCH_BYTES = 1 << 20;

export const SPOOL_FILE = /^export-[0-9a-f]{16}\.(ndjson|json)$/;

export interface Spooled {
  file: string;
  sha256: string;
  bytes: number;
  remove(): Promise<void>;
}

export async function spool(
  dir: string,
  ext: 'ndjson' | 'json',
  chunks: Iterable<string>,
  /** counts each batch before it is written; throws to stop (the file is removed) */
  account: (bytes: number) => void = () => undefined,
): Promise<Spooled> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `export-${randomBytes(8).toString('hex')}.${ext}`);
  const handle = await open(file, 'wx', 0o600);
  const hash = createHash('sha256');
  let bytes = 0;
  const remove = () => rm(file, { force: true });
  try {
    let batch: string[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      const chunk = Buffer.from(batch.join(''));
      account(chunk.length);
      hash.update(chunk);
      bytes += chunk.length;
      await handle.write(chunk);
      batch = [];
      batchBytes = 0;
    };
    for (const text of chunks) {
      batch.push(text);
      batchBytes += text.length;
      if (batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
  } catch (error) {
    await handle.close();
    await remove();
    throw error;
  }
  await handle.close();
  return { file, sha256: hash.digest('hex'), bytes, remove };
}
