// The default search index, in process: one MiniSearch per tenant (chosen over FlexSearch and Orama by
// bench/search.ts on the 100k estate, docs/perf.md). Every query word must match, by prefix or within its
// typo budget (query.ts); the name counts thrice a property.
import MiniSearch, { type SearchResult } from 'minisearch';
import { tokenize, typoBudget } from './query.js';
import type { IndexPage, IndexQuery, SearchDoc, SearchIndex } from './search-index.js';

const FIELDS = ['name', 'label', 'text'];
// Not `id`: MiniSearch names each result by its key there; the node or path id is the key after `<kind>:`.
const STORED = ['kind', 'name', 'label', 'text', 'apps'];
/** The name weighs most, then the label (`CVE`, `Database`), then properties and hops. */
const BOOST = { name: 3, label: 1.5, text: 1 };

function createMiniSearch(): MiniSearch<SearchDoc> {
  return new MiniSearch<SearchDoc>({
    idField: 'key',
    fields: FIELDS,
    storeFields: STORED,
    tokenize,
    // tokenize lowercases already
    processTerm: (term) => term,
  });
}

export class EmbeddedSearchIndex implements SearchIndex {
  readonly backend = 'embedded';
  private readonly tenants = new Map<string, MiniSearch<SearchDoc>>();

  private of(tenant: string): MiniSearch<SearchDoc> {
    let index = this.tenants.get(tenant);
    if (!index) this.tenants.set(tenant, (index = createMiniSearch()));
    return index;
  }

  replace(tenant: string, docs: readonly SearchDoc[]): Promise<void> {
    const index = createMiniSearch();
    index.addAll(docs);
    this.tenants.set(tenant, index);
    return Promise.resolve();
  }

  upsert(tenant: string, docs: readonly SearchDoc[]): Promise<void> {
    const index = this.of(tenant);
    for (const doc of docs) {
      if (index.has(doc.key)) index.replace(doc);
      else index.add(doc);
    }
    return Promise.resolve();
  }

  remove(tenant: string, keys: readonly string[]): Promise<void> {
    const index = this.tenants.get(tenant);
    if (index) for (const key of keys) if (index.has(key)) index.discard(key);
    return Promise.resolve();
  }

  query(tenant: string, query: IndexQuery): Promise<IndexPage> {
    const index = this.tenants.get(tenant);
    if (!index) return Promise.resolve({ hits: [], more: false });
    const kinds = query.kinds && new Set<string>(query.kinds);
    const apps = query.apps && new Set(query.apps);
    const results = index.search(query.terms.join(' '), {
      tokenize: (text) => text.split(' '),
      prefix: true,
      fuzzy: (term) => typoBudget(term),
      combineWith: 'AND',
      boost: BOOST,
      filter: (result: SearchResult) =>
        (!kinds || kinds.has(result.kind as string)) &&
        (!apps || (result.apps as string[]).some((app) => apps.has(app))),
    });
    const end = query.offset + query.limit;
    return Promise.resolve({
      hits: results.slice(query.offset, end).map((r) => ({
        doc: {
          key: r.id as string,
          kind: r.kind as SearchDoc['kind'],
          id: (r.id as string).slice((r.kind as string).length + 1),
          name: r.name as string,
          label: r.label as string,
          text: r.text as string,
          apps: r.apps as string[],
        },
        score: r.score,
      })),
      more: results.length > end,
    });
  }

  /** Documents the tenant's index holds (bench/search.ts, tests). */
  size(tenant: string): number {
    return this.tenants.get(tenant)?.documentCount ?? 0;
  }

  close(): Promise<void> {
    this.tenants.clear();
    return Promise.resolve();
  }
}
