// Settings of AI answers (`POST /ai/ask`, docs/ai.md), read apart from settings.ts (which is past its
// size): the two providers (A an OpenAI-compatible Chat Completions API, B Anthropic's Messages API),
// which of them answers when both are configured, the per-tenant rate, the answer's length and the wait.
import { parseDuration } from './duration.js';
import { wholeNumber } from './security-settings.js';

type Parser<T> = (text: string) => T;
export type AiReader = <T>(name: string, parse: Parser<T>, fallback: T) => T;
export type AiSecretReader = (name: string) => string | undefined;

export type AiProviderName = 'a' | 'b';

export interface AiProviderSettings {
  /** AI_PROVIDER_A_API_KEY / AI_PROVIDER_B_TOKEN (also `_FILE`): the credential; unset, the provider is off */
  key?: string;
  /** AI_PROVIDER_A_BASE_URL / AI_PROVIDER_B_BASE_URL */
  baseUrl: string;
  /** AI_PROVIDER_A_MODEL / AI_PROVIDER_B_MODEL */
  model: string;
}

export interface AiSettings {
  /** provider A: an OpenAI-compatible Chat Completions endpoint */
  a: AiProviderSettings;
  /** provider B: the Anthropic Messages API */
  b: AiProviderSettings;
  /** AI_PROVIDER: which provider answers when both have a key (default `a`) */
  preferred: AiProviderName;
  /** AI_RATE_PER_MINUTE: questions one tenant may ask per minute (burst the same) */
  ratePerMinute: number;
  /** AI_MAX_ANSWER_TOKENS: the longest answer asked of the model, in tokens */
  maxAnswerTokens: number;
  /** AI_TIMEOUT: how long one provider call may take, streaming included */
  timeoutMs: number;
}

export const AI_DEFAULTS = {
  baseUrlA: 'https://api.openai.com/v1',
  modelA: 'gpt-4.1-mini',
  baseUrlB: 'https://api.anthropic.com',
  modelB: 'claude-sonnet-4-6',
  ratePerMinute: 10,
  maxAnswerTokens: 1024,
  timeoutMs: 60_000,
} as const;

/** The settings named in the 503 an unconfigured `/ai/ask` answers. */
export const AI_KEY_SETTINGS = ['AI_PROVIDER_A_API_KEY', 'AI_PROVIDER_B_TOKEN'] as const;

export function defaultAiSettings(): AiSettings {
  return {
    a: { baseUrl: AI_DEFAULTS.baseUrlA, model: AI_DEFAULTS.modelA },
    b: { baseUrl: AI_DEFAULTS.baseUrlB, model: AI_DEFAULTS.modelB },
    preferred: 'a',
    ratePerMinute: AI_DEFAULTS.ratePerMinute,
    maxAnswerTokens: AI_DEFAULTS.maxAnswerTokens,
    timeoutMs: AI_DEFAULTS.timeoutMs,
  };
}

const httpUrl: Parser<string> = (text) => {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('is not an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('is not an http(s) URL');
  return url.toString().replace(/\/$/, '');
};

const modelName: Parser<string> = (text) => {
  const name = text.trim();
  if (!/^[\w.:/@-]{1,200}$/.test(name))
    throw new Error('is not a model name (letters, digits and . _ - : / @, at most 200)');
  return name;
};

const timeout: Parser<number> = (text) => {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new Error('is not a duration (use e.g. 30s, 2m)');
  }
  if (ms < 1000 || ms > 3600_000) throw new Error('must be from 1s to 1h');
  return ms;
};

const providerName: Parser<AiProviderName> = (text) => {
  const value = text.trim().toLowerCase();
  if (value !== 'a' && value !== 'b') throw new Error('is not a or b');
  return value;
};

export function readAiSettings(read: AiReader, secret: AiSecretReader, problems: string[]): AiSettings {
  const keyA = secret('AI_PROVIDER_A_API_KEY');
  const keyB = secret('AI_PROVIDER_B_TOKEN');
  const settings: AiSettings = {
    a: {
      ...(keyA !== undefined && { key: keyA }),
      baseUrl: read('AI_PROVIDER_A_BASE_URL', httpUrl, AI_DEFAULTS.baseUrlA),
      model: read('AI_PROVIDER_A_MODEL', modelName, AI_DEFAULTS.modelA),
    },
    b: {
      ...(keyB !== undefined && { key: keyB }),
      baseUrl: read('AI_PROVIDER_B_BASE_URL', httpUrl, AI_DEFAULTS.baseUrlB),
      model: read('AI_PROVIDER_B_MODEL', modelName, AI_DEFAULTS.modelB),
    },
    preferred: 'a',
    ratePerMinute: read('AI_RATE_PER_MINUTE', wholeNumber(1, 10_000), AI_DEFAULTS.ratePerMinute),
    maxAnswerTokens: read('AI_MAX_ANSWER_TOKENS', wholeNumber(64, 32_000), AI_DEFAULTS.maxAnswerTokens),
    timeoutMs: read('AI_TIMEOUT', timeout, AI_DEFAULTS.timeoutMs),
  };
  // A credential in a base URL would travel in every request and into error messages: the key settings hold
  // it. Named without the value, which holds it.
  for (const [name, which] of [
    ['AI_PROVIDER_A_BASE_URL', 'a'],
    ['AI_PROVIDER_B_BASE_URL', 'b'],
  ] as const) {
    const url = new URL(settings[which].baseUrl);
    if (!url.username && !url.password) continue;
    problems.push(
      `${name} carries a user or password; put the credential in ${which === 'a' ? AI_KEY_SETTINGS[0] : AI_KEY_SETTINGS[1]} instead`,
    );
    settings[which].baseUrl = which === 'a' ? AI_DEFAULTS.baseUrlA : AI_DEFAULTS.baseUrlB;
  }
  // Asking for a provider that has no key is a mistake to name at start, not a surprise at the first question.
  const chosen = read<AiProviderName | undefined>('AI_PROVIDER', providerName, undefined);
  if (chosen !== undefined) {
    settings.preferred = chosen;
    if (settings[chosen].key === undefined)
      problems.push(
        `AI_PROVIDER=${chosen} needs ${chosen === 'a' ? AI_KEY_SETTINGS[0] : AI_KEY_SETTINGS[1]}`,
      );
  }
  return settings;
}

/**
 * The provider that answers: the one AI_PROVIDER names, else A when its key is set, else B when its key is
 * set; none without a key.
 */
export function activeAiProvider(settings: AiSettings): AiProviderName | undefined {
  const has = (name: AiProviderName) => settings[name].key !== undefined;
  if (has(settings.preferred)) return settings.preferred;
  if (has('a')) return 'a';
  return has('b') ? 'b' : undefined;
}

export const AI_SETTINGS_DOC: readonly { name: string; default: string; meaning: string }[] = [
  {
    name: 'AI_PROVIDER_A_API_KEY',
    default: 'unset (provider A off)',
    meaning:
      'Key of provider A, an OpenAI-compatible Chat Completions API, for `POST /ai/ask` (docs/ai.md); sent as `Authorization: Bearer`. Also `AI_PROVIDER_A_API_KEY_FILE`. With neither provider key set, `/ai/ask` answers 503 `ai-unconfigured`.',
  },
  {
    name: 'AI_PROVIDER_A_BASE_URL',
    default: 'https://api.openai.com/v1',
    meaning:
      'Base URL of provider A (`<base>/chat/completions`): OpenAI, or any compatible server (Azure OpenAI, vLLM, Ollama, a gateway). No credentials in the URL.',
  },
  {
    name: 'AI_PROVIDER_A_MODEL',
    default: AI_DEFAULTS.modelA,
    meaning: 'The model provider A is asked for.',
  },
  {
    name: 'AI_PROVIDER_B_TOKEN',
    default: 'unset (provider B off)',
    meaning:
      "Key of provider B, Anthropic's Messages API, for `POST /ai/ask` (docs/ai.md). Also `AI_PROVIDER_B_TOKEN_FILE`.",
  },
  {
    name: 'AI_PROVIDER_B_BASE_URL',
    default: 'https://api.anthropic.com',
    meaning: 'Base URL of provider B (`<base>/v1/messages`). No credentials in the URL.',
  },
  {
    name: 'AI_PROVIDER_B_MODEL',
    default: AI_DEFAULTS.modelB,
    meaning: 'The model provider B is asked for.',
  },
  {
    name: 'AI_PROVIDER',
    default: 'unset (A when both keys are set)',
    meaning:
      'Which provider answers when both keys are set: `a` or `b`. With one key set, that provider answers; naming a provider whose key is unset stops start-up.',
  },
  {
    name: 'AI_RATE_PER_MINUTE',
    default: String(AI_DEFAULTS.ratePerMinute),
    meaning:
      'Questions one tenant may ask `/ai/ask` per minute, all its callers together (burst the same); one more is answered 429 with `Retry-After`.',
  },
  {
    name: 'AI_MAX_ANSWER_TOKENS',
    default: String(AI_DEFAULTS.maxAnswerTokens),
    meaning: 'The longest answer asked of the model, in tokens (64 to 32000).',
  },
  {
    name: 'AI_TIMEOUT',
    default: '1m',
    meaning:
      'How long one provider call may take, a streamed answer included (1s to 1h); past it the question is answered 502 `ai-provider-failed` (or, streaming, an `error` event).',
  },
];
