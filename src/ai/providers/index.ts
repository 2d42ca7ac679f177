// The provider the settings choose (src/config/ai-settings.ts: AI_PROVIDER, else A, else B), or none.
import { activeAiProvider, type AiSettings } from '../../config/ai-settings.js';
import { anthropicMessagesProvider } from './anthropic-messages.js';
import { openAiChatProvider } from './openai-chat.js';
import type { AiProvider } from './provider.js';

export function createAiProvider(settings: AiSettings): AiProvider | undefined {
  const chosen = activeAiProvider(settings);
  if (chosen === 'a') return openAiChatProvider({ ...settings.a, key: settings.a.key! }, settings.timeoutMs);
  if (chosen === 'b')
    return anthropicMessagesProvider({ ...settings.b, key: settings.b.key! }, settings.timeoutMs);
  return undefined;
}
