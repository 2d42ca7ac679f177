// Graph snapshots in PostgreSQL: the leader writes one whenever it writes its local snapshot, and a
// replica starting with an older local snapshot (or none) starts from the newest here, then reads the bus
// stream after its sequence, instead of the whole stream (which BUS_MAX_AGE may have cut anyway).
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SnapshotMeta } from '../bus/snapshot-file.js';
import type { Db } from './postgres.js';

/** Snapshots kept: the newest and the one before (a reader may still be reading it). */
const KEEP = 2;

export class SnapshotTable {
  constructor(private readonly db: Db) {}

  async write(meta: SnapshotMeta & { format: number }, lines: Iterable<string>): Promise<void> {
    const parts: string[] = [];
    let count = 0;
    for (const line of lines) {
      parts.push(line, '\n');
      count++;
    }
    const body = gzipSync(parts.join(''));
    await this.db.query(
      'insert into graph_snapshots (seq, format, meta, body, lines) values ($1, $2, $3, $4, $5)',
      [meta.seq, meta.format, JSON.stringify(meta), body, count],
    );
    await this.db.query(
      'delete from graph_snapshots where id not in (select id from graph_snapshots order by seq desc, id desc limit $1)',
      [KEEP],
    );
  }

  /** The newest snapshot's meta (without its body), if any. */
  async latestSeq(): Promise<number | undefined> {
    const { rows } = await this.db.query<{ seq: string }>(
      'select seq from graph_snapshots order by seq desc, id desc limit 1',
    );
    return rows[0] ? Number(rows[0].seq) : undefined;
  }

  async latest(): Promise<{ meta: SnapshotMeta; lines: AsyncIterable<string> } | undefined> {
    const { rows } = await this.db.query<{ meta: SnapshotMeta; body: Buffer; lines: number }>(
      'select meta, body, lines from graph_snapshots order by seq desc, id desc limit 1',
    );
    const row = rows[0];
    if (!row) return undefined;
    const text = gunzipSync(row.body).toString('utf8');
    const all = text.split('\n');
    if (all.at(-1) === '') all.pop();
    if (all.length !== row.lines)
      throw new Error(`graph snapshot at seq ${row.meta.seq}: ${all.length} lines, expected ${row.lines}`);
    // A path log epoch belongs to the replica that wrote it, not to this one.
    const { paths: _paths, ...meta } = row.meta;
    return {
      meta,
      lines: (async function* () {
        yield* all;
      })(),
    };
  }
}
