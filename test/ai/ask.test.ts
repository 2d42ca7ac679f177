// POST /ai/ask on the demo estate, answered by each provider's stand-in through its official SDK: the
// citations resolve, the prompt holds the caller's tenant's route and nothing of another tenant, a fabricated
// or foreign citation is taken out and marked, an uncited claim is marked, and the question is audited by
// hash with its citations and tokens.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_PROMPT } from '../../src/ai/prompt.js';
import { nodeId } from '../../src/graph/ids.js';
import { AnthropicStandIn, type RecordedMessagesRequest } from '../helpers/anthropic-standin.js';
import { OpenAiStandIn, type RecordedChatRequest } from '../helpers/openai-standin.js';
import {
  aiEstate,
  ask,
  pathThrough,
  RIVAL,
  RIVAL_BILLING,
  RIVAL_NAMES,
  RIVAL_PAYROLL,
  VIEWER,
} from '../helpers/ai-estate.js';
import type { TestService } from '../helpers/service.js';

const KEY_A = 'sk-standin-provider-a-0123456789';
const KEY_B = 'sk-ant-standin-provider-b-0123456789';
const openai = new OpenAiStandIn(KEY_A);
const anthropic = new AnthropicStandIn(KEY_B);
const envA = () => ({
  AI_PROVIDER_A_API_KEY: KEY_A,
  AI_PROVIDER_A_BASE_URL: openai.baseUrl,
  AI_PROVIDER_A_MODEL: 'standin-gpt',
});
const envB = () => ({
  AI_PROVIDER_B_TOKEN: KEY_B,
  AI_PROVIDER_B_BASE_URL: anthropic.baseUrl,
  AI_PROVIDER_B_MODEL: 'standin-claude',
});

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

const userOfA = (r: RecordedChatRequest) => r.body.messages.find((m) => m.role === 'user')!.content;
const userOfB = (r: RecordedMessagesRequest) => r.body.messages[0].content as string;

const STRIPE_QUESTION = 'Which routes reach the stripe api key, and what closes them?';

describe('POST /ai/ask, provider A (OpenAI-compatible chat completions)', () => {
  it('answers from the demo estate with citations that resolve, grounded in the tenant route only', async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'stripe-api-key');
    const alb = nodeId('LoadBalancer', 'shop-public-alb');
    openai.reply = () =>
      `The internet-facing shop-public-alb reaches shop/stripe-api-key through checkout-api [path:${route.id}].\n` +
      `The load balancer is the route's start [node:${alb}].`;
    const answer = await ask(service, { question: STRIPE_QUESTION }, { token: VIEWER });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      provider: 'a',
      model: 'standin-gpt',
      citations: [
        { kind: 'path', id: route.id },
        { kind: 'node', id: alb },
      ],
      unresolved: [],
      unverified: false,
      warnings: [],
    });
    expect(answer.json.answer).toContain(`[path:${route.id}]`);
    expect(answer.json.claims.map((c: { verified: boolean }) => c.verified)).toEqual([true, true]);
    expect(answer.json.usage.inputTokens).toBeGreaterThan(0);
    expect(answer.json.usage.outputTokens).toBeGreaterThan(0);

    // What reached the provider: the fixed system prompt, then the question and this tenant's route as data.
    expect(openai.requests).toHaveLength(1);
    const sent = openai.requests[0];
    expect(sent.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(sent.body.model).toBe('standin-gpt');
    expect(sent.body.max_completion_tokens).toBe(1024);
    expect(sent.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent.body.messages[0].content).toBe(SYSTEM_PROMPT);
    const user = userOfA(sent);
    for (const name of ['shop-public-alb', 'checkout-api', 'shop/stripe-api-key', route.id])
      expect(user).toContain(name);
    for (const name of RIVAL_NAMES) expect(user).not.toContain(name);
  });

  it("a rival tenant's viewer is answered from its own estate, never the default tenant's", async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'zanzibar-payroll-vault', 'rival');
    openai.reply = () => `quokka-edge-gateway reaches zanzibar-payroll-vault [path:${route.id}].`;
    const answer = await ask(service, { question: 'What reaches the payroll vault?' }, { token: RIVAL });
    expect(answer.status).toBe(200);
    expect(answer.json.citations).toEqual([{ kind: 'path', id: route.id }]);
    const user = userOfA(openai.requests[0]);
    for (const name of RIVAL_NAMES) expect(user).toContain(name);
    for (const name of ['shop-public-alb', 'checkout-api', 'stripe', 'orders-postgres', 'jump-1'])
      expect(user).not.toContain(name);
  });

  it("an apps-bound viewer is sent only its applications' paths, and may cite no other", async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'zanzibar-payroll-vault', 'rival');
    openai.reply = () => `quokka-edge-gateway reaches zanzibar-payroll-vault [path:${route.id}].`;
    const question = { question: 'What reaches the payroll vault?' };
    const payroll = await ask(service, question, { token: RIVAL_PAYROLL });
    expect(payroll.json.citations).toEqual([{ kind: 'path', id: route.id }]);
    expect(userOfA(openai.requests[0])).toContain('zanzibar-payroll-vault');
    const billing = await ask(service, question, { token: RIVAL_BILLING });
    expect(billing.status).toBe(200);
    expect(billing.json.context.paths).toBe(0);
    for (const name of RIVAL_NAMES) expect(userOfA(openai.requests[1])).not.toContain(name);
    expect(billing.json.citations).toEqual([]);
    expect(billing.json.unresolved).toEqual([{ kind: 'path', id: route.id }]);
  });

  it('takes a fabricated citation, and a real one of another tenant, out of the answer and marks it', async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'stripe-api-key');
    const foreign = pathThrough(service, 'zanzibar-payroll-vault', 'rival');
    openai.reply = () =>
      `checkout-api reaches the stripe key [path:${route.id}].\n` +
      `The orders database is public [path:ap-0000000000000000, node:Database:0123456789abcdef].\n` +
      `The payroll vault is also exposed [path:${foreign.id}].`;
    const answer = await ask(service, { question: STRIPE_QUESTION }, { token: VIEWER });
    expect(answer.status).toBe(200);
    expect(answer.json.citations).toEqual([{ kind: 'path', id: route.id }]);
    expect(answer.json.unresolved).toEqual([
      { kind: 'path', id: 'ap-0000000000000000' },
      { kind: 'node', id: 'Database:0123456789abcdef' },
      { kind: 'path', id: foreign.id },
    ]);
    expect(answer.json.answer).not.toContain('ap-0000000000000000');
    expect(answer.json.answer).not.toContain(foreign.id);
    expect(answer.json.answer.match(/\[unresolved citation\]/g)).toHaveLength(2);
    expect(answer.json.unverified).toBe(true);
    expect(answer.json.claims.map((c: { verified: boolean }) => c.verified)).toEqual([true, false, false]);
    expect(answer.json.warnings.map((w: { code: string }) => w.code)).toEqual([
      'unresolved-citation',
      'unresolved-citation',
      'unresolved-citation',
      'uncited-claim',
    ]);
  });

  it('marks a claim that carries no citation as unverified', async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'stripe-api-key');
    openai.reply = () =>
      `Two things stand out:\n- checkout-api reaches the stripe key [path:${route.id}].\n- Everything else in the estate is safe.`;
    const answer = await ask(service, { question: STRIPE_QUESTION }, { token: VIEWER });
    expect(answer.json.unverified).toBe(true);
    expect(answer.json.claims).toEqual([
      {
        text: `checkout-api reaches the stripe key [path:${route.id}].`,
        citations: [{ kind: 'path', id: route.id }],
        verified: true,
      },
      { text: 'Everything else in the estate is safe.', citations: [], verified: false },
    ]);
    expect(answer.json.warnings).toEqual([
      { code: 'uncited-claim', detail: expect.stringContaining('1 of 2 statements') },
    ]);
  });

  it('sends the asked pathId whole, with its hops and evidence, and refuses an unknown one with 404', async () => {
    service = await aiEstate(envA());
    const route = pathThrough(service, 'stripe-api-key');
    openai.reply = () => `It starts at the load balancer [path:${route.id}].`;
    const answer = await ask(
      service,
      { question: 'Explain this route.', pathId: route.id },
      { token: VIEWER },
    );
    expect(answer.status).toBe(200);
    const data = JSON.parse(
      /<estate-data[^>]*>\n([\s\S]*)\n<\/estate-data>/.exec(userOfA(openai.requests[0]))![1],
    );
    const focus = data.paths.find((p: { id: string }) => p.id === route.id);
    expect(focus).toMatchObject({
      focus: true,
      route: expect.arrayContaining([nodeId('Secret', 'shop/stripe-api-key')]),
    });
    expect(focus.hops.length).toBeGreaterThan(0);
    expect(focus.hops.some((h: { evidence?: unknown[] }) => h.evidence?.length)).toBe(true);

    const unknown = await ask(
      service,
      { question: 'Explain.', pathId: 'ap-0123456789abcdef' },
      { token: VIEWER },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0]).toMatchObject({ pointer: '/pathId', value: 'ap-0123456789abcdef' });
    // Another tenant's path is as unknown as one that does not exist.
    const foreign = pathThrough(service, 'zanzibar-payroll-vault', 'rival');
    expect((await ask(service, { question: 'Explain.', pathId: foreign.id }, { token: VIEWER })).status).toBe(
      404,
    );
    expect(openai.requests).toHaveLength(1);
  });

  it('audits the question by hash, with its citations and tokens, and never the question', async () => {
    const dir = path.join(
      await import('node:os').then((os) => os.tmpdir()),
      `ai-audit-${process.pid}-${Date.now()}`,
    );
    const file = path.join(dir, 'audit.log');
    service = await aiEstate({ ...envA(), AUDIT_LOG_PATH: file });
    const route = pathThrough(service, 'stripe-api-key');
    openai.reply = () => `checkout-api reaches it [path:${route.id}]. Also [path:ap-0000000000000000].`;
    const question = 'Which routes reach the stripe api key? (audit-marker-7f3a)';
    expect((await ask(service, { question }, { token: VIEWER })).status).toBe(200);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('audit-marker-7f3a');
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const asked = records.find((r) => r.event === 'ai.ask');
    expect(asked).toMatchObject({
      subject: expect.stringMatching(/^token:/),
      tenant: 'default',
      fields: {
        path: '/ai/ask',
        question_sha256: createHash('sha256').update(question).digest('hex'),
        provider: 'a',
        model: 'standin-gpt',
        outcome: 'unverified',
        citations: [`path:${route.id}`],
        unresolved: ['path:ap-0000000000000000'],
        tokens: { input: expect.any(Number), output: expect.any(Number) },
      },
    });
    expect(asked.fields.tokens.input).toBeGreaterThan(0);
    // The cited path was shown to the caller: a view, as any read.
    expect(records.find((r) => r.event === 'view.attack_paths')?.fields.path_ids).toEqual([route.id]);
  });
});

describe('POST /ai/ask, provider B (Anthropic messages)', () => {
  it('answers from the demo estate with citations that resolve, grounded in the tenant route only', async () => {
    service = await aiEstate(envB());
    const route = pathThrough(service, 'cluster-admin');
    const sa = nodeId('ServiceAccount', 'shop/shop/reviews-sa');
    anthropic.reply = () =>
      `The storefront ingress reaches cluster-admin through the reviews pods [path:${route.id}]. ` +
      `Their service account may create pods [node:${sa}].`;
    const answer = await ask(
      service,
      { question: 'How does anyone reach cluster-admin?' },
      { token: VIEWER },
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      provider: 'b',
      model: 'standin-claude',
      citations: [
        { kind: 'path', id: route.id },
        { kind: 'node', id: sa },
      ],
      unverified: false,
    });
    expect(anthropic.requests).toHaveLength(1);
    const sent = anthropic.requests[0];
    expect(sent.body.system).toBe(SYSTEM_PROMPT);
    expect(sent.body.max_tokens).toBe(1024);
    expect(sent.body.messages.map((m) => m.role)).toEqual(['user']);
    const user = userOfB(sent);
    for (const name of ['shop/shop/reviews', 'cluster-admin', route.id]) expect(user).toContain(name);
    for (const name of RIVAL_NAMES) expect(user).not.toContain(name);
    expect(openai.requests).toHaveLength(0);
  });

  it('cites a finding of the route by its node id (a CVE named in the question)', async () => {
    service = await aiEstate(envB());
    anthropic.reply = (request) => {
      const data = JSON.parse(/<estate-data[^>]*>\n([\s\S]*)\n<\/estate-data>/.exec(userOfB(request))![1]);
      const finding = data.findings.find((f: { label: string }) => f.label === 'CVE');
      return `checkout-api runs an image with ${finding.name} [finding:${finding.id}].`;
    };
    const question = 'Which routes go through checkout-api and its CVEs?';
    const answer = await ask(service, { question }, { token: VIEWER });
    expect(answer.status).toBe(200);
    expect(answer.json.citations).toEqual([
      { kind: 'finding', id: expect.stringMatching(/^CVE:[0-9a-f]{16}$/) },
    ]);
    expect(answer.json.unverified).toBe(false);
  });
});

describe('which provider answers', () => {
  it('is A when both keys are set, B when AI_PROVIDER=b', async () => {
    openai.reply = () => 'From A.';
    anthropic.reply = () => 'From B.';
    service = await aiEstate({ ...envA(), ...envB() });
    expect((await ask(service, { question: 'Anything?' }, { token: VIEWER })).json.provider).toBe('a');
    await service.dispose();
    service = await aiEstate({ ...envA(), ...envB(), AI_PROVIDER: 'b' });
    expect((await ask(service, { question: 'Anything?' }, { token: VIEWER })).json.provider).toBe('b');
    expect(openai.requests).toHaveLength(1);
    expect(anthropic.requests).toHaveLength(1);
  });
});
