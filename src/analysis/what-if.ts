// What-if edge cuts (spec "What-if result"): the named hops removed (or repriced) on a copy-on-write view of
// the compiled graph (edge-view.ts), the best-path search run again on the view, and the risk simulated
// before and after on the same worlds (risk-simulation.ts draws them per hop, so the two runs differ only
// by the cut hops: the reduction carries no sampling noise of its own).
import { bestPaths, comparePairs, searchSide, type PairPath } from './best-paths.js';
import { EDGE_TYPES } from '../graph/vocabulary.js';
import type { CompiledGraph } from './compiled-graph.js';
import { EdgeView } from './edge-view.js';
import { simulateRisk, type RiskSimulation } from './risk-simulation.js';

/** One hop named by the caller: endpoints by id or name (case-insensitive), the edge type optional. */
export interface EdgeSelector {
  from: string;
  to: string;
  type?: string | null;
  /** Reprice to this probability instead of removing (0 removes). */
  probability?: number | null;
}

/** A selector that names nothing in the graph; `message` says what and why. */
export class SelectorError extends Error {}

const nameIndexes = new WeakMap<CompiledGraph, Map<string, number[]>>();

/** Node indices for an id (exact, then any case) or a name (case-insensitive). */
export function resolveNode(g: CompiledGraph, key: string): number[] {
  const exact = g.indexOf(key);
  if (exact >= 0) return [exact];
  let names = nameIndexes.get(g);
  if (!names) {
    names = new Map();
    for (let i = 0; i < g.nodeCount; i++) {
      // A live graph (live-graph.ts) keeps the slots of removed nodes: only the slot an id maps to is live.
      if (g.indexOf(g.nodeIds[i]) !== i) continue;
      for (const k of new Set([g.names[i].toLowerCase(), g.nodeIds[i].toLowerCase()])) {
        const list = names.get(k);
        if (list) list.push(i);
        else names.set(k, [i]);
      }
    }
    nameIndexes.set(g, names);
  }
  return names.get(key.toLowerCase()) ?? [];
}

export interface HopChange {
  edge: number;
  /** The probability the hop gets (0: removed). */
  p: number;
}

/** The hops the selectors name; throws SelectorError for a node or hop the graph does not hold. */
export function resolveSelectors(g: CompiledGraph, selectors: readonly EdgeSelector[]): HopChange[] {
  const out = new Map<number, number>();
  selectors.forEach((selector, at) => {
    const where = `cuts[${at}]`;
    const from = resolveNode(g, selector.from);
    const to = resolveNode(g, selector.to);
    if (!from.length)
      throw new SelectorError(`${where}.from: no node has id or name ${JSON.stringify(selector.from)}`);
    if (!to.length)
      throw new SelectorError(`${where}.to: no node has id or name ${JSON.stringify(selector.to)}`);
    const type = selector.type ?? undefined;
    if (type !== undefined && !(EDGE_TYPES as readonly string[]).includes(type))
      throw new SelectorError(
        `${where}.type: ${JSON.stringify(type)} is not an edge type (${EDGE_TYPES.join(', ')})`,
      );
    const p = selector.probability ?? 0;
    if (!(p >= 0 && p <= 1))
      throw new SelectorError(
        `${where}.probability: must be from 0 to 1, got ${String(selector.probability)}`,
      );
    const targets = new Set(to);
    let found = 0;
    for (const u of from) {
      for (let s = g.fStart[u], end = g.fEnd[u]; s < end; s++) {
        const e = g.fEdges[s];
        if (!targets.has(g.edgeTo[e])) continue;
        if (type !== undefined && EDGE_TYPES[g.edgeType[e]] !== type) continue;
        out.set(e, p);
        found++;
      }
    }
    if (!found)
      throw new SelectorError(
        `${where}: no ${type ?? ''}${type ? ' ' : ''}edge from ${JSON.stringify(selector.from)} to ${JSON.stringify(selector.to)}`,
      );
  });
  return [...out].map(([edge, p]) => ({ edge, p }));
}

export interface PairChange {
  start: number;
  target: number;
  scoreBefore: number;
  /** The route before the change. */
  before: PairPath;
  /** null: no route is left between the pair. */
  after: PairPath | null;
}

export interface WhatIfResult {
  /** Hops taken away (probability 0 after the change). */
  removedEdges: number;
  /** Hops given another probability. */
  repricedEdges: number;
  before: RiskSimulation;
  after: RiskSimulation;
  /** Any-compromise probability before minus after. */
  riskReduction: number;
  /** Expected crown jewels compromised before minus after. */
  expectedReduction: number;
  /** Pairs that had a route and have none now. */
  closed: PairChange[];
  /** Pairs that still have a route (perhaps another, perhaps weaker). */
  remaining: PairChange[];
  /** Pairs that had no route and have one now (a hop repriced up from 0). */
  opened: PairPath[];
}

/** Applies `changes` to a view of `g`, searches again and simulates the risk before and after. */
export function whatIf(
  g: CompiledGraph,
  changes: readonly HopChange[],
  options: { iterations: number; seed: number; before?: PairPath[]; graphKey?: number },
): WhatIfResult {
  const side = searchSide(g);
  const before = options.before ?? bestPaths(g, undefined, side);
  const view = new EdgeView(g);
  let removed = 0;
  let repriced = 0;
  let cheaper = false;
  const dearer = new Set<number>();
  for (const change of changes) {
    if (change.p > g.edgeP[change.edge]) cheaper = true;
    else dearer.add(change.edge);
    view.reprice(change.edge, change.p);
    if (change.p === 0) removed++;
    else repriced++;
  }
  // Hops made dearer (or removed) change only the pairs whose route used them: only their roots are
  // searched again. A hop made cheaper may give any pair a better route: everything is.
  let after: PairPath[];
  if (cheaper) after = bestPaths(view.graph, undefined, side);
  else {
    const rootOf = (p: PairPath) => (side === 'targets' ? p.target : p.start);
    const roots = new Set<number>();
    for (const p of before) if (p.edges.some((e) => dearer.has(e))) roots.add(rootOf(p));
    after = roots.size
      ? [
          ...before.filter((p) => !roots.has(rootOf(p))),
          ...bestPaths(view.graph, Int32Array.from(roots), side),
        ].sort(comparePairs)
      : before;
  }
  const afterByPair = new Map(after.map((p) => [`${p.start}>${p.target}`, p]));
  const closed: PairChange[] = [];
  const remaining: PairChange[] = [];
  const beforePairs = new Set(before.map((p) => `${p.start}>${p.target}`));
  const opened = after.filter((p) => !beforePairs.has(`${p.start}>${p.target}`));
  for (const path of before) {
    const now = afterByPair.get(`${path.start}>${path.target}`) ?? null;
    (now ? remaining : closed).push({
      start: path.start,
      target: path.target,
      scoreBefore: path.score,
      before: path,
      after: now,
    });
  }
  const risk = { iterations: options.iterations, seed: options.seed };
  // `g` is unchanged: what a simulation keeps of it (graphKey, risk-simulation.ts) serves "before".
  const riskBefore = simulateRisk(g, { ...risk, graphKey: options.graphKey });
  const riskAfter = simulateRisk(view.graph, risk);
  return {
    removedEdges: removed,
    repricedEdges: repriced,
    before: riskBefore,
    after: riskAfter,
    riskReduction: riskBefore.anyCompromiseProbability - riskAfter.anyCompromiseProbability,
    expectedReduction: riskBefore.expectedCompromised - riskAfter.expectedCompromised,
    closed,
    remaining,
    opened,
  };
}
