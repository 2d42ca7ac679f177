// Anthropic's Messages API on loopback, the subset `@anthropic-ai/sdk`'s `messages.create` uses: POST
// /v1/messages with a key (`x-api-key`, or `Authorization: Bearer` as SDK 1.x sends it) and
// `anthropic-version`; `max_tokens`, `model` and `messages` required (400 `invalid_request_error` otherwise);
// a `message` object, or with `stream: true` the server-sent events `message_start`, `content_block_start`,
// `ping`, `content_block_delta` (`text_delta`), `content_block_stop`, `message_delta` (stop reason, output
// tokens), `message_stop`. Errors in Anthropic's `{type: 'error', error}` shape. Records every request and
// answers with the text the test scripts.
import Fastify, { type FastifyInstance } from 'fastify';
import { pieces } from './openai-standin.js';

export interface RecordedMessagesRequest {
  headers: Record<string, string | string[] | undefined>;
  body: {
    model: string;
    max_tokens: number;
    system?: string | { type: 'text'; text: string }[];
    messages: { role: string; content: string | { type: string; text?: string }[] }[];
    stream?: boolean;
  };
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

const contentText = (content: RecordedMessagesRequest['body']['messages'][number]['content']) =>
  typeof content === 'string' ? content : content.map((b) => b.text ?? '').join('');

export class AnthropicStandIn {
  readonly requests: RecordedMessagesRequest[] = [];
  reply: (request: RecordedMessagesRequest) => string = () => 'No answer was scripted.';
  /** answer this HTTP status (Anthropic's error shape) instead, when set */
  failWith?: number;
  private readonly app: FastifyInstance = Fastify();
  url = '';

  constructor(readonly apiKey: string) {}

  /** The base URL to configure (AI_PROVIDER_B_BASE_URL); the SDK adds /v1/messages. */
  get baseUrl(): string {
    return this.url;
  }

  async start(): Promise<this> {
    this.app.post('/v1/messages', async (request, reply) => {
      const error = (status: number, type: string, message: string) =>
        reply.code(status).send({ type: 'error', error: { type, message } });
      const key = request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '');
      if (key !== this.apiKey) return error(401, 'authentication_error', 'invalid x-api-key');
      if (typeof request.headers['anthropic-version'] !== 'string')
        return error(400, 'invalid_request_error', 'anthropic-version: header is required');
      const body = request.body as RecordedMessagesRequest['body'];
      this.requests.push({ headers: { ...request.headers }, body });
      if (typeof body?.model !== 'string' || typeof body.max_tokens !== 'number')
        return error(400, 'invalid_request_error', 'model: Field required; max_tokens: Field required');
      if (!Array.isArray(body.messages) || body.messages[0]?.role !== 'user')
        return error(400, 'invalid_request_error', 'messages: the first message must use the "user" role');
      if (this.failWith) return error(this.failWith, 'api_error', 'Internal server error');
      const text = this.reply({ headers: request.headers, body });
      const system =
        typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('');
      const inputTokens = tokens(system + body.messages.map((m) => contentText(m.content)).join('\n'));
      const message = {
        id: 'msg_standin',
        type: 'message',
        role: 'assistant',
        model: body.model,
        stop_sequence: null,
      };
      if (!body.stream)
        return {
          ...message,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          usage: { input_tokens: inputTokens, output_tokens: tokens(text) },
        };
      const event = (name: string, data: object) =>
        `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      reply.raw.write(
        event('message_start', {
          message: {
            ...message,
            content: [],
            stop_reason: null,
            usage: { input_tokens: inputTokens, output_tokens: 1 },
          },
        }),
      );
      reply.raw.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
      reply.raw.write(event('ping', {}));
      for (const piece of pieces(text))
        reply.raw.write(
          event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }),
        );
      reply.raw.write(event('content_block_stop', { index: 0 }));
      reply.raw.write(
        event('message_delta', {
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: tokens(text) },
        }),
      );
      reply.raw.end(event('message_stop', {}));
      return reply;
    });
    this.url = await this.app.listen({ host: '127.0.0.1', port: 0 });
    return this;
  }

  async stop(): Promise<void> {
    await this.app.close();
  }
}
