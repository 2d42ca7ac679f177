// Provider A: an OpenAI-compatible Chat Completions API through the official `openai` SDK. The answer's
// length is `max_completion_tokens` (OpenAI's current name; `max_tokens` is refused by its newer models).
// Streaming asks for the usage chunk (`stream_options.include_usage`) so a streamed answer counts its tokens.
import OpenAI from 'openai';
import type { AiProviderSettings } from '../../config/ai-settings.js';
import { asProviderFailure, type AiProvider, type Completion, type CompletionRequest } from './provider.js';

export function openAiChatProvider(
  settings: AiProviderSettings & { key: string },
  timeoutMs: number,
): AiProvider {
  // Everything explicit, so no OPENAI_* variable of the environment changes where or as whom it calls.
  const client = new OpenAI({
    apiKey: settings.key,
    baseURL: settings.baseUrl,
    organization: null,
    project: null,
    timeout: timeoutMs,
    maxRetries: 1,
    logLevel: 'off',
  });
  const model = settings.model;
  return {
    name: 'a',
    api: 'openai-chat-completions',
    model,
    async complete(request: CompletionRequest): Promise<Completion> {
      const messages = [
        { role: 'system' as const, content: request.system },
        { role: 'user' as const, content: request.user },
      ];
      try {
        if (!request.onText) {
          const answer = await client.chat.completions.create(
            { model, messages, max_completion_tokens: request.maxTokens },
            { signal: request.signal },
          );
          return {
            text: answer.choices[0]?.message?.content ?? '',
            inputTokens: answer.usage?.prompt_tokens ?? 0,
            outputTokens: answer.usage?.completion_tokens ?? 0,
          };
        }
        const stream = await client.chat.completions.create(
          {
            model,
            messages,
            max_completion_tokens: request.maxTokens,
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal: request.signal },
        );
        const out: Completion = { text: '', inputTokens: 0, outputTokens: 0 };
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta?.content;
          if (delta) {
            out.text += delta;
            request.onText(delta);
          }
          if (chunk.usage) {
            out.inputTokens = chunk.usage.prompt_tokens;
            out.outputTokens = chunk.usage.completion_tokens;
          }
        }
        return out;
      } catch (error) {
        throw asProviderFailure('a', error);
      }
    },
  };
}
