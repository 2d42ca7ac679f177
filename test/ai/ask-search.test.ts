// Retrieval through the search index (helper/search's src/search/), before the path store's own matching:
// a misspelt name finds its routes, and an index that fails leaves the path store to answer alone.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AskService } from '../../src/ai/ask.js';
import type { Retriever } from '../../src/ai/grounding.js';
import { PathStoreRetriever } from '../../src/ai/path-store-retriever.js';
import { searchMatcher } from '../../src/ai/search-retriever.js';
import type { Principal } from '../../src/auth/principal.js';
import { defaultAiSettings } from '../../src/config/ai-settings.js';
import { ProblemError } from '../../src/http/problems.js';
import { aiMetrics } from '../../src/metrics/ai-metrics.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createTenantGraph } from '../../src/graph/model.js';
import { routeNodes } from '../../src/paths/path-store.js';
import { aiEstate, ask, VIEWER } from '../helpers/ai-estate.js';
import { OpenAiStandIn } from '../helpers/openai-standin.js';
import type { TestService } from '../helpers/service.js';

const KEY = 'sk-standin-search-7e8f9a0b';
const openai = new OpenAiStandIn(KEY);
const viewer: Principal = { subject: 'token:v', role: 'viewer', anonymous: false, tenant: 'default' };

beforeAll(async () => {
  await openai.start();
  openai.reply = () => 'Answered.';
});
afterAll(async () => {
  await openai.stop();
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  openai.requests.length = 0;
});

describe('AI retrieval through the search index', () => {
  it('finds the routes of a misspelt name, where name matching alone finds nothing', async () => {
    service = await aiEstate({ AI_PROVIDER_A_API_KEY: KEY, AI_PROVIDER_A_BASE_URL: openai.baseUrl });
    const through = service.engine
      .tenant('default')!
      .paths.open()
      .filter((p) => routeNodes(p).some((n) => n.name === 'checkout-api'))
      .map((p) => p.id)
      .sort();
    expect(through.length).toBeGreaterThan(0);
    const answer = await ask(service, { question: 'Which routes go through chekout?' }, { token: VIEWER });
    expect(answer.status).toBe(200);
    expect(answer.json.context).toMatchObject({ selection: ['search'], sources: ['search', 'path-store'] });
    const data = JSON.parse(
      /<estate-data[^>]*>\n([\s\S]*)\n<\/estate-data>/.exec(openai.requests[0].body.messages[1].content)![1],
    );
    expect(data.paths.map((p: { id: string }) => p.id).sort()).toEqual(through);

    // The path store alone matches no name: it sends the riskiest paths instead.
    const alone = new PathStoreRetriever(service.engine);
    const grounding = await alone.retrieve({ tenant: 'default', principal: viewer, question: 'chekout?' });
    expect(grounding.selection).toEqual(['top']);
  });

  it('answers from the path store alone when the search index fails', async () => {
    service = await aiEstate({});
    const failing: Retriever = {
      name: 'search',
      retrieve: () => Promise.reject(new Error('search index: connection refused')),
    };
    const failures: string[] = [];
    const ask = new AskService({
      settings: defaultAiSettings(),
      provider: undefined,
      retrievers: [failing, new PathStoreRetriever(service.engine)],
      estate: service.engine,
      metrics: aiMetrics(createMetrics().registry),
      now: Date.now,
      onRetrieverFailure: (name) => failures.push(name),
    });
    const grounding = await ask.retrieve({
      tenant: 'default',
      principal: viewer,
      question: 'What reaches the stripe api key?',
    });
    expect(failures).toEqual(['search']);
    expect(grounding.sources).toEqual(['path-store']);
    expect(grounding.selection).toEqual(['terms']);
    expect(grounding.paths.length).toBeGreaterThan(0);
  });

  it('skips a term the index refuses, and fails the retriever when the index does not answer', async () => {
    const graph = createTenantGraph();
    const request = { tenant: 'default', principal: viewer, question: 'q' };
    const refusing = searchMatcher({
      search: async (_tenant, query) => {
        if (query === 'bad') throw new ProblemError('invalid-query', 'no word');
        return { hits: [{ kind: 'finding', id: 'CVE:0123456789abcdef', score: 1 }] };
      },
    });
    expect(await refusing(request, graph, ['bad', 'log4'])).toEqual({
      nodes: new Map([
        ['bad', new Set()],
        ['log4', new Set(['CVE:0123456789abcdef'])],
      ]),
      paths: new Map([
        ['bad', new Set()],
        ['log4', new Set()],
      ]),
      findings: ['CVE:0123456789abcdef'],
    });
    const down = searchMatcher({
      search: async () => {
        throw new ProblemError('unavailable', 'the search index (opensearch) did not answer');
      },
    });
    const failure = await down(request, graph, ['log4']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    // Not a problem the route would answer with: the ask service passes over it to the path store.
    expect(failure).not.toBeInstanceOf(ProblemError);
  });
});
