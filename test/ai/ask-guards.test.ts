// What /ai/ask refuses before any provider is asked: no key (503 naming the settings), anonymous callers
// (403 and the metric), a tenant over its rate (429, other tenants unaffected), a bad body (400 naming the
// field); and what a failing provider gives (502 naming the provider, never its key, in the answer or the log).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { problemTypeUri } from '../../src/http/problems.js';
import { aiEstate, ask, RIVAL, VIEWER } from '../helpers/ai-estate.js';
import { AnthropicStandIn } from '../helpers/anthropic-standin.js';
import { OpenAiStandIn } from '../helpers/openai-standin.js';
import type { TestService } from '../helpers/service.js';
import { makeService } from '../helpers/service.js';

const KEY_A = 'sk-standin-guard-key-a-4f1e2d3c';
const KEY_B = 'sk-ant-standin-guard-key-b-9a8b7c';
const openai = new OpenAiStandIn(KEY_A);
const anthropic = new AnthropicStandIn(KEY_B);

beforeAll(async () => {
  await openai.start();
  await anthropic.start();
  openai.reply = () => 'Nothing here is cited.';
  anthropic.reply = () => 'Nothing here is cited.';
});
afterAll(async () => {
  await openai.stop();
  await anthropic.stop();
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  openai.requests.length = 0;
  anthropic.requests.length = 0;
  openai.failWith = undefined;
  anthropic.failWith = undefined;
});

const envA = () => ({ AI_PROVIDER_A_API_KEY: KEY_A, AI_PROVIDER_A_BASE_URL: openai.baseUrl });
const envB = () => ({ AI_PROVIDER_B_TOKEN: KEY_B, AI_PROVIDER_B_BASE_URL: anthropic.baseUrl });

async function metricsText(s: TestService): Promise<string> {
  return (await s.apiApp.inject({ method: 'GET', url: '/metrics' })).body;
}

describe('/ai/ask refusals', () => {
  it('answers 503 naming both key settings when no provider key is set', async () => {
    service = await aiEstate({});
    const answer = await ask(service, { question: 'What reaches the ledger?' }, { token: VIEWER });
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(answer.headers['retry-after']).toBeUndefined();
    expect(answer.json).toMatchObject({
      type: problemTypeUri('ai-unconfigured'),
      status: 503,
      settings: ['AI_PROVIDER_A_API_KEY', 'AI_PROVIDER_B_TOKEN'],
    });
    expect(answer.json.detail).toContain('AI_PROVIDER_A_API_KEY');
    expect(answer.json.detail).toContain('AI_PROVIDER_B_TOKEN');
    expect(await metricsText(service)).toContain(
      'service_ai_answers_total{provider="none",outcome="unconfigured"} 1',
    );
  });

  it('refuses anonymous callers (403, anonymous_ai) and callers without a credential (401), asking no provider', async () => {
    service = await aiEstate(envA());
    const anonymous = await ask(service, { question: 'What reaches the ledger?' });
    expect(anonymous.status).toBe(403);
    expect(anonymous.json.reason).toBe('anonymous_ai');
    expect(await metricsText(service)).toContain(
      'service_auth_denied_total{surface="api",reason="anonymous_ai"} 1',
    );
    const wrong = await ask(
      service,
      { question: 'What reaches the ledger?' },
      { token: 'not-a-token-at-all-00' },
    );
    expect(wrong.status).toBe(401);
    expect(openai.requests).toHaveLength(0);
    await service.dispose();
    // Without anonymous read, a missing credential is a 401.
    service = await makeService({ API_TOKENS: `${VIEWER}:viewer`, ...envA() });
    const missing = await ask(service, { question: 'What reaches the ledger?' });
    expect(missing.status).toBe(401);
    expect(missing.json.reason).toBe('missing');
    expect(openai.requests).toHaveLength(0);
  });

  it("limits each tenant to AI_RATE_PER_MINUTE questions (429 with Retry-After), apart from other tenants'", async () => {
    service = await aiEstate({ ...envA(), AI_RATE_PER_MINUTE: '2' });
    const question = { question: 'What reaches the ledger?' };
    expect((await ask(service, question, { token: VIEWER })).status).toBe(200);
    expect((await ask(service, question, { token: VIEWER })).status).toBe(200);
    const third = await ask(service, question, { token: VIEWER });
    expect(third.status).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(third.json.detail).toContain('AI_RATE_PER_MINUTE');
    // Another tenant has its own budget.
    expect((await ask(service, question, { token: RIVAL })).status).toBe(200);
    expect(openai.requests).toHaveLength(3);
    expect(await metricsText(service)).toContain(
      'service_ai_answers_total{provider="a",outcome="rate_limited"} 1',
    );
  });

  it('refuses a body that is not a question with 400 naming the field, asking no provider', async () => {
    service = await aiEstate(envA());
    const cases: [unknown, string][] = [
      [{}, '/question'],
      [{ question: '   ' }, '/question'],
      [{ question: 'x'.repeat(4001) }, '/question'],
      [{ question: 'ok', pathId: 'nope' }, '/pathId'],
      [{ question: 'ok', stream: 'yes' }, '/stream'],
      [{ question: 'ok', prompt: 'system: obey' }, '/prompt'],
      [['question'], '/'],
    ];
    for (const [body, pointer] of cases) {
      const answer = await ask(service, body, { token: VIEWER });
      expect(answer.status, JSON.stringify(body).slice(0, 50)).toBe(400);
      expect(answer.json.errors[0].pointer).toBe(pointer);
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('answers 502 naming the provider and its status when it fails, with no key in the answer or the log', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    for (const [env, standin, key] of [
      [envA(), openai, KEY_A],
      [envB(), anthropic, KEY_B],
    ] as const) {
      standin.failWith = 500;
      service = await aiEstate(env, { logger });
      const answer = await ask(service, { question: 'What reaches the ledger?' }, { token: VIEWER });
      expect(answer.status).toBe(502);
      expect(answer.json).toMatchObject({
        type: problemTypeUri('ai-provider-failed'),
        provider: standin === openai ? 'a' : 'b',
        providerStatus: 500,
      });
      expect(answer.body).not.toContain(key);
      // Retried once (maxRetries 1), then given up.
      expect(standin.requests).toHaveLength(2);
      const streamed = await ask(
        service,
        { question: 'What reaches the ledger?', stream: true },
        { token: VIEWER },
      );
      expect(streamed.status).toBe(200);
      expect(streamed.body).toContain('event: error');
      expect(streamed.body).toContain('ai-provider-failed');
      expect(streamed.body).not.toContain(key);
      await service.dispose();
      service = undefined;
    }
    const log = lines.join('');
    expect(log).toContain('ai: the provider failed');
    expect(log).not.toContain(KEY_A);
    expect(log).not.toContain(KEY_B);
  });
});
