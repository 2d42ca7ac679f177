// The NDJSON export (DECISIONS.md: `GET /export/ndjson`, one attack path per line). Lines are written to a
// spool file under DATA_DIR/exports while their SHA-256 is computed, a batch at a time with the event loop
// free between batches, then the file is streamed out with its signature in the header: memory stays flat
// however many paths there are, and the signature covers exactly the bytes sent.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PathRecord } from '../paths/path-store.js';
import type { ExportedPath } from './path-record.js';

/** Lines gathered before one write (and one yield to the event loop). */
const BATCH_BYTES = 1 << 20;

export interface Spooled {
  file: string;
  sha256: string;
  bytes: number;
  pathIds: string[];
  remove(): Promise<void>;
}

export async function spoolNdjson(
  dir: string,
  records: Iterable<PathRecord>,
  line: (record: PathRecord) => ExportedPath,
): Promise<Spooled> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `export-${randomBytes(8).toString('hex')}.ndjson`);
  const handle = await open(file, 'wx', 0o600);
  const hash = createHash('sha256');
  const pathIds: string[] = [];
  let bytes = 0;
  const remove = () => rm(file, { force: true });
  try {
    let batch: string[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      const chunk = Buffer.from(batch.join(''));
      hash.update(chunk);
      bytes += chunk.length;
      await handle.write(chunk);
      batch = [];
      batchBytes = 0;
    };
    for (const record of records) {
      const text = `${JSON.stringify(line(record))}\n`;
      pathIds.push(record.id);
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
  return { file, sha256: hash.digest('hex'), bytes, pathIds, remove };
}
