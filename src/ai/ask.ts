// One AI question, from the caller's words to a checked answer: the provider configured (else 503 naming the
// settings), the tenant within its rate (else 429), the estate retrieved (the retrievers in order; the path
// store's always last, as the fallback), the prompt built and scrubbed (prompt.ts), the provider asked
// (streamed when the caller streams), and every citation checked against the tenant's store (citations.ts).
// HTTP, audit and the event stream are the route's (app/routes/ai.ts).
import { AI_KEY_SETTINGS, type AiSettings } from '../config/ai-settings.js';
import type { Principal } from '../auth/principal.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { ProblemError } from '../http/problems.js';
import type { AiMetrics } from '../metrics/ai-metrics.js';
import { checkAnswer, type CheckedAnswer } from './citations.js';
import { emptyGrounding, type Grounding, type Retriever } from './grounding.js';
import type { EstateReader } from './path-store-retriever.js';
import { buildPrompt } from './prompt.js';
import { ProviderFailure, type AiProvider } from './providers/provider.js';

export interface AskRequest {
  tenant: string;
  principal: Principal;
  question: string;
  pathId?: string;
  signal?: AbortSignal;
  /** streaming: the answer's text as the provider sends it (unchecked: the final answer is checked) */
  onText?: (delta: string) => void;
}

export interface AskAnswer extends CheckedAnswer {
  provider: string;
  model: string;
  usage: { inputTokens: number; outputTokens: number };
  /** what was retrieved and sent: counts, how the paths were chosen, and by which retrievers */
  context: {
    paths: number;
    nodes: number;
    findings: number;
    selection: Grounding['selection'];
    sources: string[];
    redactions: number;
  };
}

export interface AskServiceDeps {
  settings: AiSettings;
  /** undefined when no provider key is set: every question is answered 503 */
  provider: AiProvider | undefined;
  /** tried in order and merged; the last is the fallback and must not fail (the path store's) */
  retrievers: readonly Retriever[];
  estate: EstateReader;
  metrics: AiMetrics;
  now: () => number;
  /** a retriever that failed and was passed over (logged by the caller, never the question) */
  onRetrieverFailure?: (retriever: string, error: unknown) => void;
}

export class AskService {
  private readonly limiter: RateLimiter;

  constructor(private readonly deps: AskServiceDeps) {
    const perMinute = deps.settings.ratePerMinute;
    // Per tenant: every caller of a tenant shares its budget (a provider bills the tenant's questions together).
    this.limiter = new RateLimiter(perMinute / 60, 100_000, perMinute);
  }

  get provider(): AiProvider | undefined {
    return this.deps.provider;
  }

  /** Throws the 503 or 429 a question is answered before anything is retrieved; counts a refusal. */
  admit(tenant: string): AiProvider {
    const provider = this.deps.provider;
    if (!provider) {
      this.deps.metrics.answers.inc({ provider: 'none', outcome: 'unconfigured' });
      throw new ProblemError(
        'ai-unconfigured',
        `AI answers need a provider key: set ${AI_KEY_SETTINGS[0]} (an OpenAI-compatible API) or ${AI_KEY_SETTINGS[1]} (Anthropic); docs/ai.md`,
        { settings: [...AI_KEY_SETTINGS] },
      );
    }
    const wait = this.limiter.take(tenant, this.deps.now());
    if (wait > 0) {
      this.deps.metrics.answers.inc({ provider: provider.name, outcome: 'rate_limited' });
      throw new ProblemError(
        'too-many-requests',
        `this tenant asked more than ${this.deps.settings.ratePerMinute} questions a minute (AI_RATE_PER_MINUTE); retry in ${wait} s`,
        { retryAfter: wait },
      );
    }
    return provider;
  }

  /** The estate for a question, from every retriever that answers, merged (first retriever's order first). */
  async retrieve(
    request: Pick<AskRequest, 'tenant' | 'principal' | 'question' | 'pathId'>,
  ): Promise<Grounding> {
    const merged = emptyGrounding();
    const { retrievers } = this.deps;
    for (const [index, retriever] of retrievers.entries()) {
      let found: Grounding;
      try {
        found = await retriever.retrieve({ ...request, alreadyFound: merged.paths.length });
      } catch (error) {
        // The fallback's refusals (an unknown pathId: 404) are the answer; another retriever's failure is not.
        if (index === retrievers.length - 1 || error instanceof ProblemError) throw error;
        this.deps.onRetrieverFailure?.(retriever.name, error);
        continue;
      }
      mergeInto(merged, found);
    }
    return merged;
  }

  /** Admits, retrieves and answers; a streaming caller calls the three itself, to refuse before it streams. */
  async ask(request: AskRequest): Promise<AskAnswer> {
    const provider = this.admit(request.tenant);
    return this.answer(request, provider, await this.retrieve(request));
  }

  async answer(request: AskRequest, provider: AiProvider, grounding: Grounding): Promise<AskAnswer> {
    const prompt = buildPrompt(request.question, grounding);
    let completion;
    try {
      completion = await provider.complete({
        system: prompt.system,
        user: prompt.user,
        maxTokens: this.deps.settings.maxAnswerTokens,
        signal: request.signal,
        onText: request.onText,
      });
      if (!completion.text.trim()) throw new ProviderFailure(provider.name, undefined, 'empty');
    } catch (error) {
      this.deps.metrics.answers.inc({ provider: provider.name, outcome: 'failed' });
      throw error;
    }
    const { metrics } = this.deps;
    metrics.tokens.inc({ provider: provider.name, direction: 'input' }, completion.inputTokens);
    metrics.tokens.inc({ provider: provider.name, direction: 'output' }, completion.outputTokens);
    const state = this.deps.estate.tenant(request.tenant);
    const checked = checkAnswer(completion.text, {
      principal: request.principal,
      graph: state?.graph,
      paths: state?.paths,
      grounding,
    });
    for (const c of checked.citations) metrics.citations.inc({ kind: c.kind, result: 'resolved' });
    for (const c of checked.unresolved) metrics.citations.inc({ kind: c.kind, result: 'unresolved' });
    metrics.answers.inc({ provider: provider.name, outcome: checked.unverified ? 'unverified' : 'answered' });
    return {
      ...checked,
      provider: provider.name,
      model: provider.model,
      usage: { inputTokens: completion.inputTokens, outputTokens: completion.outputTokens },
      context: {
        paths: grounding.paths.length,
        nodes: grounding.nodes.length,
        findings: grounding.findings.length,
        selection: grounding.selection,
        sources: grounding.sources,
        redactions: prompt.redactions,
      },
    };
  }
}

/** Adds what `from` found that `into` lacks, by id; `into`'s entries (an earlier retriever's) come first. */
export function mergeInto(into: Grounding, from: Grounding): void {
  const add = <T extends { id: string }>(list: T[], more: T[]) => {
    const have = new Set(list.map((x) => x.id));
    for (const x of more) if (!have.has(x.id)) list.push(x);
  };
  add(into.paths, from.paths);
  add(into.nodes, from.nodes);
  add(into.findings, from.findings);
  for (const s of from.selection) if (!into.selection.includes(s)) into.selection.push(s);
  for (const s of from.sources) if (!into.sources.includes(s)) into.sources.push(s);
}
