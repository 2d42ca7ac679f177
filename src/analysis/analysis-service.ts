// What the API's heavy analyses share (app/graphql/analyses.ts): the tenant's graph as they read it (once
// per graph version: a copy of the analyzer's live compiled graph brought up to this moment, never the live
// arrays themselves, which the next pass rewrites in place), the attacker profiles, and the slots heavy
// analyses take turns in: at most half the cores' worth run at once, a bounded number wait, and past that
// the caller is told to come back (429).
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../workers/module-worker.js';
import {
  ANALYSIS_WORKER_ROLE,
  runAnalysis,
  type AnalysisAnswer,
  type AnalysisReply,
  type AnalysisTask,
} from './analysis-worker.js';
import type { TenantState } from '../engine/tenant.js';
import { ProblemError } from '../http/problems.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  attackerProfiles,
  DEFAULT_PROFILE_PRIORS,
  type AttackerProfile,
  type ProfileName,
} from './attacker-profiles.js';
import { compileGraph, toShared, type CompiledGraph } from './compiled-graph.js';
import { tenantSource } from './live-graph.js';
import { patchFork } from './patched-search.js';
import { withNodeKeys } from './risk-simulation.js';

/** Heavy analyses one GraphQL request may run (spec "Limits"); the rest answer with an error. */
export const MAX_HEAVY_PER_REQUEST = 20;

export interface AnalysisSettings {
  seedIamUsers: boolean;
  profilePriors?: Readonly<Record<ProfileName, number>>;
  /** Heavy analyses running at once; default half the cores, at least one. */
  slots?: number;
  /** Heavy analyses waiting for a slot before more are refused (429); default 4 requests' worth. */
  queue?: number;
  /** Run analyses on worker threads (one per slot; default) or on the event loop (false). */
  workers?: boolean;
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
  private readonly useWorkers: boolean;
  private readonly idle: Worker[] = [];
  private nextJob = 1;

  constructor(
    settings: AnalysisSettings,
    private readonly metrics?: Pick<Metrics, 'apiHeavyRefused'>,
  ) {
    this.seedIamUsers = settings.seedIamUsers;
    this.profiles = attackerProfiles(settings.profilePriors ?? DEFAULT_PROFILE_PRIORS);
    this.slots = Math.max(1, settings.slots ?? Math.floor(os.availableParallelism() / 2));
    this.queueLimit = Math.max(0, settings.queue ?? 4 * MAX_HEAVY_PER_REQUEST);
    this.useWorkers = settings.workers ?? true;
  }

  /**
   * Runs an analysis of `g` on a worker thread (one per slot, started on first use, kept idle and unref'd
   * between jobs), or in-process without workers. Call it inside `run`, which holds the slot.
   */
  async compute(g: CompiledGraph, task: AnalysisTask): Promise<AnalysisAnswer> {
    if (!this.useWorkers) return runAnalysis(g, task);
    const worker = this.idle.pop() ?? this.spawn();
    const id = this.nextJob++;
    let failed = false;
    worker.ref();
    try {
      return await new Promise<AnalysisAnswer>((resolve, reject) => {
        const onMessage = (reply: AnalysisReply) => {
          if (reply.id !== id) return;
          cleanup();
          if (reply.ok) resolve(reply.answer);
          else
            reject(
              reply.range ? new RangeError(reply.message) : new Error(`analysis failed: ${reply.message}`),
            );
        };
        const onError = (error: Error) => {
          cleanup();
          reject(new Error(`analysis worker crashed: ${error.message}`, { cause: error }));
        };
        const onExit = (code: number) => {
          cleanup();
          reject(new Error(`analysis worker exited with code ${code}`));
        };
        const cleanup = () => {
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        worker.postMessage({ id, graph: toShared(g), task });
      });
    } catch (error) {
      // A worker that failed is not reused (it may be gone); one whose analysis refused its input is.
      if (!(error instanceof RangeError)) {
        failed = true;
        void worker.terminate();
      }
      throw error;
    } finally {
      if (!failed) this.release(worker);
    }
  }

  private release(worker: Worker): void {
    worker.unref();
    this.idle.push(worker);
  }

  private spawn(): Worker {
    const worker = spawnModuleWorker(new URL('./analysis-worker.js', import.meta.url), {
      workerData: { role: ANALYSIS_WORKER_ROLE },
      caller: import.meta.url,
    });
    worker.unref();
    return worker;
  }

  /** Stops the idle workers (tests, shutdown); running analyses finish on theirs. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  /**
   * The tenant's graph for analyses, reused until the graph changes: a fork of the analyzer's live compiled
   * graph (live-graph.ts) patched with the writes no pass has taken yet, as the merge gate lays them
   * (patched-search.ts), which costs a fraction of a compile; a fresh compile when there is nothing to fork
   * (no pass yet, other start rules, more pending writes than a patch takes). The fork has arrays of its
   * own: a pass patching the live graph while an analysis runs does not touch what the analysis reads.
   */
  compiled(state: TenantState): CompiledGraph {
    const version = state.writer.version;
    const cached = this.compiledByTenant.get(state);
    if (cached && cached.version === version) return cached.graph;
    const graph = withNodeKeys(
      this.fromLive(state) ?? compileGraph(state.graph, { seedIamUsers: this.seedIamUsers }),
    );
    this.compiledByTenant.set(state, { version, graph });
    return graph;
  }

  /** The live graph as of now (a patched fork), or null when it cannot be had. */
  private fromLive(state: TenantState): CompiledGraph | null {
    // The live graph holds the graph as of the last pass's sync; the writer lists what changed since.
    const pending = state.writer.changes.peek();
    if (!pending || state.lastPass === null) return null;
    const patched = patchFork(state.live, tenantSource(state.graph), pending, {
      seedIamUsers: this.seedIamUsers,
      identity: true,
    });
    return patched?.fork ?? null;
  }

  /** Counts a refusal of a heavy field over the per-request cap. */
  refusedOverRequestCap(): void {
    this.metrics?.apiHeavyRefused.inc({ reason: 'request' });
  }

  /** Runs a heavy analysis in a slot; throws AnalysisBusyError when every slot and queue place is taken. */
  async run<T>(task: () => T | Promise<T>): Promise<T> {
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
      return await task();
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
