// Per-commit gate verdicts (GraphQL `prVerdict(sha)`): the last verdict for each commit of each tenant,
// kept in memory and appended to `DATA_DIR/gate/verdicts.ndjson`, which is read back at start.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GateResult, Verdict } from './evaluate.js';

export interface StoredVerdict {
  tenant: string;
  sha: string;
  verdict: Verdict;
  reason: string;
  attribution: string;
  opened: number;
  worsened: number;
  preexisting: number;
  slug: string | null;
  pr: number | null;
  decidedAt: string;
}

export class VerdictStore {
  private readonly byTenant = new Map<string, Map<string, StoredVerdict>>();
  private readonly file: string;

  constructor(dataDir: string) {
    const dir = path.join(dataDir, 'gate');
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'verdicts.ndjson');
    if (!existsSync(this.file)) return;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        this.remember(JSON.parse(line) as StoredVerdict);
      } catch {
        // A torn last line (a crash mid-append) loses that verdict only.
      }
    }
  }

  record(
    tenant: string,
    result: GateResult,
    context: { slug?: string; pr?: number },
    at: number,
  ): StoredVerdict | undefined {
    if (!result.commit) return undefined;
    const stored: StoredVerdict = {
      tenant,
      sha: result.commit.toLowerCase(),
      verdict: result.verdict,
      reason: result.reason,
      attribution: result.attribution,
      opened: result.opened.length,
      worsened: result.worsened.length,
      preexisting: result.preexisting,
      slug: context.slug ?? null,
      pr: context.pr ?? null,
      decidedAt: new Date(at).toISOString(),
    };
    appendFileSync(this.file, `${JSON.stringify(stored)}\n`);
    this.remember(stored);
    return stored;
  }

  /** The last verdict for a commit (a full SHA, or a prefix of at least 7 characters that is unique). */
  get(tenant: string, sha: string): StoredVerdict | undefined {
    const commits = this.byTenant.get(tenant);
    if (!commits) return undefined;
    const wanted = sha.toLowerCase();
    const exact = commits.get(wanted);
    if (exact || wanted.length < 7) return exact;
    const matches = [...commits.values()].filter((v) => v.sha.startsWith(wanted) || wanted.startsWith(v.sha));
    if (!matches.length) return undefined;
    // Entries under a full SHA and under its prefixes are one commit: the latest decision stands. Prefixes
    // of different commits are ambiguous.
    const longest = matches.reduce((a, b) => (b.sha.length > a.sha.length ? b : a));
    if (!matches.every((v) => longest.sha.startsWith(v.sha))) return undefined;
    return matches.reduce((a, b) => (b.decidedAt >= a.decidedAt ? b : a));
  }

  private remember(v: StoredVerdict): void {
    let commits = this.byTenant.get(v.tenant);
    if (!commits) this.byTenant.set(v.tenant, (commits = new Map()));
    commits.set(v.sha, v);
  }
}
