// One tenant's isolated state: its graph and writer, its path store and the record of its last pass.
import type { PairPath, SearchSide } from '../analysis/best-paths.js';
import { LiveGraph } from '../analysis/live-graph.js';
import { createTenantGraph } from '../graph/model.js';
import { GraphWriter, type DropReason } from '../graph/writer.js';
import type { Log } from '../log/logger.js';
import { PathStore, type PassOutcome, type PriorityThresholds } from '../paths/path-store.js';

export interface PassRecord {
  at: number;
  graphVersion: number;
  seconds: number;
  /** Bringing the live compiled graph up to date (a full compile when `rebuilt`). */
  compileSeconds: number;
  findSeconds: number;
  rebuilt: boolean;
  /** Roots searched (targets, or starts when fewer) and how many there were: a patch re-searches few. */
  searchedRoots: number;
  roots: number;
  nodes: number;
  edges: number;
  starts: number;
  targets: number;
  outcome: PassOutcome;
}

/** Reports being received right now count as writes in progress: no pass runs on a half-sent estate. */
export interface IngestActivity {
  receiving: number;
  /** Epoch ms at which the last ingest request started or ended. */
  lastAt: number;
}

const IDLE: IngestActivity = { receiving: 0, lastAt: 0 };
/** Changed records (nodes + edges) a pass analyses at the interval without waiting for quiet. */
const SMALL_CHANGE = 4096;

export interface PruneRecord {
  prunedNodes: number;
  prunedEdges: number;
  lastPrunedAt: number | null;
}

export class TenantState {
  readonly writer: GraphWriter;
  /** The analyzer's compiled graph, patched pass after pass from the writer's changes. */
  readonly live = new LiveGraph();
  /** The last completed search (every connected pair), which a patched pass re-searches in part. */
  lastSearch: { side: SearchSide; found: PairPath[] } | null = null;
  readonly paths: PathStore;
  lastPass: PassRecord | null = null;
  /** Epoch ms of the last record applied to this tenant's graph. */
  lastWriteAt = 0;
  /** Epoch ms of the first record applied: the longest wait of a tenant that never had a pass starts there. */
  firstWriteAt = 0;
  passes = 0;
  readonly pruning: PruneRecord = { prunedNodes: 0, prunedEdges: 0, lastPrunedAt: null };

  constructor(
    readonly name: string,
    options: {
      log: Log;
      parkedTtlMs: number;
      thresholds: PriorityThresholds;
      onDrop?: (r: DropReason, n: number) => void;
    },
  ) {
    this.writer = new GraphWriter(createTenantGraph(), {
      log: options.log.child({ tenant: name }),
      parkedTtlMs: options.parkedTtlMs,
      onDrop: options.onDrop,
    });
    this.paths = new PathStore(options.thresholds);
  }

  get graph() {
    return this.writer.graph;
  }

  /** True when the graph changed since the last pass (or no pass ran yet). */
  get stale(): boolean {
    return this.lastPass === null || this.lastPass.graphVersion !== this.writer.version;
  }

  /**
   * Whether a scheduled pass should run now: the graph changed, and either writes have paused for `quietMs`
   * (a report still streaming in is not analyzed half-way, again and again) or the last pass is older than
   * `maxWaitMs` (continuous ingest cannot postpone analysis for ever). With `patched`, a change small
   * enough to be patched into the live compiled graph (a pass over it costs what changed, issue 17) is
   * analysed once the last pass is `patched.everyMs` old, quiet or not: a stream of small writes keeps the
   * paths, and what the gate lays under a pull request's change, up to date.
   */
  due(
    now: number,
    quietMs: number,
    maxWaitMs: number,
    ingest: IngestActivity = IDLE,
    patched?: { everyMs: number; seedIamUsers: boolean },
  ): boolean {
    if (!this.stale) return false;
    const lastActivity = Math.max(this.lastWriteAt, ingest.lastAt);
    if (!ingest.receiving && now - lastActivity >= quietMs) return true;
    if (
      patched &&
      this.lastPass &&
      now - this.lastPass.at >= patched.everyMs &&
      // Small: a bulk write mid-stream still waits for its quiet moment.
      this.live.patchable(this.graph, this.writer.changes, patched.seedIamUsers, SMALL_CHANGE)
    )
      return true;
    // A tenant that never had a pass waits from its first write, not from 1970: otherwise a new estate
    // streaming in gets a wasted pass on its first part.
    return now - (this.lastPass?.at ?? this.firstWriteAt) >= maxWaitMs;
  }
}

/** Tenant names: short, lowercase, safe in metric labels and file names. */
export const TENANT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const DEFAULT_TENANT = 'default';
