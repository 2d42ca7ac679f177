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
import { withNodeKeys, type RiskPhases } from './risk-simulation.js';

/** Heavy analyses one GraphQL request may run (spec "Limits"); the rest answer with an error. */
export const MAX_HEAVY_PER_REQUEST = 20;

/** ANALYSIS_DEADLINE by default: a heavy analysis' wait for a slot and its run together. */
export const DEFAULT_ANALYSIS_DEADLINE_MS = 30_000;

export interface AnalysisSettings {
  seedIamUsers: boolean;
  profilePriors?: Readonly<Record<ProfileName, number>>;
  /** Heavy analyses running at once; default half the cores, at least one. */
  slots?: number;
  /** Of those, how many one tenant may hold at once; default half the slots, at least one. */
  tenantSlots?: number;
  /** Heavy analyses waiting for a slot before more are refused (429); default 4 requests' worth. */
  queue?: number;
  /** Of those, how many one tenant may hold; default one request's worth (20). */
  tenantQueue?: number;
  /** ANALYSIS_DEADLINE: waiting and running together; past it the analysis is stopped (503). */
  deadlineMs?: number;
  /** Run analyses on worker threads (one per slot; default) or on the event loop (false). */
  workers?: boolean;
}

/** Every slot and queue place is taken, or the tenant's share of the queue: 429 with Retry-After. */
export class AnalysisBusyError extends ProblemError {
  constructor(slots: number, queue: number, tenant?: { name: string; waiting: number }) {
    super(
      'too-many-requests',
      tenant
        ? `heavy analyses of tenant ${JSON.stringify(tenant.name)} are at capacity (${tenant.waiting} waiting, its share of the queue); retry shortly`
        : `heavy analyses are at capacity (${slots} running, ${queue} waiting); retry shortly`,
      { retryAfter: 1, limit: 'heavy-analyses' },
    );
  }
}

/** ANALYSIS_DEADLINE passed while the analysis waited or ran: 503, its worker stopped. */
export class AnalysisDeadlineError extends ProblemError {
  constructor(deadlineMs: number, stage: 'waiting' | 'running') {
    super(
      'analysis-deadline',
      `the heavy analysis did not finish within ANALYSIS_DEADLINE (${deadlineMs} ms; it was ${stage === 'waiting' ? 'still waiting for a slot' : 'running'}) and was stopped; ask for fewer iterations or retry later`,
      { limit: 'ANALYSIS_DEADLINE', max: deadlineMs, stage, retryAfter: 5 },
    );
  }
}

/** The client went away: nobody reads the answer, so the analysis is stopped. */
export class AnalysisCancelledError extends Error {
  constructor() {
    super('heavy analysis cancelled: the client disconnected');
  }
}

/** What a heavy analysis runs under: its tenant (for fair turns) and the request's signal (disconnect). */
export interface RunOptions {
  tenant: string;
  signal?: AbortSignal;
}

/** Where the last heavy analysis spent its time, in milliseconds (bench/risk-client.ts prints it). */
export interface AnalysisTimings {
  /** Waiting for a slot, and the turn of the event loop before the analysis starts. */
  wait: number;
  /** The graph for the analysis (compiled(): a fork of the live graph, or the cached one). */
  graph: number;
  /** The analysis as the event loop sees it: the worker's round trip, or the in-process run. */
  compute: number;
  /** A risk simulation's own phases, measured where it ran. */
  phases?: RiskPhases;
}

// A key per graph handed to analyses, unique in this process (its workers keep what they prepared of a
// graph under it: risk-simulation.ts).
const graphKeys = new WeakMap<CompiledGraph, number>();
let nextGraphKey = 1;

interface Waiter {
  tenant: string;
  start(): void;
}

export class AnalysisService {
  readonly profiles: AttackerProfile[];
  readonly seedIamUsers: boolean;
  readonly slots: number;
  readonly tenantSlots: number;
  readonly queueLimit: number;
  readonly tenantQueueLimit: number;
  readonly deadlineMs: number;
  private running = 0;
  private readonly runningByTenant = new Map<string, number>();
  /** Waiting analyses per tenant; a freed slot goes to the next tenant in turn, not the longest queue. */
  private readonly waiting = new Map<string, Waiter[]>();
  private waitingCount = 0;
  /** Tenants in the order their turn comes (round robin). */
  private turns: string[] = [];
  /** For tests and status: analyses stopped, and worker threads stopped for them. */
  readonly stopped = { disconnect: 0, deadline: 0, workers: 0 };
  private readonly compiledByTenant = new WeakMap<TenantState, { version: number; graph: CompiledGraph }>();
  private readonly useWorkers: boolean;
  private readonly idle: Worker[] = [];
  private nextJob = 1;
  /** The last heavy analysis' times (bench and status; not a metric). */
  lastTimings: AnalysisTimings = { wait: 0, graph: 0, compute: 0 };

  constructor(
    settings: AnalysisSettings,
    private readonly metrics?: Pick<Metrics, 'apiHeavyRefused' | 'apiHeavyCancelled'>,
  ) {
    this.seedIamUsers = settings.seedIamUsers;
    this.profiles = attackerProfiles(settings.profilePriors ?? DEFAULT_PROFILE_PRIORS);
    this.slots = Math.max(1, settings.slots ?? Math.floor(os.availableParallelism() / 2));
    this.tenantSlots = Math.max(1, Math.min(this.slots, settings.tenantSlots ?? Math.ceil(this.slots / 2)));
    this.queueLimit = Math.max(0, settings.queue ?? 4 * MAX_HEAVY_PER_REQUEST);
    this.tenantQueueLimit = Math.max(
      0,
      Math.min(this.queueLimit, settings.tenantQueue ?? MAX_HEAVY_PER_REQUEST),
    );
    this.deadlineMs = settings.deadlineMs ?? DEFAULT_ANALYSIS_DEADLINE_MS;
    this.useWorkers = settings.workers ?? true;
  }

  /**
   * Runs an analysis of `g` on a worker thread (one per slot, started on first use, kept idle and unref'd
   * between jobs), or in-process without workers. Call it inside `run`, which holds the slot, with the
   * signal `run` hands its task: when it aborts (client gone, deadline passed) the worker is terminated,
   * so the work stops with it, and a fresh one is started for the next analysis.
   */
  async compute(g: CompiledGraph, task: AnalysisTask, signal?: AbortSignal): Promise<AnalysisAnswer> {
    signal?.throwIfAborted();
    const began = performance.now();
    if (!this.useWorkers) {
      const phases: RiskPhases = { world: 0, worlds: 0, comonotone: 0, shape: 0 };
      const answer = runAnalysis(g, task, phases, graphKeys.get(g));
      this.lastTimings.compute = performance.now() - began;
      this.lastTimings.phases = task.kind === 'risk' ? phases : undefined;
      return answer;
    }
    const worker = this.idle.pop() ?? this.spawn();
    const id = this.nextJob++;
    let failed = false;
    worker.ref();
    try {
      return await new Promise<AnalysisAnswer>((resolve, reject) => {
        const onMessage = (reply: AnalysisReply) => {
          if (reply.id !== id) return;
          cleanup();
          this.lastTimings.compute = performance.now() - began;
          this.lastTimings.phases = reply.ok && task.kind === 'risk' ? reply.phases : undefined;
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
        const onAbort = () => {
          cleanup();
          // A synchronous analysis cannot be interrupted from outside: its thread is.
          this.stopped.workers++;
          reject(signal?.reason);
        };
        const cleanup = () => {
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.postMessage({ id, graph: toShared(g), graphKey: graphKeys.get(g), task });
      });
    } catch (error) {
      // A worker that failed or was stopped is not reused; one whose analysis refused its input is.
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
   * (no pass yet, other start rules, more pending writes than a patch takes). The fork is copied into arrays
   * of its own (LiveGraph.detachedCopy): a pass patching the live graph while an analysis runs does not
   * touch what the analysis reads.
   */
  compiled(state: TenantState): CompiledGraph {
    const began = performance.now();
    const version = state.writer.version;
    const cached = this.compiledByTenant.get(state);
    this.lastTimings.graph = 0;
    if (cached && cached.version === version) return cached.graph;
    const graph = withNodeKeys(
      this.fromLive(state) ?? compileGraph(state.graph, { seedIamUsers: this.seedIamUsers }),
    );
    this.compiledByTenant.set(state, { version, graph });
    graphKeys.set(graph, nextGraphKey++);
    this.lastTimings.graph = performance.now() - began;
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
    // Copied here and let go at once: the analyses keep it while the live graph moves on.
    return patched?.fork.detachedCopy() ?? null;
  }

  /** Counts a refusal of a heavy field over the per-request cap. */
  refusedOverRequestCap(): void {
    this.metrics?.apiHeavyRefused.inc({ reason: 'request' });
  }

  /**
   * Runs a heavy analysis in a slot, taking turns with the other tenants; throws AnalysisBusyError when
   * every slot and queue place, or the tenant's share of them, is taken. The task gets a signal that aborts
   * when the caller's signal does (the client went away) or ANALYSIS_DEADLINE passes, waiting or running;
   * `compute` stops the worker then, and `run` throws AnalysisDeadlineError or AnalysisCancelledError.
   */
  async run<T>(task: (signal: AbortSignal) => T | Promise<T>, options: RunOptions): Promise<T> {
    const { tenant } = options;
    options.signal?.throwIfAborted();
    const stop = new AbortController();
    let stage: 'waiting' | 'running' = 'waiting';
    const onClientGone = () => {
      if (stop.signal.aborted) return;
      this.stopped.disconnect++;
      this.metrics?.apiHeavyCancelled.inc({ reason: 'disconnect' });
      stop.abort(new AnalysisCancelledError());
    };
    const deadline = setTimeout(() => {
      if (stop.signal.aborted) return;
      this.stopped.deadline++;
      this.metrics?.apiHeavyCancelled.inc({ reason: 'deadline' });
      stop.abort(new AnalysisDeadlineError(this.deadlineMs, stage));
    }, this.deadlineMs);
    options.signal?.addEventListener('abort', onClientGone, { once: true });
    const began = performance.now();
    try {
      await this.takeSlot(tenant, stop.signal);
      stage = 'running';
      try {
        // Let the listeners answer what arrived meanwhile before a long synchronous analysis starts.
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.lastTimings = { wait: performance.now() - began, graph: 0, compute: 0 };
        stop.signal.throwIfAborted();
        return await task(stop.signal);
      } finally {
        this.freeSlot(tenant);
      }
    } finally {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onClientGone);
    }
  }

  /** A slot now, or a place in the tenant's queue until one is handed over (or the signal aborts). */
  private async takeSlot(tenant: string, signal: AbortSignal): Promise<void> {
    if (this.running < this.slots && this.runningOf(tenant) < this.tenantSlots) {
      this.occupy(tenant);
      return;
    }
    const queue = this.waiting.get(tenant) ?? [];
    if (this.waitingCount >= this.queueLimit) {
      this.metrics?.apiHeavyRefused.inc({ reason: 'busy' });
      throw new AnalysisBusyError(this.running, this.waitingCount);
    }
    if (queue.length >= this.tenantQueueLimit) {
      this.metrics?.apiHeavyRefused.inc({ reason: 'tenant' });
      throw new AnalysisBusyError(this.running, this.waitingCount, { name: tenant, waiting: queue.length });
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        tenant,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.dequeue(waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.waiting.set(tenant, queue);
      this.waitingCount++;
      if (!this.turns.includes(tenant)) this.turns.push(tenant);
    });
  }

  private runningOf(tenant: string): number {
    return this.runningByTenant.get(tenant) ?? 0;
  }

  private occupy(tenant: string): void {
    this.running++;
    this.runningByTenant.set(tenant, this.runningOf(tenant) + 1);
  }

  private dequeue(waiter: Waiter): void {
    const queue = this.waiting.get(waiter.tenant);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waitingCount--;
    if (!queue.length) {
      this.waiting.delete(waiter.tenant);
      this.turns = this.turns.filter((t) => t !== waiter.tenant);
    }
  }

  /** Frees a slot and hands free slots over: the next tenant in turn (under its share) goes first. */
  private freeSlot(tenant: string): void {
    this.running--;
    const left = this.runningOf(tenant) - 1;
    if (left > 0) this.runningByTenant.set(tenant, left);
    else this.runningByTenant.delete(tenant);
    while (this.running < this.slots) {
      const next = this.turns.find((t) => this.runningOf(t) < this.tenantSlots);
      if (next === undefined) return;
      const waiter = this.waiting.get(next)![0];
      this.dequeue(waiter);
      // Its turn is taken: it goes to the back of the line.
      if (this.waiting.has(next)) this.turns = [...this.turns.filter((t) => t !== next), next];
      this.occupy(next);
      waiter.start();
    }
  }

  /** For tests and status: analyses running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }
}
