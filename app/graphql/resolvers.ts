// GraphQL resolvers: thin reads over the caller's tenant. Routes are materialized only when asked for.
import { APP_NAME } from '../../src/auth/api-tokens.js';
import type { Principal } from '../../src/auth/principal.js';
import { appsOfNode, appsOfPath, nodeAppsCache, pathFilter } from '../../src/auth/scope.js';
import { violationsOf } from '../../src/invariants/violation.js';
import type { Engine } from '../../src/engine/engine.js';
import { calibrate } from '../../src/governance/calibration.js';
import type { Governance } from '../../src/governance/governance.js';
import { suppressionState } from '../../src/governance/suppressions.js';
import { validationMetrics } from '../../src/governance/validations.js';
import { routeHasBasis, routeNodes, routeSteps, type PathRecord } from '../../src/paths/path-store.js';
import { ProblemError } from '../../src/http/problems.js';
import type { AnswerBudget } from './limits.js';
import { createAnalysisResolvers } from './analyses.js';
import { createPathDetailResolvers } from './path-details.js';
import { createGateVerdictResolvers, repositoryScope } from './gate-verdicts.js';
import { createNeighbourhoodResolvers } from './neighbourhood.js';
import { createSearchResolvers } from './search.js';
import type { AnalysisService } from '../../src/analysis/analysis-service.js';

export interface GraphqlContext {
  engine: Engine;
  /** suppressions (AttackPath.suppression) and verdicts (calibration); absent in engine-only tests */
  governance?: Governance;
  /** the caller's tenant, after its credential's binding (app/plugins/api-auth.ts) */
  tenant: string;
  principal: Principal;
  now: number;
  /** the audit log's `view.attack_paths`: the ids of the paths this request was shown */
  onView?: (pathIds: string[]) => void;
  /** the audit log's `view.graph`: the ids of the paths whose routes (nodes, hops) this request read */
  onGraphView?: (pathIds: string[]) => void;
  /** the heavy analyses' compiled graphs, profiles and slots (app/graphql/analyses.ts) */
  analyses?: AnalysisService;
  /** GRAPHQL_MAX_PATHS: the path records this request's answer may still carry (app/graphql/limits.ts) */
  answer?: AnswerBudget;
  /** Aborts when the client goes away before its answer: heavy analyses stop (app/graphql/analyses.ts) */
  signal?: AbortSignal;
}

/** The tenant's open (or all) paths this principal may see: app-scoped credentials see their apps' only. */
function visible(ctx: GraphqlContext, list: readonly PathRecord[]): readonly PathRecord[] {
  if (!ctx.principal.apps) return list;
  return list.filter(pathFilter(ctx.principal, ctx.engine.tenant(ctx.tenant)?.graph));
}

interface AttackPathsArgs {
  first?: number | null;
  after?: string | null;
  priority?: 'P1' | 'P2' | 'P3' | null;
  minScore?: number | null;
  target?: string | null;
  state?: 'OPEN' | 'RESOLVED' | 'ALL' | null;
  application?: string | null;
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/** One page of the listing and the size of the whole filtered listing. */
function selectPaths(ctx: GraphqlContext, args: AttackPathsArgs): PathRecord[] {
  return pagePaths(ctx, args).page;
}

/** A connection's default page size (attackPathsConnection without `first`). */
export const CONNECTION_PAGE = 100;

function pagePaths(
  ctx: GraphqlContext,
  args: AttackPathsArgs,
): { page: PathRecord[]; total: number; hasNext: boolean } {
  const state = ctx.engine.tenant(ctx.tenant);
  if (!state) return { page: [], total: 0, hasNext: false };
  if (args.first !== undefined && args.first !== null && args.first < 0) {
    throw new ProblemError('invalid-query', `first must be 0 or more, got ${args.first}`);
  }
  const wanted = args.state ?? 'OPEN';
  let list: readonly PathRecord[] = visible(
    ctx,
    wanted === 'OPEN'
      ? state.paths.open()
      : [...state.paths.all()]
          .filter((r) => wanted === 'ALL' || r.state === 'resolved')
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)),
  );
  if (args.target) {
    const key = args.target.toLowerCase();
    const graph = state.graph;
    // By id (any case) or by the target's name (case-insensitive).
    list = list.filter(
      (r) =>
        r.targetId.toLowerCase() === key ||
        (graph.hasNode(r.targetId) && graph.getNodeAttribute(r.targetId, 'name').toLowerCase() === key),
    );
  }
  if (args.application !== undefined && args.application !== null) {
    const app = args.application;
    if (!APP_NAME.test(app))
      throw new ProblemError(
        'invalid-query',
        `application must be an application name (letters, digits, . _ / -, at most 128), got ${JSON.stringify(app.slice(0, 200))}`,
      );
    // The same reading as a credential scoped to `app` (src/auth/scope.ts): a path through one of its nodes.
    const nodeApps = nodeAppsCache(state.graph);
    list = list.filter((r) => appsOfPath(state.graph, r, nodeApps).includes(app));
  }
  if (args.priority) list = list.filter((r) => r.priority === args.priority);
  if (args.minScore !== undefined && args.minScore !== null) {
    const min = args.minScore;
    list = list.filter((r) => r.score >= min);
  }
  let from = 0;
  if (args.after) {
    const index = list.findIndex((r) => r.id === args.after);
    if (index < 0)
      throw new ProblemError(
        'invalid-query',
        `cursor ${JSON.stringify(args.after)} names no path in this listing`,
      );
    from = index + 1;
  }
  const to = args.first === undefined || args.first === null ? list.length : from + args.first;
  return { page: list.slice(from, to), total: list.length, hasNext: to < list.length };
}

/**
 * `status.graph`: the tenant's counts, or for a principal bound to applications the counts of its
 * applications only: the nodes that name one of them, the edges that touch such a node; parked edges wait
 * for an endpoint whose application is not known yet, so none count.
 */
function graphCounts(ctx: GraphqlContext): { nodes: number; edges: number; pendingEdges: number } {
  const state = ctx.engine.tenant(ctx.tenant);
  if (!state) return { nodes: 0, edges: 0, pendingEdges: 0 };
  const graph = state.graph;
  if (!ctx.principal.apps)
    return { nodes: graph.order, edges: graph.size, pendingEdges: state.writer.pendingEdges };
  const wanted = new Set(ctx.principal.apps);
  const mine = new Set<string>();
  graph.forEachNode((id) => {
    if (appsOfNode(graph, id).some((a) => wanted.has(a))) mine.add(id);
  });
  let edges = 0;
  graph.forEachEdge((_edge, _attrs, from, to) => {
    if (mine.has(from) || mine.has(to)) edges++;
  });
  return { nodes: mine.size, edges, pendingEdges: 0 };
}

export function createResolvers() {
  const analyses = createAnalysisResolvers();
  const details = createPathDetailResolvers();
  const search = createSearchResolvers();
  return {
    ...analyses,
    PathStep: details.PathStep,
    SearchHit: search.SearchHit,
    Query: {
      ...analyses.Query,
      ...createGateVerdictResolvers().Query,
      ...createNeighbourhoodResolvers().Query,
      ...search.Query,
      attackPaths: (_: unknown, args: AttackPathsArgs, ctx: GraphqlContext) => {
        const paths = selectPaths(ctx, args);
        ctx.answer?.takePaths(paths.length);
        ctx.onView?.(paths.map((p) => p.id));
        return paths;
      },
      // The same listing as a connection: the cursor is the path id (what attackPaths' `after` takes).
      attackPathsConnection: (_: unknown, args: AttackPathsArgs, ctx: GraphqlContext) => {
        const { page, total, hasNext } = pagePaths(ctx, { ...args, first: args.first ?? CONNECTION_PAGE });
        ctx.answer?.takePaths(page.length);
        ctx.onView?.(page.map((p) => p.id));
        return {
          edges: page.map((node) => ({ cursor: node.id, node })),
          pageInfo: { hasNextPage: hasNext, endCursor: page.at(-1)?.id ?? null },
          totalCount: total,
        };
      },
      attackPath: (_: unknown, args: { id: string }, ctx: GraphqlContext) => {
        const record = ctx.engine.tenant(ctx.tenant)?.paths.get(args.id);
        if (!record || !visible(ctx, [record]).length) return null;
        ctx.answer?.takePaths(1);
        ctx.onView?.([record.id]);
        return record;
      },
      posture: (_: unknown, __: unknown, ctx: GraphqlContext) => {
        const open = visible(ctx, ctx.engine.tenant(ctx.tenant)?.paths.open() ?? []);
        let critical = 0;
        let suppressed = 0;
        let kev = 0;
        let runtime = 0;
        for (const record of open) {
          if (ctx.engine.isCritical(ctx.tenant, record)) critical++;
          else if (record.priority === 'P1') suppressed++;
          if (routeHasBasis(record, 'kev')) kev++;
          if (routeHasBasis(record, 'runtime')) runtime++;
        }
        return {
          criticalPaths: critical,
          suppressedCriticalPaths: suppressed,
          kevOnPaths: kev,
          runtimeConfirmed: runtime,
          openPaths: open.length,
        };
      },
      status: (_: unknown, __: unknown, ctx: GraphqlContext) => {
        const state = ctx.engine.tenant(ctx.tenant);
        const pass = state?.lastPass ?? null;
        return {
          prunedNodes: state?.pruning.prunedNodes ?? 0,
          prunedEdges: state?.pruning.prunedEdges ?? 0,
          lastPrunedAt: iso(state?.pruning.lastPrunedAt),
          reduced: ctx.engine.health
            .reduced()
            .map((c) => ({ part: c.part, reason: c.reason, since: new Date(c.since).toISOString() })),
          graph: graphCounts(ctx),
          analyzer: {
            passes: state?.passes ?? 0,
            lastPassAt: iso(pass?.at),
            lastPassSeconds: pass?.seconds ?? null,
            compileSeconds: pass?.compileSeconds ?? null,
            pathfindingSeconds: pass?.findSeconds ?? null,
            starts: pass?.starts ?? null,
            targets: pass?.targets ?? null,
            upToDate: state ? !state.stale : true,
          },
        };
      },
      violations: (_: unknown, __: unknown, ctx: GraphqlContext) => {
        const graph = ctx.engine.tenant(ctx.tenant)?.graph;
        if (!graph) return [];
        const apps = ctx.principal.apps && new Set(ctx.principal.apps);
        return violationsOf(graph)
          .filter((v) => !apps || appsOfNode(graph, v.nodeId).some((a) => apps.has(a)))
          .map((v) => {
            const attrs = graph.getNodeAttributes(v.nodeId);
            return { ...v, node: { id: v.nodeId, name: attrs.name, label: attrs.label } };
          });
      },
      // Deliberately not scoped to the caller's applications (spec, API auth item 8): it judges the model.
      calibration: (_: unknown, __: unknown, ctx: GraphqlContext) => {
        const verdicts = ctx.governance?.verdicts.list(ctx.tenant) ?? [];
        const report = calibrate(verdicts);
        const metrics = validationMetrics(verdicts);
        return {
          ...report,
          brierScore: report.brier,
          reliability: report.bins,
          precision: metrics.precision,
          recall: metrics.recall,
        };
      },
      prVerdict: (_: unknown, args: { sha: string }, ctx: GraphqlContext) => {
        const verdict = ctx.engine.prVerdict(ctx.tenant, args.sha);
        // A credential bound to applications: another application's commit is as unknown as one never gated.
        return verdict && repositoryScope(ctx)(verdict.slug) ? verdict : null;
      },
      ingestBatch: (_: unknown, args: { id: string }, ctx: GraphqlContext) => {
        const batch = ctx.engine.batches.get(args.id);
        if (!batch || batch.tenant !== ctx.tenant) return null;
        return {
          ...batch,
          complete: batch.completedAt !== null,
          receivedAt: iso(batch.receivedAt),
          completedAt: iso(batch.completedAt),
        };
      },
    },
    AttackPath: {
      ...analyses.AttackPath,
      ...details.AttackPath,
      state: (r: PathRecord) => (r.state === 'open' ? 'OPEN' : 'RESOLVED'),
      critical: (r: PathRecord, _: unknown, ctx: GraphqlContext) =>
        r.state === 'open' && ctx.engine.isCritical(ctx.tenant, r),
      suppression: (r: PathRecord, _: unknown, ctx: GraphqlContext) => {
        const s = ctx.governance?.suppressions.get(ctx.tenant, r.id);
        return s ? { ...s, state: suppressionState(s, ctx.now) } : null;
      },
      applications: (r: PathRecord, _: unknown, ctx: GraphqlContext) =>
        appsOfPath(ctx.engine.tenant(ctx.tenant)?.graph, r),
      firstSeen: (r: PathRecord) => iso(r.firstSeen),
      resolvedAt: (r: PathRecord) => iso(r.resolvedAt),
      openForSeconds: (r: PathRecord, _: unknown, ctx: GraphqlContext) =>
        Math.max(
          0,
          Math.floor(((r.state === 'open' ? ctx.now : (r.resolvedAt ?? ctx.now)) - r.openedAt) / 1000),
        ),
      nodes: (r: PathRecord, _: unknown, ctx: GraphqlContext) => {
        ctx.onGraphView?.([r.id]);
        return routeNodes(r);
      },
      steps: (r: PathRecord, _: unknown, ctx: GraphqlContext) => {
        ctx.onGraphView?.([r.id]);
        return routeSteps(r);
      },
      start: (r: PathRecord) => routeNodes(r)[0],
      target: (r: PathRecord) => routeNodes(r).at(-1),
    },
  };
}
