// Provider B: Anthropic's Messages API through the official `@anthropic-ai/sdk`. Streaming reads the raw
// server-sent events (`message_start` carries the input tokens, `content_block_delta` the text,
// `message_delta` the output tokens).
import Anthropic from '@anthropic-ai/sdk';
import type { AiProviderSettings } from '../../config/ai-settings.js';
import { asProviderFailure, type AiProvider, type Completion, type CompletionRequest } from './provider.js';

export function anthropicMessagesProvider(
  settings: AiProviderSettings & { key: string },
  timeoutMs: number,
): AiProvider {
  // The key passed explicitly: the SDK then reads no ANTHROPIC_* credential, profile or config file.
  const client = new Anthropic({
    apiKey: settings.key,
    baseURL: settings.baseUrl,
    timeout: timeoutMs,
    maxRetries: 1,
    logLevel: 'off',
    openTelemetry: false,
  });
  const model = settings.model;
  return {
    name: 'b',
    api: 'anthropic-messages',
    model,
    async complete(request: CompletionRequest): Promise<Completion> {
      const params = {
        model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: [{ role: 'user' as const, content: request.user }],
      };
      try {
        if (!request.onText) {
          const message = await client.messages.create(params, { signal: request.signal });
          return {
            text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
            inputTokens: message.usage.input_tokens,
            outputTokens: message.usage.output_tokens,
          };
        }
        const stream = await client.messages.create({ ...params, stream: true }, { signal: request.signal });
        const out: Completion = { text: '', inputTokens: 0, outputTokens: 0 };
        for await (const event of stream) {
          if (event.type === 'message_start') {
            out.inputTokens = event.message.usage.input_tokens;
            out.outputTokens = event.message.usage.output_tokens;
          } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            out.text += event.delta.text;
            request.onText(event.delta.text);
          } else if (event.type === 'message_delta') out.outputTokens = event.usage.output_tokens;
        }
        return out;
      } catch (error) {
        throw asProviderFailure('b', error);
      }
    },
  };
}
