// The path lifecycle log: every path an analyzer pass opens, reopens or resolves is appended (whole
// record, frozen route) to `DATA_DIR/state/paths.ndjson` and synced before the pass's events go out, so
// a crash between snapshots keeps first_seen, reopens and resolved_at (issue 13, item 10). Each line
// carries the log's epoch, and each snapshot names the epoch it covers (`paths` in its metadata). Once a
// snapshot is durable the log is set aside as `paths.previous.ndjson` (replacing the one before) and a
// new epoch begins: start-up applies the lines of both files after the restored snapshot's epoch, so a
// fall-back on the previous snapshot still finds the lines written since it, and lines a crash left
// behind that the snapshot already covers are skipped.
import { mkdir, open, rename, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { readLines, syncDir } from '../bus/journal.js';

export const PATH_LOG_FILE = 'paths.ndjson';
export const PREVIOUS_PATH_LOG_FILE = 'paths.previous.ndjson';
/**
 * About how many characters of lines one write of an append carries. Requests are answered between pieces:
 * at 1 MiB a piece kept them waiting about 30 ms each (the 100k estate's first pass logs 13.5 MB of lines).
 */
export const APPEND_PIECE = 1 << 18;

/** One log line: a tenant's path record as the snapshot writes it. */
export interface PathLogEntry {
  /** the log epoch the line was written in */
  e: number;
  t: string;
  r: object;
}

export interface PathLogRecovery {
  /** lines applied, for the start-up log */
  replayed: number;
  /** bytes of a torn final line (a crash mid-append) cut off */
  cutBytes: number;
  /** unreadable lines before the end, skipped */
  skipped: number;
}

export class PathLog {
  /** Whether lines were appended since the last snapshot: a snapshot is due even if no record arrived. */
  private dirty = false;

  private constructor(
    readonly dir: string,
    private handle: FileHandle,
    private size: number,
    /** the epoch new lines are written in; a snapshot covers every line of its epoch and before */
    private current: number,
    readonly recovery: PathLogRecovery,
  ) {}

  /**
   * Opens the log in `dir`, handing `apply` every line written after the snapshot that covers epoch
   * `covered` (none: every line), oldest first. A torn final line is cut off.
   */
  static async open(
    dir: string,
    covered: number | undefined,
    apply: (entry: PathLogEntry) => void,
  ): Promise<PathLog> {
    await mkdir(dir, { recursive: true });
    const recovery: PathLogRecovery = { replayed: 0, cutBytes: 0, skipped: 0 };
    let latest = covered ?? 0;
    const read = async (file: string): Promise<{ valid: number; cut: number } | undefined> => {
      const size = await sizeOf(file);
      if (size === undefined) return undefined;
      // Unreadable lines are skipped once a readable one follows them; at the very end they are a crash
      // mid-append, and are cut off.
      let valid = 0;
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
      return { valid, cut: size - valid };
    };
    const previous = await read(path.join(dir, PREVIOUS_PATH_LOG_FILE));
    if (previous?.cut) recovery.skipped++;
    const file = path.join(dir, PATH_LOG_FILE);
    const current = await read(file);
    const handle = await open(file, current ? 'r+' : 'w');
    if (current?.cut) {
      recovery.cutBytes = current.cut;
      await handle.truncate(current.valid);
      await handle.sync();
    }
    if (!current) await syncDir(dir);
    return new PathLog(dir, handle, current?.valid ?? 0, Math.max(latest, (covered ?? 0) + 1), recovery);
  }

  get file(): string {
    return path.join(this.dir, PATH_LOG_FILE);
  }

  /** The epoch a snapshot written now covers. */
  get epoch(): number {
    return this.current;
  }

  /** Whether lines were written since the last snapshot (a snapshot would take them in). */
  get pending(): boolean {
    return this.dirty;
  }

  /**
   * Appends a tenant's changed records and syncs them; a failed write is undone, so no torn line remains.
   * Written in pieces of about APPEND_PIECE characters: a first pass over a large estate logs thousands of
   * whole routes (64 MB for the 1M estate's 2,000 paths), which as one string, its join and its buffer were
   * the service's peak of memory (docs/perf.md).
   */
  async append(tenant: string, records: Iterable<object>): Promise<number> {
    const handle = this.handle;
    let at = this.size;
    let count = 0;
    let lines: string[] = [];
    let length = 0;
    const write = async () => {
      const buffer = Buffer.from(lines.join(''), 'utf8');
      lines = [];
      length = 0;
      const { bytesWritten } = await handle.write(buffer, 0, buffer.length, at);
      if (bytesWritten !== buffer.length)
        throw new Error(`short write: ${bytesWritten} of ${buffer.length} bytes`);
      at += buffer.length;
    };
    try {
      for (const r of records) {
        const line = `${JSON.stringify({ e: this.current, t: tenant, r })}\n`;
        lines.push(line);
        length += line.length;
        count++;
        if (length >= APPEND_PIECE) await write();
      }
      if (!count) return 0;
      if (lines.length) await write();
      await handle.sync();
    } catch (error) {
      await handle.truncate(this.size).catch(() => undefined);
      throw error;
    }
    this.size = at;
    this.dirty = true;
    return count;
  }

  /**
   * After a snapshot covering `epoch` is durable: sets the log aside (it serves a fall-back on the
   * snapshot before) and starts the next epoch in an empty one.
   */
  async compact(epoch: number): Promise<void> {
    this.current = Math.max(this.current, epoch + 1);
    this.dirty = false;
    await this.handle.close();
    let rotated = false;
    try {
      await rename(this.file, path.join(this.dir, PREVIOUS_PATH_LOG_FILE));
      rotated = true;
    } finally {
      // Not set aside: appends go on in the same file, after lines the snapshot covers.
      this.handle = await open(this.file, rotated ? 'w' : 'r+');
      if (rotated) this.size = 0;
    }
    await syncDir(this.dir);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
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
