// What a damaged journal lost, as sequence ranges and in words, and who has the journal open: what opening
// the journal (journal.ts), verify-store and the logs say about it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JournalRecovery, SegmentRange, SeqRange } from './journal-segments.js';

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
