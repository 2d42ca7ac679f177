// The analyses on the graph in GraphQL (issue 18): the schema they add (merged into SCHEMA_SDL, so the
// snapshot covers it) and their resolvers (merged by createResolvers). Heavy fields (riskSimulation, whatIf,
// remediationPlan, kShortestPaths) count against MAX_HEAVY_PER_REQUEST per request, the rest of them
// answering with an error, and take turns in the service's slots (src/analysis/analysis-service.ts), 429
// when full. They read the whole estate, so a credential scoped to applications may not run them.
// The parts live under analyses/: the schema (schema.ts), how a heavy field is let in and run (heavy.ts), the
// remediation plan's titles and fixes (plan-items.ts), AttackPath's uncertainty and confidence
// (path-uncertainty.ts); this file holds the resolvers and is what the rest of app/graphql imports.
import type { CompiledGraph } from '../../src/analysis/compiled-graph.js';
import { MAX_K, type RankedRoute } from '../../src/analysis/k-shortest.js';
import type { RemediationPlan } from '../../src/analysis/remediation-plan.js';
import type { RiskSimulation } from '../../src/analysis/risk-simulation.js';
import {
  resolveNode,
  resolveSelectors,
  SelectorError,
  type EdgeSelector,
  type WhatIfResult,
} from '../../src/analysis/what-if.js';
import { EDGE_TYPES, NODE_LABELS, WEIGHT_BASES } from '../../src/graph/vocabulary.js';
import { historyOf } from '../../src/paths/history.js';
import {
  directPathId,
  isCritical,
  pathId,
  type PathNode,
  type PathRecord,
} from '../../src/paths/path-store.js';
import { checkIterations, heavy, invalid, service, type Context } from './analyses/heavy.js';
import { confidenceOf, uncertainty } from './analyses/path-uncertainty.js';
import { planFix, planTitle } from './analyses/plan-items.js';

export { ANALYSES_SDL } from './analyses/schema.js';

const iso = (ms: number) => new Date(ms).toISOString();

function node(g: CompiledGraph, i: number): PathNode {
  return { id: g.nodeIds[i], name: g.names[i], label: NODE_LABELS[g.labels[i]] };
}

function riskView(sim: RiskSimulation, g: CompiledGraph) {
  return {
    ...sim,
    crownJewels: sim.crownJewels.map((j) => ({ ...j, node: node(g, j.node), name: g.names[j.node] })),
  };
}

const pairId = (g: CompiledGraph, start: number, target: number) =>
  start === target ? directPathId(g.nodeIds[target]) : pathId(g.nodeIds[start], g.nodeIds[target]);

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
