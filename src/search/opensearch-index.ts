// The search index in OpenSearch (OPENSEARCH_URL), through the official client: one index per tenant
// (`pathgate-search-<tenant>`), written with the bulk API, read with the search API. Words are cut as the
// embedded index cuts them (a pattern tokenizer on what is not a letter or digit, lowercased), and each
// query word must match a field by prefix or within its typo budget (query.ts), so both backends find the
// same documents. test/helpers/opensearch-standin.ts speaks the subset used here.
import { Client, errors } from '@opensearch-project/opensearch';
import { typoBudget } from './query.js';
import type { IndexPage, IndexQuery, SearchDoc, SearchIndex } from './search-index.js';

export const INDEX_PREFIX = 'pathgate-search-';
/** Documents per bulk request: well under OpenSearch's default 100 MB body at ~1 KB a document. */
const BULK_DOCS = 5_000;
const FIELDS = ['name^3', 'label^1.5', 'text'];

/** The index's analysis and mapping: text fields cut into words, the rest exact keywords. */
export const INDEX_BODY = {
  settings: {
    analysis: {
      tokenizer: { pathgate_words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' } },
      analyzer: { pathgate_words: { type: 'custom', tokenizer: 'pathgate_words', filter: ['lowercase'] } },
    },
  },
  mappings: {
    dynamic: 'strict',
    properties: {
      key: { type: 'keyword' },
      kind: { type: 'keyword' },
      id: { type: 'keyword' },
      apps: { type: 'keyword' },
      name: { type: 'text', analyzer: 'pathgate_words' },
      label: { type: 'text', analyzer: 'pathgate_words' },
      text: { type: 'text', analyzer: 'pathgate_words' },
    },
  },
} as const;

/** The URL as it may be logged: without a user or password in it. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

export class OpenSearchIndex implements SearchIndex {
  readonly backend = 'opensearch';
  private readonly client: Client;
  /** Indices known to exist with our mapping (created by this process, or found). */
  private readonly ready = new Set<string>();

  constructor(url: string, options: { requestTimeoutMs?: number } = {}) {
    // A user and password in the URL are the client's basic auth; they never reach a log or an error here.
    this.client = new Client({
      node: url,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      maxRetries: 2,
    });
  }

  private name(tenant: string): string {
    return `${INDEX_PREFIX}${tenant}`;
  }

  async replace(tenant: string, docs: readonly SearchDoc[]): Promise<void> {
    const index = this.name(tenant);
    this.ready.delete(index);
    await this.client.indices.delete({ index }, { ignore: [404] });
    await this.create(index);
    await this.bulk(
      index,
      docs.map((doc) => [{ index: { _id: doc.key } }, doc]),
    );
  }

  async upsert(tenant: string, docs: readonly SearchDoc[]): Promise<void> {
    const index = this.name(tenant);
    await this.ensure(index);
    await this.bulk(
      index,
      docs.map((doc) => [{ index: { _id: doc.key } }, doc]),
    );
  }

  async remove(tenant: string, keys: readonly string[]): Promise<void> {
    const index = this.name(tenant);
    await this.ensure(index);
    await this.bulk(
      index,
      keys.map((key) => [{ delete: { _id: key } }]),
    );
  }

  async query(tenant: string, query: IndexQuery): Promise<IndexPage> {
    const filter: object[] = [];
    if (query.kinds) filter.push({ terms: { kind: [...query.kinds] } });
    if (query.apps) filter.push({ terms: { apps: [...query.apps] } });
    // Every word must match some field: as a whole within its typo budget, or as the prefix of a word.
    const must = query.terms.map((term) => ({
      bool: {
        should: [
          {
            multi_match: {
              query: term,
              fields: FIELDS,
              ...(typoBudget(term) && { fuzziness: typoBudget(term) }),
            },
          },
          { multi_match: { query: term, fields: FIELDS, type: 'phrase_prefix' as const } },
        ],
        minimum_should_match: 1,
      },
    }));
    try {
      const response = await this.client.search({
        index: this.name(tenant),
        body: {
          query: { bool: { must, filter } },
          from: query.offset,
          // One more than the page: whether another page follows.
          size: query.limit + 1,
          sort: [{ _score: { order: 'desc' } }, { key: { order: 'asc' } }],
        },
      });
      const hits = response.body.hits.hits as { _score: number | null; _source: SearchDoc }[];
      return {
        hits: hits.slice(0, query.limit).map((h) => ({ doc: h._source, score: h._score ?? 0 })),
        more: hits.length > query.limit,
      };
    } catch (error) {
      // A tenant never indexed (nothing written yet) has no index: no hits.
      if (error instanceof errors.ResponseError && error.statusCode === 404) return { hits: [], more: false };
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async ensure(index: string): Promise<void> {
    if (this.ready.has(index)) return;
    const exists = await this.client.indices.exists({ index });
    if (exists.body) this.ready.add(index);
    else await this.create(index);
  }

  private async create(index: string): Promise<void> {
    await this.client.indices.create({ index, body: INDEX_BODY as Record<string, unknown> });
    this.ready.add(index);
  }

  /** Bulk requests of BULK_DOCS operations; searchable when it returns (refresh wait_for). */
  private async bulk(index: string, operations: readonly object[][]): Promise<void> {
    for (let at = 0; at < operations.length; at += BULK_DOCS) {
      const body = operations.slice(at, at + BULK_DOCS).flat();
      const response = await this.client.bulk({ index, body, refresh: 'wait_for' });
      if (!response.body.errors) continue;
      const failed = response.body.items
        .map((item) => Object.values(item)[0])
        .filter((result) => result?.error);
      if (failed.length)
        throw new Error(
          `search: OpenSearch refused ${failed.length} of ${body.length} bulk operations on ${index} (first: ${failed[0]?.error?.type ?? 'unknown'}: ${failed[0]?.error?.reason ?? ''})`,
        );
    }
  }
}
