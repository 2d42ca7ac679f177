// The analyses on the graph in GraphQL (issue 18): the schema they add (merged into SCHEMA_SDL, so the
// snapshot covers it) and their resolvers (merged by createResolvers). Heavy fields (riskSimulation, whatIf,
// remediationPlan, kShortestPaths) count against MAX_HEAVY_PER_REQUEST per request, the rest of them
// answering with an error, and take turns in the service's slots (src/analysis/analysis-service.ts), 429
// when full. They read the whole estate, so a credential scoped to applications may not run them.
import { AnalysisService, MAX_HEAVY_PER_REQUEST } from '../../src/analysis/analysis-service.js';
import type { CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { MAX_K, type RankedRoute } from '../../src/analysis/k-shortest.js';
import type { PlanItem, RemediationPlan } from '../../src/analysis/remediation-plan.js';
import { MAX_ITERATIONS, type RiskSimulation } from '../../src/analysis/risk-simulation.js';
import { pathUncertainty, type PathUncertainty } from '../../src/analysis/uncertainty.js';
import {
  resolveNode,
  resolveSelectors,
  SelectorError,
  type EdgeSelector,
  type WhatIfResult,
} from '../../src/analysis/what-if.js';
import type { Engine } from '../../src/engine/engine.js';
import type { TenantState } from '../../src/engine/tenant.js';
import { EDGE_TYPES, NODE_LABELS, WEIGHT_BASES } from '../../src/graph/vocabulary.js';
import { ProblemError } from '../../src/http/problems.js';
import { historyOf } from '../../src/paths/history.js';
import {
  hopJoinConfidence,
  pathConfidence,
  type PathConfidence,
} from '../../src/analysis/path-confidence.js';
import {
  directPathId,
  isCritical,
  pathId,
  routeSteps,
  type PathNode,
  type PathRecord,
} from '../../src/paths/path-store.js';
import { planFixes, type Fix } from '../../src/remediation/fixes.js';
import type { GraphqlContext } from './resolvers.js';

export const ANALYSES_SDL = /* GraphQL */ `
  extend type Query {
    """
    Monte Carlo risk over the graph: each hop present with its probability, reproducible per seed. Heavy: at
    most 20 heavy fields (riskSimulation, whatIf, remediationPlan, kShortestPaths) per request, the rest
    answering with an error; 429 when the service's analysis slots and queue are full; 503 past
    ANALYSIS_DEADLINE. One request asks for at most GRAPHQL_MAX_ITERATIONS (1,000,000) iterations in all.
    """
    riskSimulation(
      "Worlds to simulate, 1 to 1,000,000."
      iterations: Int = 1000
      "Seed of the random worlds: the same seed on the same graph gives the same answer."
      seed: Int = 1
    ): RiskSimulation
    """
    The named hops removed (or repriced) on a copy of the estate, the paths searched again and the risk
    simulated before and after on the same worlds. Heavy.
    """
    whatIf(
      "The hops to remove or reprice, at most GRAPHQL_MAX_LIST_ITEMS (100)."
      cuts: [EdgeCut!]!
      "Worlds for the risk before and after, 1 to 1,000,000."
      iterations: Int = 1000
      "Seed of the random worlds (before and after share them)."
      seed: Int = 1
    ): WhatIfResult
    """
    Choke points ranked by how much open critical risk one change removes, each verified by a what-if before
    it is offered; title keeps the items whose title contains it (case-insensitive). Heavy.
    """
    remediationPlan(
      "Keep only items whose title contains this (case-insensitive)."
      title: String
    ): [RemediationPlanItem!]
    "The k (1 to 100) best loopless routes to a target (by id or name) from any starting node. Heavy."
    kShortestPaths(
      "A crown jewel, by node id or name (case-insensitive)."
      target: String!
      "How many routes, 1 to 100."
      k: Int = 5
    ): [RankedRoute!]
    "Open and resolved counts, time to resolve, and the posture trend: a point whenever a pass changed the critical or open paths, their suppressions or the risk (HISTORY_PATH; the last 5,000)."
    history: History!
  }

  extend type AttackPath {
    "Fréchet ceiling: the weakest hop's probability, reached when one shared cause decides every hop."
    scoreUpperBound: Float!
    "Hops that share their edge type and weight basis with another hop of the route."
    correlatedHops: Int!
    "90 % credible interval of the route's success, from per-basis Beta priors (docs/model.md): lower end."
    scoreCiLow: Float!
    "Upper end of the 90 % credible interval."
    scoreCiHigh: Float!
    "Posterior mean of the route's success under the per-basis Beta priors."
    posteriorMean: Float!
    "The attacker-profile mixture (ATTACKER_PROFILE_PRIORS): score <= mixtureScore <= scoreUpperBound."
    mixtureScore: Float!
    "The route's success for each attacker profile, with the profile's weight."
    profileScores: [ProfileScore!]!
    "How far the route rests on facts rather than inference, 0 to 1: the product of its hops' identity-join confidence times its weakest hop's evidence weight (docs/model.md, 'Confidence'). Not the score."
    confidence: Float!
    "confidence as a word: high (from 0.8), medium (from 0.5) or low."
    confidenceLabel: String!
  }

  "The attacker profiles of the mixture (docs/model.md)."
  enum AttackerProfile {
    "Opportunistic, automated attacks: hops mostly independent (correlation 0.1)."
    commodity
    "Organised crime: skill shared across hops in part (correlation 0.4)."
    criminal
    "A capable, persistent attacker: one skill decides most hops (correlation 0.8)."
    apt
  }

  "A route's success for one attacker profile."
  type ProfileScore {
    "The profile."
    profile: AttackerProfile!
    "The profile's prior weight (normalized)."
    weight: Float!
    "The route's success for this profile, 0 to 1."
    score: Float!
  }

  "The risk of the whole estate, simulated over random worlds."
  type RiskSimulation {
    "Worlds simulated."
    iterations: Int!
    "The seed used."
    seed: Int!
    "Share of worlds in which at least one crown jewel is compromised."
    anyCompromiseProbability: Float!
    "95 % Wilson interval of anyCompromiseProbability: lower end."
    anyCiLow: Float!
    "Upper end of the 95 % Wilson interval."
    anyCiHigh: Float!
    "Expected number of crown jewels compromised."
    expectedCompromised: Float!
    "anyCompromiseProbability under the attacker-profile mixture."
    mixtureCompromiseProbability: Float!
    "The risk per attacker profile."
    profileCompromise: [ProfileCompromise!]!
    "The risk per crown jewel."
    crownJewels: [CrownJewelRisk!]!
  }

  "The estate's risk for one attacker profile."
  type ProfileCompromise {
    "The profile."
    profile: AttackerProfile!
    "The profile's prior weight (normalized)."
    weight: Float!
    "How surely one skill decides every hop for this profile (0 to 1)."
    correlation: Float!
    "Share of worlds with at least one crown jewel compromised, for this profile."
    anyCompromiseProbability: Float!
    "Expected crown jewels compromised, for this profile."
    expectedCompromised: Float!
  }

  "One crown jewel's simulated risk."
  type CrownJewelRisk {
    "The crown jewel."
    node: PathNode!
    "Its name (as node.name)."
    name: String!
    "Share of worlds in which it is compromised."
    compromiseProbability: Float!
    "95 % Wilson interval: lower end."
    ciLow: Float!
    "95 % Wilson interval: upper end."
    ciHigh: Float!
    "compromiseProbability under the attacker-profile mixture."
    mixtureCompromiseProbability: Float!
  }

  "A hop to take away (or reprice): endpoints by id or name (case-insensitive); every type when none is given."
  input EdgeCut {
    "The hop's source node, by id or name."
    from: String!
    "The hop's target node, by id or name."
    to: String!
    "Only hops of this edge type (ROUTES_TO, RUNS…); every type between the two nodes when absent."
    type: String
    "Reprice the hop to this probability instead of removing it."
    probability: Float
  }

  "The estate's risk on one side of a what-if."
  type RiskSummary {
    "Share of worlds with at least one crown jewel compromised."
    anyCompromiseProbability: Float!
    "Expected crown jewels compromised."
    expectedCompromised: Float!
    "95 % Wilson interval of anyCompromiseProbability: lower end."
    ciLow: Float!
    "95 % Wilson interval of anyCompromiseProbability: upper end."
    ciHigh: Float!
  }

  "What the cuts of a what-if change."
  type WhatIfResult {
    "Hops taken away."
    removedEdges: Int!
    "Hops given another probability."
    repricedEdges: Int!
    "anyCompromiseProbability before minus after."
    riskReduction: Float!
    "Expected crown jewels compromised, before minus after."
    expectedReduction: Float!
    "The risk before the cuts."
    beforeRisk: RiskSummary!
    "The risk after the cuts."
    afterRisk: RiskSummary!
    "Paths that had a route and have none after the cuts."
    closedPaths: [WhatIfPath!]!
    "Paths that still have a route (perhaps another, perhaps weaker)."
    remainingPaths: [WhatIfPath!]!
    "Pairs that had no route and have one after the change (a hop repriced up from 0); scoreBefore is 0."
    openedPaths: [WhatIfPath!]!
  }

  "One (start, target) pair in a what-if."
  type WhatIfPath {
    "The attack path id of the (start, target) pair."
    id: ID!
    "The starting node."
    start: PathNode!
    "The crown jewel."
    target: PathNode!
    "The best route's score before the cuts."
    scoreBefore: Float!
    "null when no route is left."
    scoreAfter: Float
    "The route after the cuts, or the closed route as it was."
    nodes: [PathNode!]!
  }

  "One change of the remediation plan, ranked by the open critical risk it removes."
  type RemediationPlanItem {
    "1 for the change that removes the most."
    rank: Int!
    "The generated fix's title when there is one, else the change in words."
    title: String!
    "cut-edge or block-public-access."
    kind: String!
    "Share of the open critical risk removed by this item and the ones ranked before it, in percent."
    coveragePct: Float!
    "The what-if that verified the item."
    verification: PlanVerification!
    "The hop this change cuts; null for a public access block."
    cut: PlanCut
    "The target whose public access is blocked; null for a cut."
    node: PathNode
    "The generated fix (POST /remediation/pr opens it as a pull request), where one exists."
    fix: PlanFix
    "Why no fix is generated for this item: a value it would write fails its grammar (a package name, a version, a role or bucket name); POST /remediation/pr answers 422 with the same reason. Null otherwise."
    fixRefused: String
    "The critical attack paths this item eliminates."
    pathIds: [ID!]!
  }

  "The what-if run on a plan item before it is offered."
  type PlanVerification {
    "True when the what-if confirmed the paths close."
    verified: Boolean!
    "Critical paths the change closes."
    pathsEliminated: Int!
    "Open critical risk the change removes, in percent."
    riskReductionPct: Float!
    "Expected crown jewels compromised, before minus after."
    expectedReduction: Float!
  }

  "A hop a plan item cuts."
  type PlanCut {
    "The hop's source."
    from: PathNode!
    "The hop's target."
    to: PathNode!
    "The edge type."
    type: String!
    "The hop's probability today."
    probability: Float!
  }

  "A generated fix for a plan item."
  type PlanFix {
    "The fix id (POST /remediation/pr takes it)."
    id: ID!
    "The critical path the fix was generated for (POST /remediation/pr takes it with the fix id)."
    pathId: ID!
    "upgrade-dependency, block-public-access, bump-base-image, harden-workload or deny-escalation."
    kind: String!
    "The fix's title, as its pull request would carry it."
    title: String!
    "The repository (owner/name) the fix applies to."
    repo: String!
    "The branch its pull request would use."
    branch: String!
  }

  "One of the k best routes to a target."
  type RankedRoute {
    "1 for the best route."
    rank: Int!
    "The attack path id of the route's (start, target) pair."
    pathId: ID!
    "The product of the hops' probabilities, 0 to 1."
    score: Float!
    "Natural log of the score (exact where the score underflows)."
    logScore: Float!
    "The nodes along the route."
    nodes: [PathNode!]!
    "The hops along the route."
    steps: [PathStep!]!
  }

  "How the tenant's paths have come and gone."
  type History {
    "Paths open now."
    openPaths: Int!
    "Paths resolved and not reopened."
    resolvedPaths: Int!
    "Mean seconds from first_seen to resolution over resolved paths; null when none has resolved."
    mttrSeconds: Float
    "When the longest-open path opened; null when none is open."
    oldestOpenSince: String
    "The posture history (HISTORY_PATH), oldest first: a point whenever a pass changed the critical or open paths, their suppressions or the risk (the last 5,000)."
    trend: [TrendPoint!]!
  }

  "The tenant's posture after an analyzer pass that changed it."
  type TrendPoint {
    "When the point was recorded (ISO 8601)."
    at: String!
    "Critical paths after the pass."
    criticalPaths: Int!
    "100 × (1 − Π (1 − score)) over the open paths."
    riskPct: Float!
  }
`;

/** The fields that count as heavy analyses (app/graphql/limits.ts prices them). */
export const HEAVY_FIELDS = ['riskSimulation', 'whatIf', 'remediationPlan', 'kShortestPaths'] as const;

type Context = GraphqlContext & { heavyUsed?: number };

// Engines built without a service (tests that build the API listener alone) get the defaults.
const fallbacks = new WeakMap<Engine, AnalysisService>();
function service(ctx: Context): AnalysisService {
  if (ctx.analyses) return ctx.analyses;
  let s = fallbacks.get(ctx.engine);
  if (!s) fallbacks.set(ctx.engine, (s = new AnalysisService({ seedIamUsers: false })));
  return s;
}

const iso = (ms: number) => new Date(ms).toISOString();

function node(g: CompiledGraph, i: number): PathNode {
  return { id: g.nodeIds[i], name: g.names[i], label: NODE_LABELS[g.labels[i]] };
}

function invalid(detail: string): never {
  throw new ProblemError('invalid-query', detail);
}

function checkIterations(iterations: number): void {
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    invalid(`iterations must be from 1 to ${MAX_ITERATIONS}, got ${iterations}`);
}

/** Counts a heavy field and runs it in a slot; over the request's cap the field answers with an error. */
async function heavy<T>(
  ctx: Context,
  field: string,
  task: (state: TenantState, g: CompiledGraph, signal: AbortSignal) => T | Promise<T>,
) {
  const analyses = service(ctx);
  ctx.heavyUsed = (ctx.heavyUsed ?? 0) + 1;
  if (ctx.heavyUsed > MAX_HEAVY_PER_REQUEST) {
    analyses.refusedOverRequestCap();
    throw new Error(
      `${field}: at most ${MAX_HEAVY_PER_REQUEST} heavy analyses (${HEAVY_FIELDS.join(', ')}) per request; this is number ${ctx.heavyUsed}`,
    );
  }
  if (ctx.principal.apps)
    throw new ProblemError(
      'forbidden',
      `${field} reads the whole estate; a credential scoped to applications may not run it`,
    );
  const state = ctx.engine.tenant(ctx.tenant);
  if (!state) return null;
  // Fair turns per tenant; stopped (worker and all) when the client goes away or ANALYSIS_DEADLINE passes.
  return analyses.run((signal) => task(state, analyses.compiled(state), signal), {
    tenant: ctx.tenant,
    signal: ctx.signal,
  });
}

function riskView(sim: RiskSimulation, g: CompiledGraph) {
  return {
    ...sim,
    crownJewels: sim.crownJewels.map((j) => ({ ...j, node: node(g, j.node), name: g.names[j.node] })),
  };
}

const pairId = (g: CompiledGraph, start: number, target: number) =>
  start === target ? directPathId(g.nodeIds[target]) : pathId(g.nodeIds[start], g.nodeIds[target]);

function planTitle(g: CompiledGraph, item: PlanItem): string {
  if (item.kind === 'block-public-access') return `Block public access to ${g.names[item.node]}`;
  const e = item.edge;
  return `Remove ${EDGE_TYPES[g.edgeType[e]]} ${g.names[g.edgeFrom[e]]} → ${g.names[g.edgeTo[e]]}`;
}

interface PlanFixView {
  id: string;
  pathId: string;
  kind: Fix['kind'];
  title: string;
  repo: string;
  branch: string;
}

/**
 * The generated fix for a plan item, where the fixes module has one: among the fixes for the open critical
 * paths through the item's hop (or to its public target), one about the node the hop leads into; or, when
 * the only such fix was refused for a value no grammar accepts, the reason.
 */
function planFix(
  state: TenantState,
  g: CompiledGraph,
  item: PlanItem,
): { fix: PlanFixView | null; refused: string | null } {
  const into = item.kind === 'block-public-access' ? item.node : g.edgeTo[item.edge];
  const from = item.kind === 'block-public-access' ? -1 : g.edgeFrom[item.edge];
  const type = item.kind === 'block-public-access' ? '' : EDGE_TYPES[g.edgeType[item.edge]];
  const intoId = g.nodeIds[into];
  const name = g.names[into];
  const fromName = from >= 0 ? g.names[from] : '';
  // A fix is about the hop it says it cuts: into the node (upgrades, base images), or both ends (escapes,
  // escalations).
  const about = (fix: Pick<Fix, 'kind' | 'cuts'>) =>
    item.kind === 'block-public-access'
      ? fix.kind === 'block-public-access'
      : fix.kind !== 'block-public-access' &&
        fix.cuts.into === name &&
        (fix.cuts.from === undefined || fix.cuts.from === fromName);
  let refused: string | null = null;
  for (const record of state.paths.open()) {
    if (record.priority !== 'P1') continue;
    if (item.kind === 'block-public-access') {
      if (!record.directAccess || record.targetId !== intoId) continue;
    } else if (
      !routeSteps(record).some((s) => s.from === g.nodeIds[from] && s.to === intoId && s.type === type)
    )
      continue;
    const plan = planFixes(record, state.graph);
    const fix = plan.fixes.find(about);
    if (fix)
      return {
        fix: {
          id: fix.id,
          pathId: record.id,
          kind: fix.kind,
          title: fix.title,
          repo: fix.repo,
          branch: fix.branch,
        },
        refused: null,
      };
    refused ??= plan.refused.find(about)?.reason ?? null;
  }
  return { fix: null, refused };
}

// Uncertainty views are computed from a record's route once per route (routes change only in passes).
const uncertainties = new WeakMap<object, { profiles: unknown; u: PathUncertainty }>();
function uncertainty(record: PathRecord, ctx: Context): PathUncertainty {
  const profiles = service(ctx).profiles;
  const cached = uncertainties.get(record.route);
  if (cached && cached.profiles === profiles) return cached.u;
  const u = pathUncertainty(
    routeSteps(record).map((s) => ({ probability: s.probability, weightBasis: s.weightBasis, type: s.type })),
    { profiles },
  );
  uncertainties.set(record.route, { profiles, u });
  return u;
}

/**
 * The path's confidence from its hops' join confidence (read from the tenant graph: a hop whose edge is gone,
 * as on a resolved path, counts as reported) and evidence (src/analysis/path-confidence.ts).
 */
function confidenceOf(record: PathRecord, ctx: Context): PathConfidence {
  const graph = ctx.engine.tenant(ctx.tenant)?.graph;
  return pathConfidence(
    routeSteps(record).map((s) => ({
      weightBasis: s.weightBasis,
      joinConfidence: hopJoinConfidence(graph, s),
    })),
  );
}

export function createAnalysisResolvers() {
  return {
    Query: {
      riskSimulation: (_: unknown, args: { iterations: number; seed: number }, ctx: Context) => {
        checkIterations(args.iterations);
        return heavy(ctx, 'riskSimulation', async (_state, g, signal) => {
          const task = { kind: 'risk' as const, ...args, profiles: service(ctx).profiles };
          return riskView((await service(ctx).compute(g, task, signal)) as RiskSimulation, g);
        });
      },
      whatIf: (
        _: unknown,
        args: { cuts: EdgeSelector[]; iterations: number; seed: number },
        ctx: Context,
      ) => {
        checkIterations(args.iterations);
        if (!args.cuts.length) invalid('cuts must name at least one hop');
        return heavy(ctx, 'whatIf', async (_state, g, signal) => {
          let changes;
          try {
            changes = resolveSelectors(g, args.cuts);
          } catch (error) {
            if (error instanceof SelectorError) invalid(error.message);
            throw error;
          }
          const task = { kind: 'whatIf' as const, changes, iterations: args.iterations, seed: args.seed };
          const result = (await service(ctx).compute(g, task, signal)) as WhatIfResult;
          const summary = (sim: RiskSimulation) => ({
            anyCompromiseProbability: sim.anyCompromiseProbability,
            expectedCompromised: sim.expectedCompromised,
            ciLow: sim.anyCiLow,
            ciHigh: sim.anyCiHigh,
          });
          const view = (c: (typeof result.closed)[number], closed: boolean) => {
            const route = closed ? c.before : c.after!;
            return {
              id: pairId(g, c.start, c.target),
              start: node(g, c.start),
              target: node(g, c.target),
              scoreBefore: c.scoreBefore,
              scoreAfter: c.after?.score ?? null,
              nodes: [node(g, c.start), ...Array.from(route.edges, (e) => node(g, g.edgeTo[e]))],
            };
          };
          const listed = result.closed.length + result.remaining.length + result.opened.length;
          // Routes of (start, target) pairs: they count against GRAPHQL_MAX_PATHS and are graph views for
          // the audit log, as attackPaths' routes are.
          ctx.answer?.takePaths(listed);
          ctx.onGraphView?.(
            [...result.closed, ...result.remaining, ...result.opened].map((c) =>
              pairId(g, c.start, c.target),
            ),
          );
          return {
            removedEdges: result.removedEdges,
            repricedEdges: result.repricedEdges,
            riskReduction: result.riskReduction,
            expectedReduction: result.expectedReduction,
            beforeRisk: summary(result.before),
            afterRisk: summary(result.after),
            closedPaths: result.closed.map((c) => view(c, true)),
            remainingPaths: result.remaining.map((c) => view(c, false)),
            openedPaths: result.opened.map((p) => ({
              id: pairId(g, p.start, p.target),
              start: node(g, p.start),
              target: node(g, p.target),
              scoreBefore: 0,
              scoreAfter: p.score,
              nodes: [node(g, p.start), ...Array.from(p.edges, (e) => node(g, g.edgeTo[e]))],
            })),
          };
        });
      },
      remediationPlan: (_: unknown, args: { title?: string | null }, ctx: Context) =>
        heavy(ctx, 'remediationPlan', async (state, g, signal) => {
          // Suppressed paths are not critical (DECISIONS.md "critical"): the plan leaves them be.
          const suppressed: string[] = [];
          for (const record of state.paths.open()) {
            if (record.priority !== 'P1' || isCritical(record, state.paths.suppressed)) continue;
            const start = g.indexOf(record.startId);
            const target = g.indexOf(record.targetId);
            if (start >= 0 && target >= 0) suppressed.push(`${start}>${target}`);
          }
          const task = { kind: 'plan' as const, p1: state.paths.priorityThresholds.p1, suppressed };
          const plan = (await service(ctx).compute(g, task, signal)) as RemediationPlan;
          const wanted = args.title?.toLowerCase();
          return plan.items
            .map((item, i) => {
              const { fix, refused } = planFix(state, g, item);
              return {
                rank: i + 1,
                title: fix?.title ?? planTitle(g, item),
                kind: item.kind,
                coveragePct: item.coveragePct,
                verification: item.verification,
                cut:
                  item.kind === 'cut-edge'
                    ? {
                        from: node(g, g.edgeFrom[item.edge]),
                        to: node(g, g.edgeTo[item.edge]),
                        type: EDGE_TYPES[g.edgeType[item.edge]],
                        probability: g.edgeP[item.edge],
                      }
                    : null,
                node: item.kind === 'block-public-access' ? node(g, item.node) : null,
                fix,
                fixRefused: refused,
                pathIds: item.eliminated.map((c) => pairId(g, c.start, c.target)),
              };
            })
            .filter((item) => !wanted || item.title.toLowerCase().includes(wanted));
        }),
      kShortestPaths: (_: unknown, args: { target: string; k: number }, ctx: Context) => {
        if (!Number.isInteger(args.k) || args.k < 1 || args.k > MAX_K)
          invalid(`k must be from 1 to ${MAX_K}, got ${args.k}`);
        return heavy(ctx, 'kShortestPaths', async (_state, g, signal) => {
          const targets = resolveNode(g, args.target).filter((i) => g.targets.includes(i));
          if (!targets.length)
            invalid(
              `target ${JSON.stringify(args.target)} names no crown jewel (by id or name) in this tenant`,
            );
          const task = { kind: 'kShortest' as const, targets, k: args.k };
          const routes = (await service(ctx).compute(g, task, signal)) as RankedRoute[];
          ctx.answer?.takePaths(routes.length);
          ctx.onGraphView?.([...new Set(routes.map((r) => pairId(g, r.nodes[0], r.nodes.at(-1)!)))]);
          return routes.map((r, i) => ({
            rank: i + 1,
            pathId: pairId(g, r.nodes[0], r.nodes.at(-1)!),
            score: r.score,
            logScore: r.logScore,
            nodes: r.nodes.map((n) => node(g, n)),
            steps: r.edges.map((e) => ({
              from: g.nodeIds[g.edgeFrom[e]],
              to: g.nodeIds[g.edgeTo[e]],
              type: EDGE_TYPES[g.edgeType[e]],
              probability: g.edgeP[e],
              weightBasis: WEIGHT_BASES[g.edgeBasis[e]],
            })),
          }));
        });
      },
      history: (_: unknown, __: unknown, ctx: Context) => {
        const state = ctx.engine.tenant(ctx.tenant);
        const records = state ? [...state.paths.all()] : [];
        const visible = ctx.principal.apps ? [] : records;
        const h = historyOf(visible);
        // The one trend store: the posture history (HISTORY_PATH or PostgreSQL), the tenant's as a whole, so
        // not for a principal bound to applications. Points from before 0.2 carry no risk and are left out.
        const points = ctx.principal.apps || !ctx.governance ? [] : ctx.governance.history.list(ctx.tenant);
        return {
          ...h,
          oldestOpenSince: h.oldestOpenSince === null ? null : iso(h.oldestOpenSince),
          // Rounded and clamped to [0, 100] at the edge with every other float (app/graphql/numbers.ts).
          trend: points.flatMap(({ at, criticalPaths, riskPct }) =>
            riskPct === undefined ? [] : [{ at, criticalPaths, riskPct }],
          ),
        };
      },
    },
    AttackPath: {
      scoreUpperBound: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).scoreUpperBound,
      correlatedHops: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).correlatedHops,
      scoreCiLow: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).scoreCiLow,
      scoreCiHigh: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).scoreCiHigh,
      posteriorMean: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).posteriorMean,
      mixtureScore: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).mixtureScore,
      profileScores: (r: PathRecord, _: unknown, ctx: Context) => uncertainty(r, ctx).profileScores,
      confidence: (r: PathRecord, _: unknown, ctx: Context) => confidenceOf(r, ctx).confidence,
      confidenceLabel: (r: PathRecord, _: unknown, ctx: Context) => confidenceOf(r, ctx).label,
    },
  };
}
