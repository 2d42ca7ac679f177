// Secrets never reach a prompt: a credential in the question, and one in a node's name (which ingest keeps,
// names being identifiers), are scrubbed with ingest's table before anything is sent to the provider.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { nodeId } from '../../src/graph/ids.js';
import { aiEstate, ask, VIEWER } from '../helpers/ai-estate.js';
import { AnthropicStandIn } from '../helpers/anthropic-standin.js';
import type { TestService } from '../helpers/service.js';

const KEY = 'sk-ant-standin-scrub-3e4f5a6b';
const anthropic = new AnthropicStandIn(KEY);
const GITHUB_TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

beforeAll(async () => {
  await anthropic.start();
});
afterAll(async () => {
  await anthropic.stop();
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  anthropic.requests.length = 0;
});

it('scrubs credentials from the question and from node names before the prompt leaves', async () => {
  service = await aiEstate({ AI_PROVIDER_B_TOKEN: KEY, AI_PROVIDER_B_BASE_URL: anthropic.baseUrl });
  const edge = `ledger-edge-${GITHUB_TOKEN}`;
  const accepted = await service.ingest({
    source: 'inventory',
    kind: 'asset',
    observed_at: '2026-11-01T09:00:00Z',
    nodes: [
      {
        id: nodeId('LoadBalancer', edge),
        label: 'LoadBalancer',
        name: edge,
        properties: { internet_exposed: true },
      },
      {
        id: nodeId('Database', 'ledger-db'),
        label: 'Database',
        name: 'ledger-db',
        properties: { crown_jewel: true, crown_jewel_basis: 'classified:test:ledger' },
      },
    ],
    edges: [{ type: 'CONNECTS_TO', from: nodeId('LoadBalancer', edge), to: nodeId('Database', 'ledger-db') }],
  });
  expect(accepted.status).toBe(202);
  await service.settle();
  anthropic.reply = () => 'The edge reaches the ledger.';
  const answer = await ask(
    service,
    { question: `Which routes reach the ledger? My key is ${AWS_KEY} and db password=hunter2hunter2` },
    { token: VIEWER },
  );
  expect(answer.status).toBe(200);
  const user = anthropic.requests[0].body.messages[0].content as string;
  expect(user).toContain('ledger-db');
  expect(user).toContain('ledger-edge-***redacted:github-token***');
  expect(user).toContain('***redacted:aws-access-key***');
  expect(user).toContain('password=***redacted:secret-assignment***');
  for (const secret of [GITHUB_TOKEN, AWS_KEY, 'hunter2hunter2']) expect(user).not.toContain(secret);
  expect(answer.json.context.redactions).toBe(3);
});
