// POST /ai/ask on the API listener: a question about the caller's tenant answered by the configured AI
// provider from the live paths, every citation checked (src/ai/). Signed-in callers only: the policy layer
// refuses anonymous callers on every `/ai/` route (app/plugins/api-auth.ts, `anonymous_ai`). With
// `stream: true` or `Accept: text/event-stream` the answer comes as server-sent events:
//   meta   {provider, model, context}        once, before the model is asked
//   delta  {text}                            the model's text as it arrives (unchecked)
//   answer {answer, citations, ...}          the checked answer, as the JSON response carries it
//   error  {type, title, status, detail}     the provider failed after the stream began (a problem)
// Refusals before the stream begins (400, 401/403, 404 pathId, 429, 503) are plain problem+json.
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AskService, type AskAnswer } from '../../src/ai/ask.js';
import type { Retriever } from '../../src/ai/grounding.js';
import { PathStoreRetriever } from '../../src/ai/path-store-retriever.js';
import { searchRetriever } from '../../src/ai/search-retriever.js';
import { createAiProvider } from '../../src/ai/providers/index.js';
import { ProviderFailure, type AiProvider } from '../../src/ai/providers/provider.js';
import type { AiSettings } from '../../src/config/ai-settings.js';
import type { Engine } from '../../src/engine/engine.js';
import { problem, ProblemError } from '../../src/http/problems.js';
import type { FieldError } from '../../src/ingest/envelope.js';
import { aiMetrics } from '../../src/metrics/ai-metrics.js';
import type { Metrics } from '../../src/metrics/metrics.js';
import type { Auditor } from '../plugins/audit.js';
import { PATH_ID_PATTERN } from './visible-path.js';

/** The longest question taken, in characters. */
export const MAX_QUESTION_CHARS = 4000;

export interface AskBody {
  question: string;
  pathId?: string;
  stream?: boolean;
}

export interface AiRouteDeps {
  engine: Engine;
  settings: AiSettings;
  metrics: Metrics;
  logger: Logger;
  now: () => number;
  audit?: Auditor;
  /** retrievers asked before the path store's (default: the search index's, src/ai/search-retriever.ts) */
  retrievers?: readonly Retriever[];
  /** the provider, when not the one the settings build (tests of a provider that is not configured) */
  provider?: AiProvider;
}

const pathIdPattern = new RegExp(PATH_ID_PATTERN);

/** The body, checked: each bad field named by pointer. */
export function checkAskBody(body: unknown): AskBody {
  const errors: FieldError[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ProblemError('invalid-payload', 'the body is not a JSON object: send {"question": "..."}', {
      errors: [{ pointer: '/', detail: 'expected an object with question (string)' }],
    });
  const { question, pathId, stream, ...rest } = body as Record<string, unknown>;
  if (typeof question !== 'string' || !question.trim())
    errors.push({
      pointer: '/question',
      value: question,
      detail: 'expected a question (a non-empty string)',
    });
  else if (question.length > MAX_QUESTION_CHARS)
    errors.push({
      pointer: '/question',
      value: question,
      detail: `longer than ${MAX_QUESTION_CHARS} characters`,
    });
  if (pathId !== undefined && (typeof pathId !== 'string' || !pathIdPattern.test(pathId)))
    errors.push({ pointer: '/pathId', value: pathId, detail: 'expected a path id (ap- and 16 hex digits)' });
  if (stream !== undefined && typeof stream !== 'boolean')
    errors.push({ pointer: '/stream', value: stream, detail: 'expected true or false' });
  for (const key of Object.keys(rest))
    errors.push({ pointer: `/${key}`, value: rest[key], detail: 'unknown field (question, pathId, stream)' });
  if (errors.length)
    throw new ProblemError('invalid-payload', `ask: ${errors[0].pointer}: ${errors[0].detail}`, { errors });
  return body as AskBody;
}

function wantsStream(request: FastifyRequest, body: AskBody): boolean {
  if (body.stream !== undefined) return body.stream;
  return /\btext\/event-stream\b/i.test(request.headers.accept ?? '');
}

/** One server-sent event; `data` is JSON on one line, so no field can break the framing. */
function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

const cite = (c: { kind: string; id: string }) => `${c.kind}:${c.id}`;

export function registerAiRoutes(app: FastifyInstance, deps: AiRouteDeps): AskService {
  const metrics = aiMetrics(deps.metrics.registry);
  const service = new AskService({
    settings: deps.settings,
    provider: deps.provider ?? createAiProvider(deps.settings),
    // The search index first (prefix and typo-tolerant), the path store's own matching last, the fallback.
    retrievers: [
      ...(deps.retrievers ?? [searchRetriever(deps.engine, deps.engine.search)]),
      new PathStoreRetriever(deps.engine),
    ],
    estate: deps.engine,
    metrics,
    now: deps.now,
    onRetrieverFailure: (retriever, error) =>
      deps.logger.warn(
        { retriever, err: { message: (error as Error)?.message } },
        'ai: a retriever failed; answering from the others',
      ),
  });

  const audit = (
    request: FastifyRequest,
    body: AskBody,
    provider: AiProvider,
    outcome: string,
    answer?: AskAnswer,
  ) => {
    deps.audit?.ai(request, {
      questionSha256: createHash('sha256').update(body.question).digest('hex'),
      pathId: body.pathId,
      provider: provider.name,
      model: provider.model,
      outcome,
      citations: answer?.citations.map(cite) ?? [],
      unresolved: answer?.unresolved.map(cite) ?? [],
      inputTokens: answer?.usage.inputTokens ?? 0,
      outputTokens: answer?.usage.outputTokens ?? 0,
    });
    // The paths the answer cited were shown to the caller: views, as any read of them (exfil watch included).
    const paths = answer?.citations.filter((c) => c.kind === 'path').map((c) => c.id) ?? [];
    if (paths.length) deps.audit?.view(request, paths);
  };

  /** A provider failure as the problem the client gets; the log names provider, status and reason only. */
  const failed = (request: FastifyRequest, failure: ProviderFailure) => {
    request.log.warn(
      { provider: failure.provider, status: failure.status, reason: failure.reason },
      'ai: the provider failed',
    );
    return new ProblemError('ai-provider-failed', failure.message, {
      provider: failure.provider,
      ...(failure.status !== undefined && { providerStatus: failure.status }),
    });
  };

  app.post('/ai/ask', { config: { access: 'ai' } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const body = checkAskBody(request.body);
    const provider = service.admit(request.tenant);
    const asked = {
      tenant: request.tenant,
      principal: request.principal,
      question: body.question,
      pathId: body.pathId,
    };
    // Retrieval first: an unknown pathId is a 404, not an event in a stream that already said 200.
    const grounding = await service.retrieve(asked);
    // The client going away stops the provider call (and its billing).
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    if (!wantsStream(request, body)) {
      try {
        const answer = await service.answer({ ...asked, signal: gone.signal }, provider, grounding);
        audit(request, body, provider, answer.unverified ? 'unverified' : 'answered', answer);
        return answer;
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
        audit(request, body, provider, error.reason === 'aborted' ? 'cancelled' : 'failed');
        throw failed(request, error);
      }
    }
    const out = new PassThrough();
    void reply
      .code(200)
      .header('cache-control', 'no-cache')
      .header('x-accel-buffering', 'no')
      .type('text/event-stream; charset=utf-8')
      .send(out);
    out.write(
      sse('meta', {
        provider: provider.name,
        model: provider.model,
        context: {
          paths: grounding.paths.length,
          nodes: grounding.nodes.length,
          findings: grounding.findings.length,
          selection: grounding.selection,
          sources: grounding.sources,
        },
      }),
    );
    try {
      const answer = await service.answer(
        { ...asked, signal: gone.signal, onText: (text) => out.write(sse('delta', { text })) },
        provider,
        grounding,
      );
      audit(request, body, provider, answer.unverified ? 'unverified' : 'answered', answer);
      out.end(sse('answer', answer));
    } catch (error) {
      const failure = error instanceof ProviderFailure ? error : undefined;
      audit(request, body, provider, failure?.reason === 'aborted' ? 'cancelled' : 'failed');
      const body500 = failure
        ? failed(request, failure).problem
        : problem('internal', `internal error; quote request id ${request.id}`);
      if (!failure) request.log.error({ err: error }, 'ai: streaming answer failed');
      out.end(sse('error', body500));
    }
    return reply;
  });
  return service;
}
