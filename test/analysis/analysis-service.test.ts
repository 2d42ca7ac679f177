// The heavy analyses' service: answers from a worker thread equal the in-process ones (the Monte Carlo's
// randomness is keyed per hop, so the thread does not matter); slots, the wait queue and the 429 refusal.
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisBusyError, AnalysisService } from '../../src/analysis/analysis-service.js';
import { runAnalysis } from '../../src/analysis/analysis-worker.js';
import { attackerProfiles } from '../../src/analysis/attacker-profiles.js';
import { withNodeKeys } from '../../src/analysis/risk-simulation.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { compile, randomEstate } from './small-estate.js';

const threaded = new AnalysisService({ seedIamUsers: false, slots: 1 });
afterAll(async () => {
  await threaded.close();
});

describe('AnalysisService', () => {
  it('computes on a worker thread exactly what it computes in-process', async () => {
    const g = compile(randomEstate(3, 30, 90));
    const tasks = [
      { kind: 'risk' as const, iterations: 500, seed: 9, profiles: attackerProfiles() },
      { kind: 'whatIf' as const, changes: [{ edge: 4, p: 0 }], iterations: 300, seed: 2 },
      { kind: 'plan' as const, p1: 0.3, suppressed: [] },
      { kind: 'kShortest' as const, targets: Array.from(g.targets), k: 4 },
    ];
    // With node keys (as the service hands graphs over) too: they must reach the thread.
    const keyed = withNodeKeys(compile(randomEstate(3, 30, 90)));
    expect(runAnalysis(keyed, tasks[0])).not.toEqual(runAnalysis(g, tasks[0]));
    for (const graph of [g, keyed])
      for (const task of tasks) {
        const there = await threaded.run((signal) => threaded.compute(graph, task, signal), {
          tenant: 'default',
        });
        expect(JSON.parse(JSON.stringify(there))).toEqual(
          JSON.parse(JSON.stringify(runAnalysis(graph, task))),
        );
      }
  });

  it('runs `slots` at once, queues `queue` more, refuses the rest with 429 and counts it', async () => {
    const metrics = createMetrics();
    const service = new AnalysisService({ seedIamUsers: false, slots: 1, queue: 1, workers: false }, metrics);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = service.run(
      async () => {
        order.push('first');
        await gate;
      },
      { tenant: 'default' },
    );
    const second = service.run(() => order.push('second'), { tenant: 'default' });
    const third = service.run(() => order.push('third'), { tenant: 'default' });
    await expect(third).rejects.toBeInstanceOf(AnalysisBusyError);
    await expect(third).rejects.toMatchObject({
      problem: { status: 429, limit: 'heavy-analyses' },
      retryAfter: 1,
    });
    expect(service.load).toEqual({ running: 1, waiting: 1 });
    release();
    await first;
    await second;
    expect(order).toEqual(['first', 'second']);
    expect(service.load).toEqual({ running: 0, waiting: 0 });
    expect(await metrics.registry.getSingleMetricAsString('service_api_heavy_refused_total')).toMatch(
      /reason="busy"\} 1/,
    );
  });
});
