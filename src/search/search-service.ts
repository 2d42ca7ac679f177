// Search over each tenant's nodes, findings and attack paths: the API other modules call (GraphQL
// `search`, the MCP server's `search` tool, AI retrieval) and the keeping of the index.
//
// The index follows the graph without costing the writer anything: after each analyzer pass it takes the
// node changes that pass consumed (the writer's GraphChanges, read just before the analyzer's sync takes
// them: runPass returns them) and the path store's open paths, and writes only what changed. A path's
// document is rebuilt when its route changes or when a node it read changed (its hops, their images,
// repositories and findings). The in-process index is built by the first query of a tenant (a bulk ingest
// pays nothing for search until someone searches), and built again by the first query after a pass that
// saw `everything` changed (a restore from snapshot, a bulk ingest) or failed; OpenSearch is rebuilt by
// such a pass itself.
//
// Who sees a hit is decided twice: the index filters by tenant (an index per tenant) and by the caller's
// applications, and every hit is checked against the live graph and path store before it is returned (a
// node since removed, a path since resolved, an application since changed is never shown).
import { appsOfNode } from '../auth/scope.js';
import type { TakenChanges } from '../graph/model.js';
import type { TenantState } from '../engine/tenant.js';
import { ProblemError } from '../http/problems.js';
import type { Log } from '../log/logger.js';
import { routeNodes, type PathRecord } from '../paths/path-store.js';
import { docKey, nodeDoc, pathDoc, type FindingsCache } from './documents.js';
import { cursorAt, offsetAfter, pageSize, searchKinds, searchTerms, snippet } from './query.js';
import type { SearchDoc, SearchIndex, SearchKind } from './search-index.js';

export interface SearchOptions {
  /** page size, 1 to 100 (default 20) */
  first?: number | null;
  /** `endCursor` of the previous page */
  after?: string | null;
  /** only these kinds (`node`, `finding`, `path`; any case); all when absent */
  kinds?: readonly string[] | null;
  /** the caller's applications when it is app-scoped (Principal.apps); absent: the whole tenant */
  apps?: readonly string[];
}

export interface SearchHit {
  kind: SearchKind;
  /** the node id, or the path id (GraphQL attackPath(id)) */
  id: string;
  name: string;
  label: string;
  /** relevance, higher is better (comparable within one answer only) */
  score: number;
  /** the document's text around the first matching word */
  snippet: string;
  /** pass as `after` to continue after this hit */
  cursor: string;
}

export interface SearchPage {
  hits: SearchHit[];
  endCursor: string | null;
  hasNextPage: boolean;
}

interface IndexedPath {
  doc: SearchDoc;
  /** the route's node ids, joined: a different route is a different document */
  route: string;
  reads: readonly string[];
}

interface TenantIndex {
  built: boolean;
  paths: Map<string, IndexedPath>;
  /** index work for this tenant, one after another (a query's first build, a pass's update) */
  turn: Promise<unknown>;
}

export class SearchService {
  private readonly indexed = new Map<string, TenantIndex>();

  constructor(
    readonly index: SearchIndex,
    private readonly tenants: (name: string) => TenantState | undefined,
    private readonly log: Log,
  ) {}

  /**
   * One page of the tenant's best matches for `query`: every word matches a node, finding or path, by
   * prefix or within a typo. Bad input is refused (`invalid-query`, naming the value); an index that does
   * not answer is `unavailable` (503).
   */
  async search(tenant: string, query: string, options: SearchOptions = {}): Promise<SearchPage> {
    const terms = searchTerms(query);
    const limit = pageSize(options.first);
    const offset = offsetAfter(options.after);
    const kinds = searchKinds(options.kinds);
    const state = this.tenants(tenant);
    if (!state) return { hits: [], endCursor: null, hasNextPage: false };
    await this.ensureBuilt(state);
    let page;
    try {
      page = await this.index.query(tenant, { terms, kinds, apps: options.apps, offset, limit });
    } catch (error) {
      this.log.error({ err: error, tenant, backend: this.index.backend }, 'search: the index did not answer');
      throw new ProblemError(
        'unavailable',
        `the search index (${this.index.backend}) did not answer; try again`,
      );
    }
    const hits: SearchHit[] = [];
    page.hits.forEach(({ doc, score }, i) => {
      if (!visible(state, doc, options.apps)) return;
      hits.push({
        kind: doc.kind,
        id: doc.id,
        name: doc.name,
        label: doc.label,
        score,
        snippet: snippet(doc.text, terms),
        cursor: cursorAt(offset + i),
      });
    });
    return {
      hits,
      endCursor: page.hits.length ? cursorAt(offset + page.hits.length - 1) : null,
      hasNextPage: page.more,
    };
  }

  /**
   * After an analyzer pass of `state`: the node changes the pass consumed (null: everything may have
   * changed) and the path store as the pass left it. Never throws: an index that fails is rebuilt later.
   */
  afterPass(state: TenantState, changes: TakenChanges | null): Promise<void> {
    if (this.index.backend !== 'embedded')
      return this.inTurn(state.name, async (entry) => {
        if (!entry.built || !changes || changes.all) return this.build(state, entry);
        await this.update(state, entry, changes);
      });
    const entry = this.indexed.get(state.name);
    // In process, not built yet or everything changed: the first query builds it. A bulk load then costs
    // the analyzer nothing here (at 100k nodes the build was a fifth of ingest -> paths ready, and at 1M a
    // large share of the memory), and a tenant nobody searches is never indexed. An external index
    // (OpenSearch) is kept written after every pass: its memory is not ours, and others may read it.
    if (!entry?.built || !changes || changes.all) {
      this.invalidate(state.name);
      return entry ? entry.turn.then(() => undefined) : Promise.resolve();
    }
    return this.inTurn(state.name, async (current) => {
      if (!current.built) return;
      await this.update(state, current, changes);
    });
  }

  /** The next pass (or query) rebuilds the tenant's index: its pass failed after taking the changes. */
  invalidate(tenant: string): void {
    const entry = this.indexed.get(tenant);
    if (entry) entry.built = false;
  }

  close(): Promise<void> {
    return this.index.close();
  }

  private ensureBuilt(state: TenantState): Promise<void> {
    const entry = this.indexed.get(state.name);
    if (entry?.built) return entry.turn.then(() => undefined);
    return this.inTurn(state.name, (e) => (e.built ? Promise.resolve() : this.build(state, e)));
  }

  private inTurn(tenant: string, work: (entry: TenantIndex) => Promise<void>): Promise<void> {
    let entry = this.indexed.get(tenant);
    if (!entry)
      this.indexed.set(tenant, (entry = { built: false, paths: new Map(), turn: Promise.resolve() }));
    const current = entry;
    const result = current.turn.then(() =>
      work(current).catch((error: unknown) => {
        current.built = false;
        this.log.error(
          { err: error, tenant, backend: this.index.backend },
          'search: could not update the index; it is rebuilt at the next pass or query',
        );
      }),
    );
    current.turn = result;
    return result;
  }

  /** Everything again, from the graph and the path store. */
  private async build(state: TenantState, entry: TenantIndex): Promise<void> {
    entry.built = false;
    const graph = state.graph;
    const docs: SearchDoc[] = [];
    graph.forEachNode((id, attrs) => docs.push(nodeDoc(graph, id, attrs)));
    entry.paths.clear();
    const cache: FindingsCache = new Map();
    for (const record of state.paths.open()) {
      const indexed = indexPath(state, record, cache);
      entry.paths.set(record.id, indexed);
      docs.push(indexed.doc);
    }
    await this.index.replace(state.name, docs);
    entry.built = true;
  }

  private async update(state: TenantState, entry: TenantIndex, changes: TakenChanges): Promise<void> {
    const graph = state.graph;
    const upserts: SearchDoc[] = [];
    const removals: string[] = [];
    // A node id names its label (`<Label>:<hash>`), so its kind never changes: removing both keys is exact.
    for (const id of changes.nodes) {
      if (graph.hasNode(id)) upserts.push(nodeDoc(graph, id));
      else removals.push(docKey('node', id), docKey('finding', id));
    }
    const touched = new Set(changes.nodes);
    for (const key of changes.edges) {
      const [, from, to] = key.split('|');
      touched.add(from);
      touched.add(to);
    }
    const open = new Set<string>();
    const cache: FindingsCache = new Map();
    for (const record of state.paths.open()) {
      open.add(record.id);
      const before = entry.paths.get(record.id);
      if (before && before.route === routeKey(record) && !before.reads.some((id) => touched.has(id)))
        continue;
      const indexed = indexPath(state, record, cache);
      entry.paths.set(record.id, indexed);
      upserts.push(indexed.doc);
    }
    for (const id of entry.paths.keys()) {
      if (open.has(id)) continue;
      entry.paths.delete(id);
      removals.push(docKey('path', id));
    }
    if (removals.length) await this.index.remove(state.name, removals);
    if (upserts.length) await this.index.upsert(state.name, upserts);
  }
}

function routeKey(record: PathRecord): string {
  return routeNodes(record)
    .map((n) => n.id)
    .join('>');
}

function indexPath(state: TenantState, record: PathRecord, cache: FindingsCache): IndexedPath {
  const { doc, reads } = pathDoc(state.graph, record, cache);
  return { doc, route: routeKey(record), reads };
}

/** The live check: the node is still there, the path still open, and the caller may see either. */
function visible(state: TenantState, doc: SearchDoc, apps: readonly string[] | undefined): boolean {
  const wanted = apps && new Set(apps);
  const mine = (id: string) => !wanted || appsOfNode(state.graph, id).some((a) => wanted.has(a));
  if (doc.kind !== 'path') return state.graph.hasNode(doc.id) && mine(doc.id);
  const record = state.paths.get(doc.id);
  if (!record || record.state !== 'open') return false;
  return !wanted || routeNodes(record).some((n) => mine(n.id));
}
