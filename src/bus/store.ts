// The embedded store as a whole: `DATA_DIR/state/` (the snapshot and the one before it) and
// `DATA_DIR/journal/` (segments). Start-up chooses what to restore from and checks that the journal holds
// every record after it; `pathgate verify-store` reads the same things deeply without changing anything.
// Nothing acknowledged is dropped without a word: known loss stops the start with one line, unless the
// operator asked for a repair (docs/operations.md).
import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { lockHolder, type LockHolder } from './data-dir-lock.js';
import {
  countRanges,
  describeLoss,
  describeProblem,
  formatRanges,
  Journal,
  JournalDamage,
  listSegments,
  readOwner,
  type JournalOwner,
  MAX_SEQ,
  QUARANTINE_DIR,
  scanSegment,
  STORE_ADVICE,
  subtract,
  uncovered,
  type SegmentRange,
  type SegmentTail,
  type SeqRange,
} from './journal.js';
import { logRecovery, type BusLog } from './memory.js';
import {
  peekSnapshotSeq,
  PREVIOUS_SNAPSHOT_FILE,
  quarantineSnapshot,
  readSnapshot,
  SNAPSHOT_FILE,
  SNAPSHOT_QUARANTINE_DIR,
  SnapshotError,
  type SnapshotMeta,
} from './snapshot-file.js';

/** A start refused because acknowledged data is known to be lost or damaged. */
export class StoreError extends Error {}

export interface SnapshotProbe {
  file: string;
  status: 'absent' | 'intact' | 'damaged' | 'unchecked';
  /** From the metadata line, even of a damaged snapshot when that line reads. */
  seq?: number;
  why?: string;
}

interface ReadableSnapshot {
  probe: SnapshotProbe;
  snapshot?: { meta: SnapshotMeta; lines: AsyncIterable<string> };
}

export function storeDirs(dataDir: string): { stateDir: string; journalDir: string } {
  return { stateDir: path.join(dataDir, 'state'), journalDir: path.join(dataDir, 'journal') };
}

async function probeSnapshot(stateDir: string, name: string): Promise<ReadableSnapshot> {
  const file = path.join(stateDir, name);
  try {
    const snapshot = await readSnapshot(stateDir, name);
    if (!snapshot) return { probe: { file, status: 'absent' } };
    return { probe: { file, status: 'intact', seq: snapshot.meta.seq }, snapshot };
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    const why = /\(([^)]*)\)$/.exec(error.message)?.[1] ?? error.message;
    return { probe: { file, status: 'damaged', seq: await peekSnapshotSeq(file), why } };
  }
}

/**
 * The highest seq any snapshot names: numbering never goes back below it, a damaged snapshot's included
 * (unless its seq is past what a segment name can hold, which only damage explains).
 */
function claimedSeq(baseSeq: number, ...probes: SnapshotProbe[]): number {
  return Math.max(baseSeq, ...probes.map((p) => (p.seq !== undefined && p.seq <= MAX_SEQ ? p.seq : 0)));
}

function lastRecord(ranges: SegmentRange[]): number {
  let last = 0;
  for (const r of ranges) if (r.lastSeq >= r.firstSeq) last = Math.max(last, r.lastSeq);
  return last;
}

/** Words for a gap in the journal, guessing its likely cause from what surrounds it. */
function describeGap(
  gaps: SeqRange[],
  base: SnapshotProbe | undefined,
  firstSeq: number | undefined,
): string {
  const n = countRanges(gaps);
  const what = `${n === 1 ? 'record' : `${n} records`} ${formatRanges(gaps)}`;
  const from = base ? `the snapshot (seq ${base.seq})` : 'an empty store';
  if (!base && gaps[0].from === 1 && firstSeq !== undefined && firstSeq > 1)
    return `the journal starts at seq ${firstSeq} and there is no intact snapshot: ${what}, compacted into a snapshot that is now missing or damaged, ${n === 1 ? 'is lost and was' : 'are lost and were'} acknowledged`;
  return `restoring ${from}, the journal lacks ${what} (a segment deleted or restored from an older backup): ${n === 1 ? 'it is lost and was' : 'they are lost and were'} acknowledged`;
}

export interface OpenedStore {
  /** The snapshot to restore, when there is one. */
  snapshot?: { meta: SnapshotMeta; lines: AsyncIterable<string>; file: string };
  /** Replay the journal after this seq (the snapshot's, or 0). */
  afterSeq: number;
  journal: Journal;
}

/**
 * Opens the store for a start: the newest intact snapshot (the current one, else the previous one, else
 * none), and the journal checked to hold every record after it. A damaged snapshot is moved aside and the
 * start falls back when the journal suffices. Known loss throws StoreError unless `repair`.
 */
export async function openStore(options: {
  dataDir: string;
  repair?: boolean;
  log?: BusLog;
  rotateAt?: number;
}): Promise<OpenedStore> {
  const { stateDir, journalDir } = storeDirs(options.dataDir);
  const log = options.log;
  const repair = options.repair === true;
  const current = await probeSnapshot(stateDir, SNAPSHOT_FILE);
  // The previous snapshot is read whole only when it may be needed.
  const previous: ReadableSnapshot =
    current.probe.status === 'intact'
      ? {
          probe: {
            file: path.join(stateDir, PREVIOUS_SNAPSHOT_FILE),
            status: 'unchecked',
            seq: await peekSnapshotSeq(path.join(stateDir, PREVIOUS_SNAPSHOT_FILE)),
          },
        }
      : await probeSnapshot(stateDir, PREVIOUS_SNAPSHOT_FILE);
  const base = [current, previous].find((s) => s.probe.status === 'intact');
  const baseSeq = base?.probe.seq ?? 0;
  const claimed = claimedSeq(baseSeq, current.probe, previous.probe);

  let journal: Journal;
  try {
    journal = await Journal.open(journalDir, {
      minSeq: claimed,
      coveredUpTo: baseSeq,
      repair,
      rotateAt: options.rotateAt,
      owner: true,
    });
  } catch (error) {
    if (error instanceof JournalDamage) throw new StoreError(`refusing to start: ${error.message}`);
    throw error;
  }
  for (const recovery of journal.recoveries) logRecovery(log, recovery);

  const journalLast = lastRecord(journal.ranges);
  // Records a repair just cut were named with their damage already.
  const cut = journal.recoveries.flatMap((r) => r.lost).sort((x, y) => x.from - y.from);
  const gaps = subtract(uncovered(journal.ranges, baseSeq, Math.max(journalLast, claimed)), cut);
  const damagedSnapshots = [current, previous].filter((s) => s.probe.status === 'damaged');
  const firstSeq = journal.ranges.find((r) => r.lastSeq >= r.firstSeq)?.firstSeq;
  if (gaps.length) {
    const damage = damagedSnapshots.map((s) => `; ${s.probe.file} is damaged (${s.probe.why})`).join('');
    const message = `${describeGap(gaps, base?.probe, firstSeq)}${damage}`;
    if (!repair) {
      await journal.close();
      throw new StoreError(`refusing to start: ${message}; ${STORE_ADVICE}`);
    }
    log?.error(
      { lost: formatRanges(gaps), count: countRanges(gaps) },
      `repair: ${message}; starting without them`,
    );
  }
  // Whatever happens next writes a new snapshot: damaged ones go aside first, a copy kept.
  for (const s of damagedSnapshots) {
    const moved = await quarantineSnapshot(stateDir, path.basename(s.probe.file));
    log?.[gaps.length ? 'error' : 'warn'](
      { file: s.probe.file, seq: s.probe.seq, quarantined: moved },
      `snapshot: ${s.probe.file} is damaged (${s.probe.why}); moved to ${moved}; ${
        base ? `restoring ${base.probe.file} (seq ${baseSeq})` : 'restoring from nothing'
      } and the journal after it${gaps.length ? '' : ', which holds every record since'}`,
    );
  }
  if (current.probe.status === 'absent' && base) {
    log?.warn(
      { file: current.probe.file, previous: base.probe.file, seq: baseSeq },
      `snapshot: ${current.probe.file} is missing (a crash while replacing it, or it was removed); restoring the previous one (seq ${baseSeq}) and the journal after it`,
    );
  }
  // (Not when damage the snapshot holds was just cut: that was said.)
  if (journalLast < baseSeq && !journal.recoveries.some((r) => r.held)) {
    log?.warn(
      { journalLastSeq: journalLast, snapshotSeq: baseSeq },
      `journal: it ends at seq ${journalLast}, before the snapshot's ${baseSeq} (emptied, or restored from a backup older than state/); the snapshot holds every record up to ${baseSeq} and new ones are numbered from ${journal.lastSeq + 1}`,
    );
  }
  return {
    snapshot: base?.snapshot && { ...base.snapshot, file: base.probe.file },
    afterSeq: baseSeq,
    journal,
  };
}

export interface SegmentReport {
  file: string;
  firstSeq: number;
  /** firstSeq - 1 when it holds no whole commit. */
  lastSeq: number;
  bytes: number;
  header: boolean;
  /** Whether it may hold records the restored snapshot does not. */
  needed: boolean;
  tail?: SegmentTail;
}

/** Whether the process named in the journal's owner file still runs: unknown on another host. */
export type OwnerState = JournalOwner & { running: boolean | 'unknown' };

export async function storeOwner(dataDir: string): Promise<OwnerState | undefined> {
  const owner = await readOwner(storeDirs(dataDir).journalDir);
  if (!owner) return undefined;
  if (owner.host !== hostname()) return { ...owner, running: 'unknown' };
  if (owner.pid === process.pid) return { ...owner, running: false };
  try {
    process.kill(owner.pid, 0);
    return { ...owner, running: true };
  } catch (error) {
    return { ...owner, running: (error as NodeJS.ErrnoException).code === 'EPERM' };
  }
}

export interface StoreReport {
  dataDir: string;
  /** The process that has the store open, or last had it and did not close it. */
  owner?: OwnerState;
  /** The live process holding DATA_DIR's lock: the store is in use, and the report may be mid-write. */
  inUse?: LockHolder;
  /** True when a start would lose nothing acknowledged and nothing is damaged. */
  healthy: boolean;
  snapshots: SnapshotProbe[];
  segments: SegmentReport[];
  /** Records after the restored snapshot that no segment holds. */
  gaps: SeqRange[];
  /** Files kept aside by earlier starts or repairs. */
  quarantine: string[];
  /** What `pathgate serve` would do with this store. */
  start: {
    outcome: 'start' | 'refuse';
    restores: string | null;
    afterSeq: number;
    replays: number;
    nextSeq: number;
    actions: string[];
  };
  /** Damage or loss, one line each. */
  problems: string[];
  /** Things worth knowing that lose nothing. */
  notes: string[];
}

async function filesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort().map((name) => path.join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Reads the whole store, verifying every snapshot and segment; changes nothing. */
export async function inspectStore(dataDir: string): Promise<StoreReport> {
  const { stateDir, journalDir } = storeDirs(dataDir);
  const current = await probeSnapshot(stateDir, SNAPSHOT_FILE);
  const previous = await probeSnapshot(stateDir, PREVIOUS_SNAPSHOT_FILE);
  const snapshots = [current.probe, previous.probe];
  const base = [current, previous].find((s) => s.probe.status === 'intact')?.probe;
  const baseSeq = base?.seq ?? 0;
  const claimed = claimedSeq(baseSeq, current.probe, previous.probe);
  const problems: string[] = [];
  const notes: string[] = [];
  const actions: string[] = [];
  let refuse = false;
  // Whole records after damage, which a repair keeps.
  let salvaged = 0;

  for (const s of snapshots) {
    if (s.status !== 'damaged') continue;
    problems.push(`snapshot: ${s.file} is damaged (${s.why})`);
    actions.push(`move ${s.file} to ${path.join(stateDir, SNAPSHOT_QUARANTINE_DIR)}/`);
  }
  if (current.probe.status === 'absent' && previous.probe.status === 'intact')
    notes.push(
      `snapshot: ${current.probe.file} is missing; the previous one (seq ${previous.probe.seq}) is intact`,
    );

  const found = await listSegments(journalDir);
  const segments: SegmentReport[] = [];
  for (let i = 0; i < found.length; i++) {
    const { file, firstSeq } = found[i];
    const next = found[i + 1];
    const needed = !next || next.firstSeq > baseSeq + 1;
    const bytes = (await stat(file)).size;
    if (bytes === 0) {
      segments.push({ file, firstSeq, lastSeq: firstSeq - 1, bytes, header: false, needed });
      if (!needed) notes.push(`journal: ${file} is empty, but the snapshot holds what it held`);
      else {
        problems.push(
          `journal: ${file} is empty (0 bytes): what it held from seq ${firstSeq} on is lost and may have been acknowledged (unless an older build made it and no report ever arrived)`,
        );
        refuse = true;
        actions.push(`move ${file} to ${path.join(journalDir, QUARANTINE_DIR)}/`);
      }
      continue;
    }
    const scan = await scanSegment(file, firstSeq, { nextFirstSeq: next?.firstSeq });
    const tail: SegmentTail | undefined = scan.tail && {
      ...scan.tail,
      kind: scan.tail.kind === 'torn' && !next ? 'torn' : 'damaged',
    };
    segments.push({ file, firstSeq, lastSeq: scan.lastSeq, bytes, header: scan.header, needed, tail });
    if (!tail) continue;
    const held =
      !tail.unknown && tail.lost.every((r) => r.to <= baseSeq) && tail.salvage.every((s) => s.to <= baseSeq);
    const where = `${file} at byte ${tail.offset} (${tail.why})`;
    const copy = `keeping a copy in ${path.join(journalDir, QUARANTINE_DIR)}/`;
    if (tail.kind === 'torn') {
      notes.push(
        `journal: ${where}: the unfinished last write of a crash, ${describeLoss(tail)}, never acknowledged`,
      );
      actions.push(
        `cut ${tail.bytes} bytes off ${file} (${describeLoss(tail)}, never acknowledged), ${copy}`,
      );
    } else if (held || !needed) {
      notes.push(`journal: ${where} is damaged, but the snapshot holds those records`);
      if (!next) actions.push(`cut ${tail.bytes} damaged bytes off ${file}, ${copy}`);
    } else {
      problems.push(
        describeProblem({
          file,
          offset: tail.offset,
          droppedBytes: tail.bytes,
          kind: 'damaged',
          why: tail.why,
          lost: tail.lost,
          batches: tail.batches,
          unknown: tail.unknown,
          quarantined: '',
          salvaged: tail.salvage.map((x) => ({ file, firstSeq: x.from, lastSeq: x.to })),
        }),
      );
      salvaged += tail.salvage.reduce((n, x) => n + x.to - Math.max(x.from, baseSeq + 1) + 1, 0);
      refuse = true;
      actions.push(
        `cut ${tail.bytes} bytes off ${file}, ${copy}${tail.salvage.length ? ', the whole records after the damage in segments of their own' : ''}`,
      );
    }
  }
  const ranges: SegmentRange[] = segments.map(({ file, firstSeq, lastSeq }) => ({ file, firstSeq, lastSeq }));
  // Records the start would deliver: those after the snapshot in whole commits, gaps skipped.
  const journalLast = lastRecord(ranges);
  const gaps = uncovered(ranges, baseSeq, Math.max(journalLast, claimed));
  if (gaps.length) {
    const firstSeq = ranges.find((r) => r.lastSeq >= r.firstSeq)?.firstSeq;
    problems.push(describeGap(gaps, base, firstSeq));
    refuse = true;
  }
  if (journalLast < baseSeq && found.length)
    notes.push(
      `journal: it ends at seq ${journalLast}, before the snapshot's ${baseSeq} (emptied, or restored from a backup older than state/); nothing is lost, new records are numbered from ${claimed + 1}`,
    );
  if (!refuse)
    for (let i = 0; i < problems.length; i++)
      if (problems[i].startsWith('snapshot: '))
        problems[i] +=
          `; nothing is lost: the journal holds every record after ${base ? `${base.file} (seq ${baseSeq})` : 'seq 0'}`;
  let replays = salvaged;
  for (const r of ranges) {
    const from = Math.max(r.firstSeq, baseSeq + 1);
    if (r.lastSeq >= from) replays += r.lastSeq - from + 1;
  }
  if (current.probe.status === 'damaged' || (current.probe.status === 'absent' && base))
    actions.unshift(
      base
        ? `restore the previous snapshot ${base.file} (seq ${baseSeq})`
        : 'restore nothing (no intact snapshot)',
    );
  const owner = await storeOwner(dataDir);
  if (owner) {
    const who = `pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}`;
    notes.push(
      owner.running === true
        ? `a service (${who}) has this store open: the newest segment may be mid-write; stop it for a stable report`
        : owner.running === false
          ? `the last service to open this store (${who}) did not close it: it was killed or crashed`
          : `the store was opened on another host (${who}) and not closed: that service is still running or was killed`,
    );
  }
  const quarantine = [
    ...(await filesIn(path.join(journalDir, QUARANTINE_DIR))),
    ...(await filesIn(path.join(stateDir, SNAPSHOT_QUARANTINE_DIR))),
  ];
  if (quarantine.length)
    notes.push(
      `${quarantine.length} file${quarantine.length > 1 ? 's' : ''} kept aside by earlier starts or repairs`,
    );
  const inUse = await lockHolder(dataDir);
  return {
    dataDir,
    owner,
    ...(inUse && { inUse }),
    healthy: problems.length === 0,
    snapshots,
    segments,
    gaps,
    quarantine,
    start: {
      outcome: refuse ? 'refuse' : 'start',
      restores: base?.file ?? null,
      afterSeq: baseSeq,
      replays,
      nextSeq: Math.max(journalLast, claimed) + 1,
      actions,
    },
    problems,
    notes,
  };
}

/** The report as the lines `pathgate verify-store` prints. */
export function formatReport(report: StoreReport): string[] {
  const state = report.inUse
    ? `IN USE by pid ${report.inUse.pid} on ${report.inUse.host} since ${report.inUse.startedAt} (it holds the DATA_DIR lock: what follows may be mid-write; stop it for a verdict)${report.healthy ? '' : ', PROBLEMS FOUND'}`
    : report.healthy
      ? 'healthy'
      : 'PROBLEMS FOUND';
  const lines: string[] = [`store ${report.dataDir}: ${state}`];
  for (const s of report.snapshots) {
    const state =
      s.status === 'intact'
        ? `intact, seq ${s.seq}`
        : s.status === 'damaged'
          ? `DAMAGED (${s.why})${s.seq !== undefined ? `, says seq ${s.seq}` : ''}`
          : 'absent';
    lines.push(`  snapshot ${path.basename(s.file)}: ${state}`);
  }
  if (!report.segments.length) lines.push('  journal: no segment');
  for (const s of report.segments) {
    const seqs =
      s.lastSeq > s.firstSeq
        ? `seqs ${s.firstSeq}-${s.lastSeq}`
        : s.lastSeq === s.firstSeq
          ? `seq ${s.firstSeq}`
          : 'no record';
    const state = s.tail
      ? `, ${s.tail.kind === 'torn' ? 'torn write' : 'DAMAGED'} at byte ${s.tail.offset}`
      : '';
    const extra = s.needed ? '' : ' (held by the snapshot)';
    lines.push(`  journal ${path.basename(s.file)}: ${seqs}, ${s.bytes} bytes${state}${extra}`);
  }
  if (report.gaps.length) lines.push(`  gaps: ${formatRanges(report.gaps)}`);
  for (const p of report.problems) lines.push(`  problem: ${p}`);
  for (const n of report.notes) lines.push(`  note: ${n}`);
  const start = report.start;
  lines.push(
    start.outcome === 'start'
      ? `a start would restore ${start.restores ?? 'nothing'} (seq ${start.afterSeq}), replay ${start.replays} journal record${start.replays === 1 ? '' : 's'}, and number new records from ${start.nextSeq}`
      : `a start would REFUSE; \`pathgate verify-store -repair\` would restore ${start.restores ?? 'nothing'} (seq ${start.afterSeq}) and replay the ${start.replays} record${start.replays === 1 ? '' : 's'} the journal still holds`,
  );
  for (const action of start.actions) lines.push(`  would ${action}`);
  return lines;
}
