// Streamed answers (`stream: true` or `Accept: text/event-stream`) from each provider's stand-in, which
// streams as the real APIs do (chat completion chunks; Anthropic's message events): `meta` first, the text
// in `delta`s, then the checked `answer`, the same object a JSON answer carries.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aiEstate, ask, events, pathThrough, VIEWER } from '../helpers/ai-estate.js';
import { AnthropicStandIn } from '../helpers/anthropic-standin.js';
import { OpenAiStandIn } from '../helpers/openai-standin.js';
import type { TestService } from '../helpers/service.js';

const KEY_A = 'sk-standin-stream-a-55aa66bb';
const KEY_B = 'sk-ant-standin-stream-b-77cc88dd';
const openai = new OpenAiStandIn(KEY_A);
const anthropic = new AnthropicStandIn(KEY_B);

beforeAll(async () => {
  await openai.start();
  await anthropic.start();
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
});

const providers = [
  {
    name: 'a',
    standin: openai,
    env: () => ({ AI_PROVIDER_A_API_KEY: KEY_A, AI_PROVIDER_A_BASE_URL: openai.baseUrl }),
  },
  {
    name: 'b',
    standin: anthropic,
    env: () => ({ AI_PROVIDER_B_TOKEN: KEY_B, AI_PROVIDER_B_BASE_URL: anthropic.baseUrl }),
  },
] as const;

describe.each(providers)('streaming from provider $name', ({ name, standin, env }) => {
  it('sends meta, the text in deltas, then the checked answer', async () => {
    service = await aiEstate(env());
    const route = pathThrough(service, 'stripe-api-key');
    const script =
      `The shop-public-alb reaches shop/stripe-api-key through checkout-api [path:${route.id}]. ` +
      `Rotate the key and cut the mount [path:ap-0000000000000000].`;
    standin.reply = () => script;
    const answer = await ask(
      service,
      { question: 'What reaches the stripe key?', stream: true },
      { token: VIEWER },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/event-stream');
    const stream = events(answer.body);
    expect(stream[0]).toMatchObject({ event: 'meta', data: { provider: name } });
    expect(stream[0].data.context.paths).toBeGreaterThan(0);
    const deltas = stream.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => e.data.text).join('')).toBe(script);
    const last = stream[stream.length - 1];
    expect(last.event).toBe('answer');
    expect(last.data).toMatchObject({
      provider: name,
      citations: [{ kind: 'path', id: route.id }],
      unresolved: [{ kind: 'path', id: 'ap-0000000000000000' }],
      unverified: true,
    });
    expect(last.data.usage.inputTokens).toBeGreaterThan(0);
    expect(last.data.usage.outputTokens).toBeGreaterThan(0);
    expect(standin.requests[0].body.stream).toBe(true);
  });

  it('streams for Accept: text/event-stream too, and answers JSON when stream is false', async () => {
    service = await aiEstate(env());
    standin.reply = () => 'Short answer.';
    const accepted = await ask(
      service,
      { question: 'What reaches the stripe key?' },
      { token: VIEWER, accept: 'text/event-stream' },
    );
    expect(accepted.headers['content-type']).toContain('text/event-stream');
    expect(events(accepted.body).map((e) => e.event)).toEqual(['meta', 'delta', 'answer']);
    const plain = await ask(
      service,
      { question: 'What reaches the stripe key?', stream: false },
      { token: VIEWER, accept: 'text/event-stream' },
    );
    expect(plain.headers['content-type']).toContain('application/json');
    expect(plain.json.answer).toBe('Short answer.');
    expect(standin.requests.map((r) => r.body.stream ?? false)).toEqual([true, false]);
  });
});

it('asks the OpenAI-compatible provider for the usage chunk when streaming', async () => {
  service = await aiEstate(providers[0].env());
  openai.reply = () => 'Fine.';
  await ask(service, { question: 'Anything?', stream: true }, { token: VIEWER });
  expect(openai.requests[0].body.stream_options).toEqual({ include_usage: true });
});
