// The engine's side of the merge gate: gate evaluations (a few side by side), the commits' verdicts, the
// pull requests judged by commit attribution that later passes re-judge, and the hand-over of a follower's
// verdict to the leader (scale-out). Split from engine.ts, which builds it and routes to it.
import type { PathFinder } from '../analysis/path-finder.js';
import { evaluateGate, type GateRequest, type GateResult } from '../gate/evaluate.js';
import type { ReportEntry, VerdictStore } from '../gate/verdicts.js';
import { ProblemError } from '../http/problems.js';
import { readIngestContext } from '../ingest/context.js';
import type { IngestSource } from '../ingest/sources/source.js';
import type { Log } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PriorityThresholds, SuppressionNote } from '../paths/path-store.js';
import type { Leadership } from './leadership.js';
import type { PathSharing } from './path-sharing.js';
import { TENANT_NAME, type TenantState } from './tenant.js';

/** pull requests judged by commit attribution that passes re-judge (the oldest watch is dropped first) */
const MAX_WATCHED_COMMITS = 10_000;

export interface DecidedGate {
  tenant: string;
  slug?: string;
  pr?: number;
  sha?: string;
  result: GateResult;
}

/** A follower's gate verdict, for the leader to write to the pull request. */
export interface HandedVerdict {
  decided: DecidedGate;
  /** the reports the follower recorded for it */
  reports: ReportEntry[];
}

export interface EngineGateDeps {
  tenants: ReadonlyMap<string, TenantState>;
  sources: ReadonlyMap<string, IngestSource>;
  finder: PathFinder;
  config: { thresholds: PriorityThresholds; seedIamUsers: boolean; analyzerThreads: number };
  now: () => number;
  suppression?: (tenant: string, pathId: string, at: number) => SuppressionNote | undefined;
  verdicts: VerdictStore;
  leadership: Leadership;
  pathSharing: Pick<PathSharing, 'verdictsRecorded'>;
  /** On a follower: hands a verdict for a pull request to the leader (src/db/leader-inbox.ts). */
  handOff?: (handed: HandedVerdict) => Promise<void>;
  metrics: Metrics;
  log: Log;
}

export type EngineGate = ReturnType<typeof createEngineGate>;

export function createEngineGate(deps: EngineGateDeps) {
  const { tenants, verdicts, leadership, pathSharing, now, log } = deps;
  // Gate evaluations run side by side, as many as the pool has worker threads: each copies and searches
  // its fork of the live graph on a worker (src/analysis/patched-search.ts), so the main thread keeps
  // only short steps of each and ingest requests go on between them (docs/perf.md, issue 17).
  const gateSlots = new Slots(Math.max(1, deps.config.analyzerThreads));
  const verdictListeners: ((decided: DecidedGate) => Promise<void>)[] = [];
  const watchedCommits = new Map<string, { tenant: string; sha: string; slug: string; pr: number }>();

  /**
   * `persist: false` evaluates only (a viewer's read): the commit's verdict is not stored, nothing is
   * re-judged later, and no verdict listener (the PR comment and status) hears of it.
   */
  async function gateImpact(request: GateRequest, options: { persist?: boolean } = {}): Promise<GateResult> {
    if (!TENANT_NAME.test(request.tenant))
      throw new ProblemError(
        'invalid-query',
        `tenant ${JSON.stringify(request.tenant)} is not a valid tenant name`,
      );
    const suppression = deps.suppression;
    const result = await gateSlots.run(() =>
      evaluateGate(tenants.get(request.tenant), request, {
        sources: deps.sources,
        finder: deps.finder,
        thresholds: deps.config.thresholds,
        seedIamUsers: deps.config.seedIamUsers,
        now,
        suppression: suppression && ((id) => suppression(request.tenant, id, now())),
      }),
    );
    deps.metrics.gateVerdicts.inc({ verdict: result.verdict });
    if (options.persist === false) return result;
    const context = readIngestContext(request.query);
    verdicts.record(request.tenant, result, { slug: context.slug, pr: context.pr }, now());
    // Scale-out: the leader shares its verdicts; a follower hands its own to the leader (below).
    const recorded = verdicts.takeRecorded();
    await pathSharing.verdictsRecorded(recorded);
    watchCommit(request.tenant, result, context);
    const decided: DecidedGate = {
      tenant: request.tenant,
      slug: context.slug,
      pr: context.pr,
      sha: context.sha,
      // The commit's verdict over all its reports, not only this one (src/gate/verdicts.ts).
      result: (result.commit && verdicts.view(request.tenant, result.commit)) || result,
    };
    // Forge writes are the leader's alone (replicas would race on the same comment); a follower hands its
    // verdict to the leader (scale-out: src/db/leader-inbox.ts), which writes it.
    if (leadership.isLeader()) tellVerdictListeners(decided);
    else if (deps.handOff && decided.slug && decided.pr !== undefined)
      await deps
        .handOff({ decided: { ...decided, result: { ...decided.result, paths: [] } }, reports: recorded })
        .catch((error: unknown) =>
          log.error({ err: error, sha: context.sha }, 'could not hand the gate verdict to the leader'),
        );
    return result;
  }

  function tellVerdictListeners(decided: DecidedGate): void {
    for (const listener of verdictListeners) {
      listener(decided).catch((error: unknown) =>
        log.error({ err: error, sha: decided.sha }, 'a gate verdict listener failed'),
      );
    }
  }

  // A pull request judged by its commit's stamped assets (no report yet) is re-judged when later passes
  // change paths; one watch per pull request (its newest commit), dropped when a report is gated for it
  // or the pull request is closed.
  function watchCommit(
    tenantName: string,
    result: Pick<GateResult, 'commit' | 'attribution'>,
    context: { slug?: string; pr?: number },
  ): void {
    if (!result.commit || !context.slug || context.pr === undefined) return;
    const key = `${tenantName}|${context.slug.toLowerCase()}#${context.pr}`;
    watchedCommits.delete(key);
    if (result.attribution !== 'commit') return;
    watchedCommits.set(key, { tenant: tenantName, sha: result.commit, slug: context.slug, pr: context.pr });
    if (watchedCommits.size > MAX_WATCHED_COMMITS) watchedCommits.delete(watchedCommits.keys().next().value!);
  }

  return {
    gateImpact,
    /** On the leader: a verdict a follower gave and handed over; kept, shared and written to the PR as ours. */
    async receiveHandedVerdict(handed: HandedVerdict): Promise<void> {
      for (const entry of handed.reports) verdicts.adopt(entry);
      await pathSharing.verdictsRecorded(handed.reports);
      const { decided } = handed;
      watchCommit(decided.tenant, decided.result, decided);
      const commit = decided.result.commit;
      tellVerdictListeners({
        ...decided,
        result: (commit && verdicts.view(decided.tenant, commit)) || decided.result,
      });
    },
    /** Called after every gate verdict (the GitHub app comments and sets the status from it). */
    onVerdict(listener: (decided: DecidedGate) => Promise<void>): void {
      verdictListeners.push(listener);
    },
    /** A pull request closed or merged: its commit is no longer watched. */
    forgetPullRequest(tenantName: string, slug: string, pr: number): void {
      watchedCommits.delete(`${tenantName}|${slug.toLowerCase()}#${pr}`);
    },
    /** After a pass that changed the tenant's paths: its commits judged by attribution, judged again. */
    rejudge(tenantName: string): void {
      for (const watched of watchedCommits.values()) {
        if (watched.tenant !== tenantName) continue;
        void gateImpact({
          tenant: watched.tenant,
          body: {},
          query: { sha: watched.sha, slug: watched.slug, pr: String(watched.pr) },
          attribution: 'commit',
        }).catch((error: unknown) =>
          log.error({ err: error, sha: watched.sha }, 'could not re-judge a commit'),
        );
      }
    },
  };
}

/** At most `size` tasks at once; the rest wait their turn in order. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
