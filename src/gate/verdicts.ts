// Per-commit gate verdicts (GraphQL `prVerdict(sha)`, the GitHub app's comments and status). A commit is
// gated by several reports (an image scan, a code scan, a second image, a Terraform plan): each is kept by
// its source and artifact until a newer report of the same source and artifact replaces it, and the
// commit's verdict is the worst over all of them (blocked, then unknown, then clean). A route stays on the
// pull request until it is gone from every report's view. Verdicts by commit attribution (no report) stand
// only while no report has been gated for the commit. Kept in memory and appended to
// `DATA_DIR/gate/verdicts.ndjson` (each line one report's result), which is read back at start and
// compacted when superseded lines outnumber the live ones.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GatePath, GateResult, ImprovedPath, Verdict } from './evaluate.js';

export interface StoredVerdict {
  tenant: string;
  sha: string;
  verdict: Verdict;
  reason: string;
  attribution: string;
  opened: number;
  worsened: number;
  /** crown jewels the commit's reports expose to the internet */
  exposed: number;
  preexisting: number;
  slug: string | null;
  pr: number | null;
  decidedAt: string;
}

/** One report's result for a commit, as stored. */
export interface ReportEntry {
  tenant: string;
  sha: string;
  /** `<source>|<artifact>`, or `commit|` for attribution by commit */
  key: string;
  slug: string | null;
  pr: number | null;
  decidedAt: string;
  result: Omit<GateResult, 'paths'> & { counts?: { opened: number; worsened: number } };
}

const MAX_ROUTES_KEPT = 200;
const WORST: Readonly<Record<Verdict, number>> = { clean: 0, unknown: 1, blocked: 2 };

export class VerdictStore {
  private readonly byTenant = new Map<string, Map<string, Map<string, ReportEntry>>>();
  private readonly file: string;
  private lines = 0;
  /** Reports recorded here since `takeRecorded` last ran (scale-out: the leader shares them). */
  private recorded: ReportEntry[] = [];

  constructor(
    dataDir: string,
    /** commits kept per tenant */
    private readonly maxCommits = 20_000,
  ) {
    const dir = path.join(dataDir, 'gate');
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'verdicts.ndjson');
    if (!existsSync(this.file)) return;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      this.lines++;
      try {
        const entry = JSON.parse(line) as ReportEntry | StoredVerdict;
        this.remember('key' in entry ? entry : fromLegacy(entry));
      } catch {
        // A torn last line (a crash mid-append) loses that verdict only.
      }
    }
    if (this.lines > 1000 && this.lines > 2 * this.entries().length) this.compact();
  }

  /** Reports kept, over every tenant and commit (for tests and the compaction rule). */
  get size(): number {
    return this.entries().length;
  }

  /** Stores one report's result for its commit; returns the commit's verdict over all its reports. */
  record(
    tenant: string,
    result: GateResult,
    context: { slug?: string; pr?: number },
    at: number,
  ): StoredVerdict | undefined {
    if (!result.commit) return undefined;
    // Routes kept per report: the worst ones (the lists are sorted by score); counts kept whole.
    const { paths: _paths, ...all } = result;
    const kept = {
      ...all,
      opened: all.opened.slice(0, MAX_ROUTES_KEPT),
      worsened: all.worsened.slice(0, MAX_ROUTES_KEPT),
      improved: all.improved.slice(0, MAX_ROUTES_KEPT),
      counts: { opened: all.opened.length, worsened: all.worsened.length },
    };
    const entry: ReportEntry = {
      tenant,
      sha: result.commit.toLowerCase(),
      key: reportKey(result),
      slug: context.slug ?? null,
      pr: context.pr ?? null,
      decidedAt: new Date(at).toISOString(),
      result: kept,
    };
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    this.lines++;
    this.remember(entry);
    this.recorded.push(entry);
    return this.get(tenant, entry.sha);
  }

  /** The reports recorded since the last call (the leader writes them to PostgreSQL). */
  takeRecorded(): ReportEntry[] {
    return this.recorded.splice(0);
  }

  /** A report another replica (the leader) recorded: kept as if recorded here, once. */
  adopt(entry: ReportEntry): void {
    const held = this.byTenant.get(entry.tenant)?.get(entry.sha)?.get(entry.key);
    if (held && held.decidedAt >= entry.decidedAt) return;
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    this.lines++;
    this.remember(entry);
  }

  /** The commit's verdict (a full SHA, or a prefix of at least 7 characters that is unique). */
  get(tenant: string, sha: string): StoredVerdict | undefined {
    const reports = this.reportsOf(tenant, sha);
    if (!reports) return undefined;
    const view = combine(reports);
    const last = reports.reduce((a, b) => (b.decidedAt >= a.decidedAt ? b : a));
    return {
      tenant,
      sha: last.sha,
      verdict: view.verdict,
      reason: view.reason,
      attribution: view.attribution,
      opened:
        reports.length === 1 ? (reports[0].result.counts?.opened ?? view.opened.length) : view.opened.length,
      worsened:
        reports.length === 1
          ? (reports[0].result.counts?.worsened ?? view.worsened.length)
          : view.worsened.length,
      exposed: view.exposed?.length ?? 0,
      preexisting: view.preexisting,
      slug: last.slug,
      pr: last.pr,
      decidedAt: last.decidedAt,
    };
  }

  /**
   * Every commit's verdict in the tenant (GraphQL `gateVerdicts`), newest decision first (ties by SHA). A
   * commit kept under a short SHA and under its full SHA is one commit, listed once under the longest.
   */
  list(tenant: string): StoredVerdict[] {
    const commits = this.byTenant.get(tenant);
    if (!commits) return [];
    const shas = [...commits.keys()].sort();
    const out: StoredVerdict[] = [];
    for (const [i, sha] of shas.entries()) {
      // Sorted, a prefix comes right before the SHAs it abbreviates: the longest one speaks for them.
      if (shas[i + 1]?.startsWith(sha)) continue;
      const verdict = this.get(tenant, sha);
      if (verdict) out.push(verdict);
    }
    return out.sort((a, b) => b.decidedAt.localeCompare(a.decidedAt) || (a.sha < b.sha ? -1 : 1));
  }

  /** The commit's result over all its reports, in the shape of one gate result (for the forge app). */
  view(tenant: string, sha: string): GateResult | undefined {
    const reports = this.reportsOf(tenant, sha);
    return reports ? combine(reports) : undefined;
  }

  private reportsOf(tenant: string, sha: string): ReportEntry[] | undefined {
    const commits = this.byTenant.get(tenant);
    if (!commits) return undefined;
    const wanted = sha.toLowerCase();
    let matches: string[];
    if (commits.has(wanted) || wanted.length < 7) matches = commits.has(wanted) ? [wanted] : [];
    else {
      matches = [...commits.keys()].filter((v) => v.startsWith(wanted) || wanted.startsWith(v));
      // Entries under a full SHA and under its prefixes are one commit; prefixes of different commits are
      // ambiguous.
      const longest = matches.reduce((a, b) => (b.length > a.length ? b : a), '');
      if (!matches.every((v) => longest.startsWith(v))) return undefined;
    }
    const byKey = new Map<string, ReportEntry>();
    for (const sha of matches)
      for (const entry of commits.get(sha)!.values()) {
        const seen = byKey.get(entry.key);
        if (!seen || entry.decidedAt >= seen.decidedAt) byKey.set(entry.key, entry);
      }
    if (!byKey.size) return undefined;
    // Attribution by commit stands in only while no report has been gated.
    const reports = [...byKey.values()].filter((e) => e.key !== COMMIT_KEY);
    return reports.length ? reports : [...byKey.values()];
  }

  private remember(entry: ReportEntry): void {
    let commits = this.byTenant.get(entry.tenant);
    if (!commits) this.byTenant.set(entry.tenant, (commits = new Map()));
    let reports = commits.get(entry.sha);
    if (!reports) {
      commits.set(entry.sha, (reports = new Map()));
      // Bounded: the commits gated longest ago are forgotten first (and dropped from the file when it is
      // next compacted).
      if (commits.size > this.maxCommits) commits.delete(commits.keys().next().value!);
    }
    reports.set(entry.key, entry);
  }

  private entries(): ReportEntry[] {
    return [...this.byTenant.values()].flatMap((c) => [...c.values()].flatMap((r) => [...r.values()]));
  }

  private compact(): void {
    const entries = this.entries();
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(temp, this.file);
    this.lines = entries.length;
  }
}

const COMMIT_KEY = 'commit|';

/** Which report a result replaces: the same source about the same artifact. */
export function reportKey(result: Pick<GateResult, 'attribution' | 'source' | 'artifact'>): string {
  if (result.attribution === 'commit') return COMMIT_KEY;
  return `${result.source ?? 'unrecognised'}|${result.artifact ?? ''}`;
}

/** The worst verdict over a commit's reports; routes merged by id (the likeliest view of each kept). */
function combine(reports: ReportEntry[]): GateResult {
  const sorted = [...reports].sort((a, b) => a.decidedAt.localeCompare(b.decidedAt));
  if (sorted.length === 1)
    // Lines written before `preexistingCount` carry the count as `preexisting` alone.
    return {
      ...sorted[0].result,
      preexistingCount: sorted[0].result.preexistingCount ?? sorted[0].result.preexisting,
      paths: [],
    };
  const merge = (pick: (r: Omit<GateResult, 'paths'>) => GatePath[]) => {
    const byId = new Map<string, GatePath>();
    for (const entry of sorted)
      for (const path of pick(entry.result)) {
        const seen = byId.get(path.id);
        if (!seen || path.score > seen.score) byId.set(path.id, path);
      }
    return [...byId.values()].sort((a, b) => b.score - a.score);
  };
  const byId = <T extends { id: string }>(pick: (r: Omit<GateResult, 'paths'>) => T[] | undefined) => [
    ...new Map(sorted.flatMap((e) => pick(e.result) ?? []).map((v) => [v.id, v])).values(),
  ];
  const exposed = byId((r) => r.exposed);
  const unexposed = byId((r) => r.unexposed).filter((v) => !exposed.some((x) => x.id === v.id));
  const worsened = merge((r) => r.worsened);
  const opened = merge((r) => r.opened).filter((p) => !worsened.some((w) => w.id === p.id));
  const changed = new Set([...opened, ...worsened].map((p) => p.id));
  const improved = new Map<string, ImprovedPath>();
  for (const entry of sorted)
    for (const path of entry.result.improved ?? []) if (!changed.has(path.id)) improved.set(path.id, path);
  const worst = sorted.reduce((a, b) => (WORST[b.result.verdict] > WORST[a.result.verdict] ? b : a));
  const verdict = worst.result.verdict;
  const label = (e: ReportEntry) =>
    `${e.result.source ?? e.result.attribution}${e.result.artifact ? ` ${e.result.artifact}` : ''}`;
  const reason =
    `${verdict} over ${sorted.length} reports (worst: ${label(worst)}): ${worst.result.reason}` +
    (verdict !== 'clean' ? '' : `; ${sorted.map((e) => `${label(e)} ${e.result.verdict}`).join(', ')}`);
  return {
    verdict,
    reason,
    analysed: sorted.some((e) => e.result.analysed),
    attribution: sorted.every((e) => e.result.attribution === 'commit') ? 'commit' : 'report',
    source: worst.result.source,
    opened,
    worsened,
    preexisting: Math.max(...sorted.map((e) => e.result.preexisting)),
    preexistingCount: Math.max(...sorted.map((e) => e.result.preexisting)),
    improved: [...improved.values()],
    ...(exposed.length && { exposed }),
    ...(unexposed.length && { unexposed }),
    paths: [],
    reports: sorted.map((e) => ({
      source: e.result.source,
      artifact: e.result.artifact ?? null,
      verdict: e.result.verdict,
      reason: e.result.reason,
      decidedAt: e.decidedAt,
    })),
    commit: worst.sha,
  };
}

function fromLegacy(v: StoredVerdict): ReportEntry {
  return {
    tenant: v.tenant,
    sha: v.sha,
    key: v.attribution === 'commit' ? COMMIT_KEY : 'legacy|',
    slug: v.slug,
    pr: v.pr,
    decidedAt: v.decidedAt,
    result: {
      verdict: v.verdict,
      reason: v.reason,
      analysed: v.verdict !== 'unknown',
      attribution: v.attribution === 'commit' ? 'commit' : 'report',
      source: null,
      opened: [],
      worsened: [],
      preexisting: v.preexisting,
      preexistingCount: v.preexisting,
      improved: [],
      commit: v.sha,
    },
  };
}
