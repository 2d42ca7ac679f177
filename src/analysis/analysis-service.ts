// What the API's heavy analyses share (app/graphql/resolvers.ts): the tenant's graph compiled for them
// (once per graph version, apart from the analyzer's own arrays, which the next pass rewrites in place), the
// attacker profiles, and the slots heavy analyses take turns in: at most half the cores' worth run at once,
// a bounded number wait, and past that the caller is told to come back (429).
import os from 'node:os';
import type { TenantState } from '../engine/tenant.js';
import { ProblemError } from '../http/problems.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  attackerProfiles,
  DEFAULT_PROFILE_PRIORS,
  type AttackerProfile,
  type ProfileName,
} from './attacker-profiles.js';
import { compileGraph, type CompiledGraph } from './compiled-graph.js';

/** Heavy analyses one GraphQL request may run (spec "Limits"); the rest answer with an error. */
export const MAX_HEAVY_PER_REQUEST = 20;

export interface AnalysisSettings {
  seedIamUsers: boolean;
  profilePriors?: Readonly<Record<ProfileName, number>>;
  /** Heavy analyses running at once; default half the cores, at least one. */
  slots?: number;
  /** Heavy analyses waiting for a slot before more are refused (429); default 4 requests' worth. */
  queue?: number;
}

/** Every slot and queue place is taken: 429 with Retry-After. */
export class AnalysisBusyError extends ProblemError {
  constructor(slots: number, queue: number) {
    super(
      'too-many-requests',
      `heavy analyses are at capacity (${slots} running, ${queue} waiting); retry shortly`,
      { retryAfter: 1, limit: 'heavy-analyses' },
    );
  }
}

export class AnalysisService {
  readonly profiles: AttackerProfile[];
  readonly seedIamUsers: boolean;
  readonly slots: number;
  readonly queueLimit: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly compiledByTenant = new WeakMap<TenantState, { version: number; graph: CompiledGraph }>();

  constructor(
    settings: AnalysisSettings,
    private readonly metrics?: Pick<Metrics, 'apiHeavyRefused'>,
  ) {
    this.seedIamUsers = settings.seedIamUsers;
    this.profiles = attackerProfiles(settings.profilePriors ?? DEFAULT_PROFILE_PRIORS);
    this.slots = Math.max(1, settings.slots ?? Math.floor(os.availableParallelism() / 2));
    this.queueLimit = Math.max(0, settings.queue ?? 4 * MAX_HEAVY_PER_REQUEST);
  }

  /** The tenant's graph compiled for analyses, reused until the graph changes. */
  compiled(state: TenantState): CompiledGraph {
    const version = state.writer.version;
    const cached = this.compiledByTenant.get(state);
    if (cached && cached.version === version) return cached.graph;
    const graph = compileGraph(state.graph, { seedIamUsers: this.seedIamUsers });
    this.compiledByTenant.set(state, { version, graph });
    return graph;
  }

  /** Counts a refusal of a heavy field over the per-request cap. */
  refusedOverRequestCap(): void {
    this.metrics?.apiHeavyRefused.inc({ reason: 'request' });
  }

  /** Runs a heavy analysis in a slot; throws AnalysisBusyError when every slot and queue place is taken. */
  async run<T>(task: () => T): Promise<T> {
    if (this.running >= this.slots) {
      if (this.waiting.length >= this.queueLimit) {
        this.metrics?.apiHeavyRefused.inc({ reason: 'busy' });
        throw new AnalysisBusyError(this.running, this.waiting.length);
      }
      // The slot is handed over by the task that frees it (running stays counted).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      // Let the listeners answer what arrived meanwhile before a long synchronous analysis starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** For tests and status: analyses running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
