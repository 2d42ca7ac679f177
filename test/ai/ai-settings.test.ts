// The AI settings: defaults, which provider answers, and the values that stop start-up (naming the setting,
// never echoing a key).
import { describe, expect, it } from 'vitest';
import { activeAiProvider } from '../../src/config/ai-settings.js';
import { loadSettings } from '../../src/config/settings.js';
import { startupRefusal } from '../helpers/settings.js';

describe('AI settings', () => {
  it('has no provider by default, and documented defaults', () => {
    const ai = loadSettings({}).ai;
    expect(activeAiProvider(ai)).toBeUndefined();
    expect(ai).toMatchObject({
      a: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1-mini' },
      b: { baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-6' },
      ratePerMinute: 10,
      maxAnswerTokens: 1024,
      timeoutMs: 60_000,
    });
  });

  it('answers with the provider that has a key; A when both, unless AI_PROVIDER says b', () => {
    expect(activeAiProvider(loadSettings({ AI_PROVIDER_A_API_KEY: 'k' }).ai)).toBe('a');
    expect(activeAiProvider(loadSettings({ AI_PROVIDER_B_TOKEN: 't' }).ai)).toBe('b');
    expect(activeAiProvider(loadSettings({ AI_PROVIDER_A_API_KEY: 'k', AI_PROVIDER_B_TOKEN: 't' }).ai)).toBe(
      'a',
    );
    expect(
      activeAiProvider(
        loadSettings({ AI_PROVIDER_A_API_KEY: 'k', AI_PROVIDER_B_TOKEN: 't', AI_PROVIDER: 'b' }).ai,
      ),
    ).toBe('b');
  });

  it('stops start-up on a bad value, naming the setting and never the key', () => {
    expect(startupRefusal({ AI_PROVIDER: 'b', AI_PROVIDER_A_API_KEY: 'sk-secret-value' })).toMatch(
      /AI_PROVIDER=b needs AI_PROVIDER_B_TOKEN/,
    );
    expect(startupRefusal({ AI_PROVIDER: 'b', AI_PROVIDER_A_API_KEY: 'sk-secret-value' })).not.toContain(
      'sk-secret-value',
    );
    expect(startupRefusal({ AI_PROVIDER: 'c' })).toMatch(/AI_PROVIDER="c" is not a or b/);
    expect(startupRefusal({ AI_PROVIDER_A_BASE_URL: 'ftp://x' })).toMatch(/AI_PROVIDER_A_BASE_URL/);
    const withPassword = startupRefusal({ AI_PROVIDER_B_BASE_URL: 'https://user:pw-4c1d@proxy.example' });
    expect(withPassword).toMatch(/AI_PROVIDER_B_BASE_URL carries a user or password/);
    expect(withPassword).not.toContain('pw-4c1d');
    expect(startupRefusal({ AI_RATE_PER_MINUTE: '0' })).toMatch(/AI_RATE_PER_MINUTE/);
    expect(startupRefusal({ AI_MAX_ANSWER_TOKENS: '10' })).toMatch(/AI_MAX_ANSWER_TOKENS/);
    expect(startupRefusal({ AI_TIMEOUT: '500ms' })).toMatch(/AI_TIMEOUT/);
    expect(startupRefusal({ AI_PROVIDER_A_MODEL: 'gpt 4; rm -rf' })).toMatch(/AI_PROVIDER_A_MODEL/);
  });
});
