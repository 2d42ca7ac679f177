// The narrow interface between search and where its documents live: in process (embedded-index.ts,
// MiniSearch) or OpenSearch (opensearch-index.ts, OPENSEARCH_URL). One index per tenant; a tenant's
// documents never answer another tenant's query. Everything above it (what a document holds, when it is
// written, who may see a hit) is the search service's (search-service.ts), whichever backend holds them.

/** What a hit is: a graph node, a finding (CVE, code weakness, misconfiguration check) or an attack path. */
export const SEARCH_KINDS = ['node', 'finding', 'path'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** One searchable document. `key` is unique in its tenant: `<kind>:<id>`. */
export interface SearchDoc {
  key: string;
  kind: SearchKind;
  /** the node id or path id the hit names */
  id: string;
  /** the node's name; a path's `start → target` */
  name: string;
  /** the node label; `AttackPath` for a path */
  label: string;
  /** key properties (a node), or the hops and the findings they stand on (a path): matched, shown in snippets */
  text: string;
  /** the applications the document belongs to (an app-scoped caller sees only these); empty: none */
  apps: string[];
}

/** A query as the index runs it: the words already checked (query.ts), paging by offset. */
export interface IndexQuery {
  /** the caller's words, at least one (query.ts `searchTerms`) */
  terms: string[];
  /** only these kinds (all when undefined) */
  kinds?: readonly SearchKind[];
  /** only documents of one of these applications (an app-scoped caller); undefined: no restriction */
  apps?: readonly string[];
  offset: number;
  limit: number;
}

export interface IndexHit {
  doc: SearchDoc;
  score: number;
}

export interface IndexPage {
  hits: IndexHit[];
  /** true when more matches follow `offset + limit` */
  more: boolean;
}

export interface SearchIndex {
  /** `embedded` or `opensearch` (logged at start, and in the search metrics' labels) */
  readonly backend: 'embedded' | 'opensearch';
  /** Replaces everything the tenant's index holds with `docs` (a rebuild). */
  replace(tenant: string, docs: readonly SearchDoc[]): Promise<void>;
  /** Adds documents, or replaces those with the same key. */
  upsert(tenant: string, docs: readonly SearchDoc[]): Promise<void>;
  /** Removes documents by key; unknown keys are ignored. */
  remove(tenant: string, keys: readonly string[]): Promise<void>;
  /** The best matches, best first: every term matches (by prefix, or within a typo or two). */
  query(tenant: string, query: IndexQuery): Promise<IndexPage>;
  close(): Promise<void>;
}
