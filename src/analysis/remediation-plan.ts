// The remediation plan (spec "Remediation plan item"): choke points ranked by how much open critical risk
// one change removes. Greedy weighted cut over the critical routes: a route weighs its score (a direct-access
// path weighs 1); each round the hop carried by the most critical weight (ties: the hop on more routes, then
// the first found) leads the candidates; the leading few are each cut on a copy-on-write view
// (edge-view.ts) and searched again (a what-if), and the one that verifiably removes the most critical risk
// is offered; a cut that closes nothing, because another route takes over, is never offered. Routes that take over become the next round's critical routes,
// so the plan follows re-routing until no critical route is left or the plan is full.
// A direct-access target is one change of its own: blocking its public access.
import { bestPaths, comparePairs, PathSearch, planSearch, searchSide, type PairPath } from './best-paths.js';
import type { CompiledGraph } from './compiled-graph.js';
import { EdgeView } from './edge-view.js';
import { countWorlds } from './risk-simulation.js';

export interface PlanVerification {
  /** The what-if confirmed the change closes or de-escalates at least one critical route. */
  verified: boolean;
  /** Critical routes this change closes or makes non-critical (after the plan's earlier changes). */
  pathsEliminated: number;
  /** Share of the plan's starting critical risk this change removes, in percent. */
  riskReductionPct: number;
  /** Expected crown jewels compromised, before this change minus after (simulated on the same worlds). */
  expectedReduction: number;
}

export interface PlanItem {
  kind: 'cut-edge' | 'block-public-access';
  /** The hop cut (cut-edge), or -1. */
  edge: number;
  /** The target whose public access is blocked (block-public-access), or -1. */
  node: number;
  /** Cumulative share of the starting critical risk removed by this item and the ones before, in percent. */
  coveragePct: number;
  verification: PlanVerification;
  /** Critical routes (start, target) this item eliminates; start = target for a direct-access path. */
  eliminated: { start: number; target: number }[];
}

export interface RemediationPlan {
  items: PlanItem[];
  /** Critical routes when the plan starts, and left when it ends. */
  criticalBefore: number;
  criticalAfter: number;
}

interface Critical {
  key: string;
  start: number;
  target: number;
  score: number;
  /** Hops; empty for a direct-access path. */
  edges: Int32Array;
}

function criticalRoutes(
  g: CompiledGraph,
  found: PairPath[],
  p1: number,
  counts: (start: number, target: number) => boolean,
): Critical[] {
  const out: Critical[] = [];
  for (const t of g.directAccess)
    if (counts(t, t)) out.push({ key: `d>${t}`, start: t, target: t, score: 1, edges: new Int32Array(0) });
  for (const p of found)
    if (p.score >= p1 && counts(p.start, p.target))
      out.push({
        key: `${p.start}>${p.target}`,
        start: p.start,
        target: p.target,
        score: p.score,
        edges: p.edges,
      });
  return out;
}

export interface PlanOptions {
  /** A route is critical (P1) from this score up. */
  p1: number;
  /**
   * Whether a P1 pair counts as critical (false: suppressed, DECISIONS.md "critical"); start = target for a
   * direct-access path. Default: every P1 pair.
   */
  counts?: (start: number, target: number) => boolean;
  /** Items at most (default 20). */
  maxItems?: number;
  /** Candidates tried per item before the plan stops (default 5). */
  triesPerItem?: number;
  /** Worlds for expectedReduction (default 256) and their seed. */
  iterations?: number;
  seed?: number;
}

export function remediationPlan(g: CompiledGraph, options: PlanOptions): RemediationPlan {
  const maxItems = options.maxItems ?? 20;
  const counts = options.counts ?? (() => true);
  const tries = options.triesPerItem ?? 5;
  const risk = { iterations: options.iterations ?? 256, seed: options.seed ?? 1 };
  const view = new EdgeView(g);
  const side = searchSide(g);
  const rootOf = (p: { start: number; target: number }) => (side === 'targets' ? p.target : p.start);
  // The view's best paths, kept current: a cut changes only the pairs whose route used the hop, so only
  // their roots are searched again (the others keep their route: it is still there and still best).
  let found = bestPaths(g, undefined, side);
  // One search state for every verification: the plan's pruning (nodes some route may use) is computed on
  // the graph before any cut, a superset of what the view needs, so it stays exact; the view's arrays are
  // copied up front, so the search reads every cut as it is made.
  const search = new PathSearch(view.detach(), planSearch(g, side));
  const afterCut = (edge: number): PairPath[] => {
    const roots = new Set<number>();
    for (const p of found) if (p.edges.includes(edge)) roots.add(rootOf(p));
    if (!roots.size) return found;
    const again: PairPath[] = [];
    for (const root of roots) search.run(root, again);
    return [...found.filter((p) => !roots.has(rootOf(p))), ...again].sort(comparePairs);
  };
  const expectedOf = () => {
    const counts = countWorlds(view.graph, risk.iterations, risk.seed);
    return counts.targetHits.reduce((sum, hits) => sum + hits, 0) / risk.iterations;
  };
  let critical = criticalRoutes(view.graph, found, options.p1, counts);
  const criticalBefore = critical.length;
  const total = critical.reduce((sum, c) => sum + c.score, 0);
  let riskLeft = total;
  let expectedLeft = expectedOf();
  const items: PlanItem[] = [];
  while (critical.length && items.length < maxItems) {
    // Candidates: each direct-access target, and each hop by the critical weight routed over it.
    const weight = new Map<number, { weight: number; routes: number; order: number }>();
    let order = 0;
    for (const c of critical) {
      for (const e of c.edges) {
        const entry = weight.get(e);
        if (entry) {
          entry.weight += c.score;
          entry.routes++;
        } else weight.set(e, { weight: c.score, routes: 1, order: order++ });
      }
    }
    const candidates: {
      kind: PlanItem['kind'];
      id: number;
      weight: number;
      routes: number;
      order: number;
    }[] = [];
    for (const c of critical)
      if (!c.edges.length)
        candidates.push({ kind: 'block-public-access', id: c.target, weight: 1, routes: 1, order: -1 });
    for (const [e, w] of weight) candidates.push({ kind: 'cut-edge', id: e, ...w });
    candidates.sort((a, b) => b.weight - a.weight || b.routes - a.routes || a.order - b.order);

    // Each of the leading candidates is verified by a what-if on the view; the one that removes the most
    // critical risk is offered (then the one closing more routes; then the heavier, earlier candidate).
    let best: {
      candidate: (typeof candidates)[number];
      next: Critical[];
      found: PairPath[];
      riskNow: number;
      eliminated: Critical[];
    } | null = null;
    for (const candidate of candidates.slice(0, tries)) {
      let nextFound = found;
      if (candidate.kind === 'cut-edge') {
        view.remove(candidate.id);
        nextFound = afterCut(candidate.id);
        view.undo(candidate.id);
      } else view.closeDirectAccess(candidate.id);
      const next = criticalRoutes(view.graph, nextFound, options.p1, counts);
      if (candidate.kind === 'block-public-access') view.reopenDirectAccess(candidate.id);
      const still = new Set(next.map((c) => c.key));
      const eliminated = critical.filter((c) => !still.has(c.key));
      const riskNow = next.reduce((sum, c) => sum + c.score, 0);
      // A cut another route takes over from entirely is not offered.
      if (!eliminated.length && riskNow >= riskLeft) continue;
      if (
        !best ||
        riskNow < best.riskNow - 1e-12 ||
        (Math.abs(riskNow - best.riskNow) <= 1e-12 && eliminated.length > best.eliminated.length)
      )
        best = { candidate, next, found: nextFound, riskNow, eliminated };
    }
    if (!best) break;
    const { candidate, next, riskNow, eliminated } = best;
    if (candidate.kind === 'cut-edge') view.remove(candidate.id);
    else view.closeDirectAccess(candidate.id);
    found = best.found;
    const expectedNow = expectedOf();
    items.push({
      kind: candidate.kind,
      edge: candidate.kind === 'cut-edge' ? candidate.id : -1,
      node: candidate.kind === 'block-public-access' ? candidate.id : -1,
      coveragePct: total > 0 ? (100 * (total - riskNow)) / total : 0,
      verification: {
        verified: true,
        pathsEliminated: eliminated.length,
        riskReductionPct: total > 0 ? (100 * (riskLeft - riskNow)) / total : 0,
        expectedReduction: expectedLeft - expectedNow,
      },
      eliminated: eliminated.map((c) => ({ start: c.start, target: c.target })),
    });
    riskLeft = riskNow;
    expectedLeft = expectedNow;
    critical = next;
  }
  return { items, criticalBefore, criticalAfter: critical.length };
}
