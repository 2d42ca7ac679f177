// Where a scale-out replica starts from (split from engine.ts): the newest readable local snapshot, or the
// leader's newer one shared through PostgreSQL; the broker's stream holds every record after it.
import path from 'node:path';
import {
  PREVIOUS_SNAPSHOT_FILE,
  readSnapshot,
  SNAPSHOT_FILE,
  type SnapshotMeta,
} from '../bus/snapshot-file.js';
import type { Log } from '../log/logger.js';

export interface SharedSnapshots {
  latest(): Promise<{ meta: SnapshotMeta; lines: AsyncIterable<string> } | undefined>;
  latestSeq(): Promise<number | undefined>;
  write(meta: SnapshotMeta & { format: number }, lines: Iterable<string>): Promise<void>;
}

/**
 * Scale-out start: the newest readable snapshot in DATA_DIR/state (the previous one when the newest is
 * damaged), or none; the broker's stream holds every record after it for BUS_MAX_AGE.
 */
export async function readBrokerSnapshot(stateDir: string, log: Log, shared?: SharedSnapshots) {
  let local: { meta: SnapshotMeta; lines: AsyncIterable<string>; file: string } | undefined;
  for (const name of [SNAPSHOT_FILE, PREVIOUS_SNAPSHOT_FILE]) {
    try {
      const found = await readSnapshot(stateDir, name);
      if (found) {
        local = { ...found, file: path.join(stateDir, name) };
        break;
      }
    } catch (error) {
      log.warn({ err: error, file: path.join(stateDir, name) }, 'snapshot unreadable; trying the one before');
    }
  }
  // A new replica, or one long stopped: the leader's newer snapshot saves reading the stream since.
  const sharedSeq = await shared?.latestSeq();
  if (shared && sharedSeq !== undefined && sharedSeq > (local?.meta.seq ?? 0)) {
    const found = await shared.latest();
    if (found) {
      log.info({ seq: found.meta.seq, localSeq: local?.meta.seq }, 'starting from the shared graph snapshot');
      return { ...found, file: 'postgres:graph_snapshots' };
    }
  }
  return local;
}
