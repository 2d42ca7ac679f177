// Attack-path records across analyzer passes: a path opens when its route first appears, resolves when a
// pass no longer finds it, and reopens (counted) when it comes back. Path ids are stable per
// (start, target) pair. Routes of open paths point into the pass's compiled graph and are
// materialized only when read; a resolving path freezes its last route.
import { hash } from 'node:crypto';
import type { CompiledGraph } from '../analysis/compiled-graph.js';
import type { PairPath } from '../analysis/best-paths.js';
import { EDGE_TYPES, NODE_LABELS, WEIGHT_BASES } from '../graph/vocabulary.js';
import type { EdgeType, NodeLabel, WeightBasis } from '../graph/vocabulary.js';
import { Trend, type TrendPoint } from './history.js';

export type Priority = 'P1' | 'P2' | 'P3';
export type PathState = 'open' | 'resolved';

export interface PriorityThresholds {
  p1: number;
  p2: number;
}

export interface PathNode {
  id: string;
  name: string;
  label: NodeLabel;
}

export interface PathStep {
  from: string;
  to: string;
  type: EdgeType;
  probability: number;
  weightBasis: WeightBasis;
}

type Route = { compiled: CompiledGraph; start: number; target: number; edges: Int32Array } | FrozenRoute;
export interface FrozenRoute {
  nodes: PathNode[];
  steps: PathStep[];
}

export interface PathRecord {
  id: string;
  startId: string;
  targetId: string;
  state: PathState;
  score: number;
  /** ln(score), summed hop by hop: exact where a very long, weak route's score underflows to 0. */
  logScore: number;
  priority: Priority;
  directAccess: boolean;
  /** Epoch ms when the path was first seen, when its current open period began, and when it last resolved. */
  firstSeen: number;
  openedAt: number;
  resolvedAt: number | null;
  reopens: number;
  route: Route;
}

export interface PassOutcome {
  /** ids of the paths this pass opened or reopened (the Critical Attack Path event looks at them) */
  fresh: string[];
  /** ids of paths that were open before and became P1 this pass (the event still asks `isCritical`) */
  escalated: string[];
  opened: number;
  reopened: number;
  resolved: number;
  open: number;
  critical: number;
}

/** A path's priority (DECISIONS.md): P1 when direct access or score >= p1, P2 when >= p2, else P3. */
export function priorityOf(score: number, directAccess: boolean, t: PriorityThresholds): Priority {
  if (directAccess || score >= t.p1) return 'P1';
  return score >= t.p2 ? 'P2' : 'P3';
}

/** Whether a path is suppressed right now (src/governance/suppressions.ts); none is without governance. */
export type SuppressedCheck = (pathId: string) => boolean;

/** What the gate and the API say about a suppression that holds (src/governance/suppressions.ts). */
export interface SuppressionNote {
  reason: string;
  owner: string;
  expiresAt: string;
}

const NOTHING_SUPPRESSED: SuppressedCheck = () => false;

/**
 * The one definition of a critical path (DECISIONS.md "critical"): P1 and not suppressed. Posture, the gate
 * (and through it the pull request's status), the critical-path metric and the Critical Attack Path event
 * all ask here.
 */
export function isCritical(
  record: { id: string; priority: Priority },
  suppressed: SuppressedCheck = NOTHING_SUPPRESSED,
): boolean {
  return record.priority === 'P1' && !suppressed(record.id);
}

export function pathId(startId: string, targetId: string): string {
  // The one-shot hash: the same digest, several times cheaper per id (the gate names every pair it finds).
  return `ap-${hash('sha1', `${startId}>${targetId}`, 'hex').slice(0, 16)}`;
}

/** The direct-access path of a target has no start; its id is derived from the target alone. */
export function directPathId(targetId: string): string {
  return pathId('direct-access', targetId);
}

export function routeNodes(record: PathRecord): PathNode[] {
  const route = record.route;
  if ('nodes' in route) return route.nodes;
  const g = route.compiled;
  const node = (i: number): PathNode => ({
    id: g.nodeIds[i],
    name: g.names[i],
    label: NODE_LABELS[g.labels[i]],
  });
  const nodes = [node(route.start)];
  for (const e of route.edges) nodes.push(node(g.edgeTo[e]));
  return nodes;
}

export function routeSteps(record: PathRecord): PathStep[] {
  const route = record.route;
  if ('steps' in route) return route.steps;
  const g = route.compiled;
  return Array.from(route.edges, (e) => ({
    from: g.nodeIds[g.edgeFrom[e]],
    to: g.nodeIds[g.edgeTo[e]],
    type: EDGE_TYPES[g.edgeType[e]],
    probability: g.edgeP[e],
    weightBasis: WEIGHT_BASES[g.edgeBasis[e]],
  }));
}

/** Whether any hop of the route was priced on this basis; reads the compiled arrays, allocates nothing. */
export function routeHasBasis(record: PathRecord, basis: WeightBasis): boolean {
  const route = record.route;
  if ('steps' in route) return route.steps.some((s) => s.weightBasis === basis);
  const index = WEIGHT_BASES.indexOf(basis);
  return route.edges.some((e) => route.compiled.edgeBasis[e] === index);
}

function freeze(record: PathRecord): FrozenRoute {
  return { nodes: routeNodes(record), steps: routeSteps(record) };
}

/** A record as snapshots, the path log and the shared path records hold it: plain JSON, route frozen. */
export function plain(record: PathRecord): object {
  const { route: _route, ...rest } = record;
  return { ...rest, route: freeze(record) };
}

export class PathStore {
  private readonly byPair = new Map<string, PathRecord>();
  private readonly byId = new Map<string, PathRecord>();
  private sortedOpen: PathRecord[] | null = null;
  /** Records whose lifecycle (open, reopen, resolve) changed since `takeChanges` last ran. */
  private readonly changed = new Set<PathRecord>();

  /** Which paths are suppressed (set by the engine for live tenants); counts `critical` in a pass. */
  suppressed: SuppressedCheck = NOTHING_SUPPRESSED;

  /**
   * The trend a 0.1 store kept beside its records (a point per pass), read back from its snapshot and path
   * log only so the posture history (src/governance/history.ts, the one trend store) can adopt it once;
   * nothing adds to it and it is not written again.
   */
  readonly legacyTrend = new Trend();

  constructor(private thresholds: PriorityThresholds) {}

  /** The scores from which a path is P1 and P2. */
  get priorityThresholds(): Readonly<PriorityThresholds> {
    return this.thresholds;
  }

  /**
   * Copies every route that still points into a compiled graph into plain records, so that graph's
   * arrays may be reused by the next compile (CompileBuffers) while reads go on.
   */
  freezeRoutes(): void {
    for (const record of this.byId.values()) {
      if (!('nodes' in record.route)) record.route = freeze(record);
    }
  }

  /** Folds one analyzer pass into the store. */
  applyPass(compiled: CompiledGraph, found: PairPath[], now: number): PassOutcome {
    const outcome: PassOutcome = {
      fresh: [],
      escalated: [],
      opened: 0,
      reopened: 0,
      resolved: 0,
      open: 0,
      critical: 0,
    };
    const seen = new Set<PathRecord>();
    const upsert = (
      pair: string,
      startId: string,
      targetId: string,
      id: () => string,
      score: number,
      logScore: number,
      direct: boolean,
      route: Route,
    ) => {
      let record = this.byPair.get(pair);
      const priority = priorityOf(score, direct, this.thresholds);
      if (!record) {
        record = {
          id: id(),
          startId,
          targetId,
          state: 'open',
          score,
          logScore,
          priority,
          directAccess: direct,
          firstSeen: now,
          openedAt: now,
          resolvedAt: null,
          reopens: 0,
          route,
        };
        this.byPair.set(pair, record);
        this.byId.set(record.id, record);
        this.changed.add(record);
        outcome.opened++;
        outcome.fresh.push(record.id);
      } else {
        if (record.state === 'resolved') {
          record.state = 'open';
          record.openedAt = now;
          record.reopens++;
          this.changed.add(record);
          outcome.reopened++;
          outcome.fresh.push(record.id);
        } else if (priority === 'P1' && record.priority !== 'P1') outcome.escalated.push(record.id);
        record.score = score;
        record.logScore = logScore;
        record.priority = priority;
        record.route = route;
      }
      seen.add(record);
    };
    for (const t of compiled.directAccess) {
      const targetId = compiled.nodeIds[t];
      upsert(`direct-access>${targetId}`, targetId, targetId, () => directPathId(targetId), 1, 0, true, {
        compiled,
        start: t,
        target: t,
        edges: new Int32Array(0),
      });
    }
    for (const p of found) {
      const startId = compiled.nodeIds[p.start];
      const targetId = compiled.nodeIds[p.target];
      // p.score is the product of the hops' probabilities, multiplied out by the search; the log is summed
      // separately because a long route's product underflows to 0.
      let logScore = 0;
      for (const e of p.edges) logScore += Math.log(compiled.edgeP[e]);
      upsert(
        `${startId}>${targetId}`,
        startId,
        targetId,
        () => pathId(startId, targetId),
        p.score,
        logScore,
        false,
        {
          compiled,
          start: p.start,
          target: p.target,
          edges: p.edges,
        },
      );
    }
    for (const record of this.byPair.values()) {
      if (record.state !== 'open') continue;
      if (!seen.has(record)) {
        record.route = freeze(record);
        record.state = 'resolved';
        record.resolvedAt = now;
        this.changed.add(record);
        outcome.resolved++;
      } else {
        outcome.open++;
        if (isCritical(record, this.suppressed)) outcome.critical++;
      }
    }
    this.sortedOpen = null;
    return outcome;
  }

  get(id: string): PathRecord | undefined {
    return this.byId.get(id);
  }

  /** Open paths, highest score first (ties by id), cached until the next pass. */
  open(): readonly PathRecord[] {
    if (!this.sortedOpen) {
      this.sortedOpen = [...this.byPair.values()]
        .filter((r) => r.state === 'open')
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    return this.sortedOpen;
  }

  all(): IterableIterator<PathRecord> {
    return this.byPair.values();
  }

  get size(): number {
    return this.byPair.size;
  }

  /** Records as plain JSON for snapshots; routes are frozen so they outlive the compiled graph. */
  *serialize(): Iterable<object> {
    for (const r of this.byPair.values()) yield plain(r);
  }

  /** True when a pass changed some record's lifecycle since `takeChanges` last ran. */
  hasChanges(): boolean {
    return this.changed.size > 0;
  }

  /**
   * The records whose lifecycle changed since the last call, as `serialize` writes them, for the path
   * lifecycle log (path-log.ts); call it before the next pass, while its routes are still readable.
   */
  takeChanges(): object[] {
    const records: object[] = [...this.changed].map(plain);
    this.changed.clear();
    return records;
  }

  restore(record: (Omit<PathRecord, 'route'> & { route: FrozenRoute }) | { trendPoint: TrendPoint }): void {
    if ('trendPoint' in record) {
      this.legacyTrend.restore(record.trendPoint);
      return;
    }
    const pair = record.directAccess
      ? `direct-access>${record.targetId}`
      : `${record.startId}>${record.targetId}`;
    const replaced = this.byPair.get(pair);
    if (replaced) this.changed.delete(replaced);
    this.byPair.set(pair, record);
    this.byId.set(record.id, record);
    this.sortedOpen = null;
  }

  /**
   * The leader's record of a path (scale-out, src/db/path-records.ts), on a follower: its lifecycle wins
   * over the one this replica's own passes kept. first_seen and the reopen count are the leader's; the
   * open or resolved state stays this replica's (it answers from its own graph), and with it the times of
   * the current period unless both agree on the state. A path the leader resolved that this replica never
   * saw is kept resolved, as the leader has it.
   */
  adopt(leader: Omit<PathRecord, 'route'> & { route: FrozenRoute }): void {
    const local = this.byId.get(leader.id);
    if (!local) {
      if (leader.state === 'resolved') this.restore({ ...leader });
      return;
    }
    local.firstSeen = leader.firstSeen;
    local.reopens = leader.reopens;
    if (local.state === leader.state) {
      local.openedAt = leader.openedAt;
      local.resolvedAt = leader.resolvedAt;
    }
  }
}
