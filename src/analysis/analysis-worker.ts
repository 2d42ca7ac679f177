// The heavy analyses on a worker thread (analysis-service.ts), so a long Monte Carlo, plan or what-if never
// holds the listeners' event loop. A job names the compiled graph on its SharedArrayBuffers (read in place,
// never copied) and what to compute; answers carry node and edge indices, which the API maps to names.
import { parentPort, workerData } from 'node:worker_threads';
import type { AttackerProfile } from './attacker-profiles.js';
import { fromShared, type CompiledGraph, type SharedCompiledGraph } from './compiled-graph.js';
import { kShortestRoutes, type RankedRoute } from './k-shortest.js';
import { remediationPlan, type RemediationPlan } from './remediation-plan.js';
import { simulateRisk, type RiskPhases, type RiskSimulation } from './risk-simulation.js';
import { whatIf, type HopChange, type WhatIfResult } from './what-if.js';

/** workerData marking a thread started by analysis-service.ts (a module importing this one stays inert). */
export const ANALYSIS_WORKER_ROLE = 'pathgate/analysis-worker';

export type AnalysisTask =
  | { kind: 'risk'; iterations: number; seed: number; profiles: AttackerProfile[] }
  | { kind: 'whatIf'; changes: HopChange[]; iterations: number; seed: number }
  | { kind: 'plan'; p1: number; suppressed: string[] }
  | { kind: 'kShortest'; targets: number[]; k: number };

export type AnalysisAnswer = RiskSimulation | WhatIfResult | RemediationPlan | RankedRoute[];

export interface AnalysisJob {
  id: number;
  graph: SharedCompiledGraph;
  /** Names the graph across jobs (it never changes under one key): see simulateRisk's graphKey. */
  graphKey?: number;
  task: AnalysisTask;
}

export type AnalysisReply =
  | { id: number; ok: true; answer: AnalysisAnswer; phases?: RiskPhases }
  | { id: number; ok: false; message: string; range?: boolean };

/**
 * Runs one task on a graph (in a worker, or in-process when no worker is used); a risk simulation notes
 * its phases' times in `phases` when given, and keeps what depends on the graph alone under `graphKey`
 * (a graph that never changes) for the next one.
 */
export function runAnalysis(
  g: CompiledGraph,
  task: AnalysisTask,
  phases?: RiskPhases,
  graphKey?: number,
): AnalysisAnswer {
  switch (task.kind) {
    case 'risk':
      return simulateRisk(g, {
        iterations: task.iterations,
        seed: task.seed,
        profiles: task.profiles,
        phases,
        graphKey,
      });
    case 'whatIf':
      return whatIf(g, task.changes, { iterations: task.iterations, seed: task.seed, graphKey });
    case 'plan': {
      const suppressed = new Set(task.suppressed);
      return remediationPlan(g, { p1: task.p1, counts: (s, t) => !suppressed.has(`${s}>${t}`) });
    }
    case 'kShortest':
      return task.targets
        .flatMap((t) => kShortestRoutes(g, t, task.k))
        .sort((a, b) => a.units - b.units)
        .slice(0, task.k);
  }
}

/** The searchable core as a CompiledGraph: the analyses read no ids or names. */
export function analysisGraph(shared: SharedCompiledGraph): CompiledGraph {
  return { ...fromShared(shared), nodeIds: [], names: [], indexOf: () => -1 };
}

if (workerData?.role === ANALYSIS_WORKER_ROLE && parentPort) {
  const port = parentPort;
  port.on('message', (job: AnalysisJob) => {
    try {
      const phases: RiskPhases = { world: 0, worlds: 0, comonotone: 0, shape: 0 };
      const answer = runAnalysis(analysisGraph(job.graph), job.task, phases, job.graphKey);
      port.postMessage({ id: job.id, ok: true, answer, phases } satisfies AnalysisReply);
    } catch (error) {
      port.postMessage({
        id: job.id,
        ok: false,
        message: (error as Error).message,
        range: error instanceof RangeError,
      } satisfies AnalysisReply);
    }
  });
}
