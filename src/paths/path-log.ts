// The path lifecycle log: every path an analyzer pass opens, reopens or resolves is appended (whole
// record, frozen route) to `DATA_DIR/state/paths.ndjson` and synced before the pass's events go out, so
// a crash between snapshots keeps first_seen, reopens and resolved_at (issue 13, item 10). Snapshots
// compact it: each line carries the log's epoch, the snapshot names the epoch it covers, and the log is
// emptied once the snapshot is durable; lines of a covered epoch left by a crash in between are skipped.
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { readLines, syncDir } from '../bus/journal.js';

export const PATH_LOG_FILE = 'paths.ndjson';

/** One log line: a tenant's path record as the snapshot writes it. */
export interface PathLogEntry {
  /** the log epoch the line was written in */
  e: number;
  t: string;
  r: object;
}

export interface PathLogRecovery {
  /** lines replayed, for the start-up log */
  replayed: number;
  /** bytes of a torn final line (a crash mid-append) cut off */
  cutBytes: number;
  /** lines in the middle that did not parse, skipped */
  skipped: number;
}

export class PathLog {
  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private size: number,
    /** the epoch new lines are written in; a snapshot covers every line of its epoch and before */
    private current: number,
    readonly recovery: PathLogRecovery,
  ) {}

  /**
   * Opens the log in `dir`, handing `apply` every line written after the snapshot that covers epoch
   * `covered` (none: every line), in order. A torn final line is cut off.
   */
  static async open(
    dir: string,
    covered: number | undefined,
    apply: (entry: PathLogEntry) => void,
  ): Promise<PathLog> {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, PATH_LOG_FILE);
    const recovery: PathLogRecovery = { replayed: 0, cutBytes: 0, skipped: 0 };
    let valid = 0;
    let latest = covered ?? 0;
    let exists = true;
    try {
      await stat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      exists = false;
    }
    if (exists) {
      // Unreadable lines are skipped once a readable one follows them; at the very end they are a crash
      // mid-append, and are cut off.
      let unreadable = 0;
      for await (const line of readLines(file)) {
        const entry = line.terminated ? parse(line.text) : undefined;
        if (!entry) {
          unreadable++;
          continue;
        }
        recovery.skipped += unreadable;
        unreadable = 0;
        valid = line.offset + line.text.length + 1;
        latest = Math.max(latest, entry.e);
        if (covered !== undefined && entry.e <= covered) continue;
        apply(entry);
        recovery.replayed++;
      }
      if (unreadable) recovery.cutBytes = (await stat(file)).size - valid;
    }
    const handle = await open(file, exists ? 'r+' : 'w');
    if (exists && recovery.cutBytes > 0) {
      await handle.truncate(valid);
      await handle.sync();
    }
    if (!exists) await syncDir(dir);
    const size = exists ? valid : 0;
    return new PathLog(file, handle, size, Math.max(latest, (covered ?? 0) + 1), recovery);
  }

  /** The epoch a snapshot written now covers. */
  get epoch(): number {
    return this.current;
  }

  /** Appends a tenant's changed records and syncs them; a failed write is undone, so no torn line remains. */
  async append(tenant: string, records: Iterable<object>): Promise<number> {
    const lines: string[] = [];
    for (const r of records) lines.push(`${JSON.stringify({ e: this.current, t: tenant, r })}\n`);
    if (!lines.length) return 0;
    const buffer = Buffer.from(lines.join(''), 'utf8');
    try {
      const { bytesWritten } = await this.handle.write(buffer, 0, buffer.length, this.size);
      if (bytesWritten !== buffer.length)
        throw new Error(`short write: ${bytesWritten} of ${buffer.length} bytes`);
      await this.handle.sync();
    } catch (error) {
      await this.handle.truncate(this.size).catch(() => undefined);
      throw error;
    }
    this.size += buffer.length;
    return lines.length;
  }

  /** Whether lines were written since the last compaction (a snapshot would take them in). */
  get pending(): boolean {
    return this.size > 0;
  }

  /** After a snapshot covering `epoch` is durable: empties the log and moves to the next epoch. */
  async compact(epoch: number): Promise<void> {
    this.current = Math.max(this.current, epoch + 1);
    await this.handle.truncate(0);
    await this.handle.sync();
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

function parse(text: Buffer): PathLogEntry | undefined {
  try {
    const entry = JSON.parse(text.toString('utf8')) as Partial<PathLogEntry> | null;
    if (!entry || typeof entry.e !== 'number' || typeof entry.t !== 'string' || !entry.r) return undefined;
    return entry as PathLogEntry;
  } catch {
    return undefined;
  }
}
