// What an AI answer asks of a provider: one system prompt and one user message in, text and token counts
// out, streamed through `onText` when the caller streams. Each provider is one file speaking its official
// SDK (openai-chat.ts, anthropic-messages.ts); index.ts builds the one the settings choose.
import type { AiProviderName } from '../../config/ai-settings.js';

export interface CompletionRequest {
  system: string;
  user: string;
  maxTokens: number;
  signal?: AbortSignal;
  /** set when the caller streams: each piece of text as the provider sends it */
  onText?: (delta: string) => void;
}

export interface Completion {
  text: string;
  inputTokens: number;
  outputTokens: number;
}

export interface AiProvider {
  /** `a` or `b`, as the settings name them (the answer's `provider`) */
  readonly name: AiProviderName;
  /** the wire API it speaks */
  readonly api: 'openai-chat-completions' | 'anthropic-messages';
  readonly model: string;
  complete(request: CompletionRequest): Promise<Completion>;
}

/**
 * A provider call that failed: the provider's HTTP status when it answered, else none (timeout, connection).
 * The message names the provider and the status only: a provider's error body may quote the request.
 */
export class ProviderFailure extends Error {
  constructor(
    readonly provider: AiProviderName,
    readonly status: number | undefined,
    readonly reason: 'status' | 'timeout' | 'connection' | 'aborted' | 'empty',
  ) {
    super(
      `AI provider ${provider.toUpperCase()} ${
        reason === 'status'
          ? `answered HTTP ${status}`
          : reason === 'timeout'
            ? 'did not answer in time (AI_TIMEOUT)'
            : reason === 'aborted'
              ? 'call was cancelled'
              : reason === 'empty'
                ? 'answered no text'
                : 'could not be reached'
      }`,
    );
  }
}

/** An SDK error as a ProviderFailure; both SDKs share the shape (status, and named timeout/connection errors). */
export function asProviderFailure(provider: AiProviderName, error: unknown): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  const e = error as { status?: unknown; name?: unknown; constructor?: { name?: string } };
  const kind = `${typeof e?.name === 'string' ? e.name : ''} ${e?.constructor?.name ?? ''}`;
  if (/UserAbort|AbortError/.test(kind)) return new ProviderFailure(provider, undefined, 'aborted');
  if (/Timeout/.test(kind)) return new ProviderFailure(provider, undefined, 'timeout');
  if (typeof e?.status === 'number') return new ProviderFailure(provider, e.status, 'status');
  return new ProviderFailure(provider, undefined, 'connection');
}
