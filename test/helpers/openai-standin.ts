// An OpenAI-compatible Chat Completions API on loopback, the subset the `openai` SDK's
// `chat.completions.create` uses: POST /v1/chat/completions, Bearer auth, a `chat.completion` object, or
// with `stream: true` server-sent `chat.completion.chunk`s (role first, content pieces, a finish chunk, the
// usage chunk when `stream_options.include_usage`, then `data: [DONE]`). Errors in OpenAI's `{error}` shape.
// Records every request (headers and body) and answers with the text the test scripts, so a test chooses
// the ids the answer cites and reads back exactly what reached the provider.
import Fastify, { type FastifyInstance } from 'fastify';

export interface RecordedChatRequest {
  headers: Record<string, string | string[] | undefined>;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    max_completion_tokens?: number;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
}

/** Roughly as a tokenizer counts English: a token per four characters. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The answer in pieces of a few words, as a model streams it. */
export function pieces(text: string): string[] {
  return (
    text.match(/\S+\s*|\s+/g)?.reduce<string[]>((out, word, i) => {
      if (i % 3 === 0) out.push(word);
      else out[out.length - 1] += word;
      return out;
    }, []) ?? [text]
  );
}

export class OpenAiStandIn {
  readonly requests: RecordedChatRequest[] = [];
  /** the answer's text for a request (the test scripts it) */
  reply: (request: RecordedChatRequest) => string = () => 'No answer was scripted.';
  /** answer this HTTP status (OpenAI's error shape) instead, when set */
  failWith?: number;
  private readonly app: FastifyInstance = Fastify();
  url = '';

  constructor(readonly apiKey: string) {}

  /** The base URL to configure (AI_PROVIDER_A_BASE_URL). */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  async start(): Promise<this> {
    this.app.post('/v1/chat/completions', async (request, reply) => {
      const error = (status: number, message: string, type: string, code: string | null) =>
        reply.code(status).send({ error: { message, type, param: null, code } });
      if (request.headers.authorization !== `Bearer ${this.apiKey}`)
        return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      const body = request.body as RecordedChatRequest['body'];
      this.requests.push({ headers: { ...request.headers }, body });
      if (typeof body?.model !== 'string' || !Array.isArray(body.messages) || !body.messages.length)
        return error(400, "'model' and 'messages' are required", 'invalid_request_error', null);
      if (this.failWith) return error(this.failWith, 'The server had an error.', 'server_error', null);
      const text = this.reply({ headers: request.headers, body });
      const promptTokens = tokens(body.messages.map((m) => m.content).join('\n'));
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: tokens(text),
        total_tokens: promptTokens + tokens(text),
      };
      const base = { id: 'chatcmpl-standin', created: Math.floor(Date.now() / 1000), model: body.model };
      if (!body.stream)
        return {
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text, refusal: null },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage,
        };
      const chunk = (choices: unknown[], extra: object = {}) =>
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      reply.raw.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
      for (const piece of pieces(text))
        reply.raw.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
      reply.raw.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      if (body.stream_options?.include_usage) reply.raw.write(chunk([], { usage }));
      reply.raw.end('data: [DONE]\n\n');
      return reply;
    });
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
    return this;
  }

  async stop(): Promise<void> {
    await this.app.close();
  }
}
