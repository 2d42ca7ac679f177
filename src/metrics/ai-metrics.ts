// Metrics of AI answers (`POST /ai/ask`, docs/ai.md), on the service's registry. Kept apart from
// metrics.ts so the AI route can take them from any registry it is given, once (getSingleMetric).
import { Counter, type Registry } from 'prom-client';

export interface AiMetrics {
  /** questions, by provider (`a`, `b`, `none`) and outcome */
  answers: Counter<'provider' | 'outcome'>;
  /** tokens the provider counted, by provider and direction (`input`, `output`) */
  tokens: Counter<'provider' | 'direction'>;
  /** citations checked, by kind and result (`resolved`, `unresolved`) */
  citations: Counter<'kind' | 'result'>;
}

export const AI_ANSWER_OUTCOMES = [
  'answered',
  'unverified',
  'unconfigured',
  'rate_limited',
  'failed',
] as const;

function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function aiMetrics(registry: Registry): AiMetrics {
  return {
    answers: counter(
      registry,
      'service_ai_answers_total',
      'Questions to POST /ai/ask, by provider (a, b, none) and outcome: answered (every claim cited), unverified (some claim without a citation that resolves), unconfigured (503, no key), rate_limited (429), failed (the provider failed).',
      ['provider', 'outcome'],
    ),
    tokens: counter(
      registry,
      'service_ai_tokens_total',
      'Tokens AI providers counted for answers, by provider and direction (input, output).',
      ['provider', 'direction'],
    ),
    citations: counter(
      registry,
      'service_ai_citations_total',
      "Citations in AI answers checked against the caller's tenant, by kind (path, node, finding) and result (resolved, unresolved).",
      ['kind', 'result'],
    ),
  };
}
