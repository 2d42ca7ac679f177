// Retrieval through the search index (src/search/): each of the question's terms is searched on its own (the
// index wants every word of a query to match; a question's words are alternatives), by prefix and within a
// typo (`log4` finds log4j-core, `chekout` checkout-api), scoped by tenant and by the caller's applications.
// The nodes, findings and paths it finds then choose paths exactly as the path store's own matcher does
// (path-store-retriever.ts). An index that does not answer fails this retriever only: the path store's
// answers alone (src/ai/ask.ts).
import { ProblemError } from '../http/problems.js';
import type { Retriever } from './grounding.js';
import { PathStoreRetriever, type EstateReader, type TermMatcher } from './path-store-retriever.js';

/** What this retriever needs of the search service (src/search/search-service.ts). */
export interface SearchApi {
  search(
    tenant: string,
    query: string,
    options: { first?: number; apps?: readonly string[] },
  ): Promise<{ hits: readonly { kind: 'node' | 'finding' | 'path'; id: string; score: number }[] }>;
}

/** Hits read per term. */
const HITS_PER_TERM = 20;

export function searchMatcher(search: SearchApi): TermMatcher {
  return async (request, _graph, terms) => {
    const nodes = new Map<string, Set<string>>();
    const paths = new Map<string, Set<string>>();
    const findings: string[] = [];
    for (const term of terms) {
      nodes.set(term, new Set());
      paths.set(term, new Set());
      let page;
      try {
        page = await search.search(request.tenant, term, {
          first: HITS_PER_TERM,
          apps: request.principal.apps,
        });
      } catch (error) {
        // A term the index will not take (no letters or digits in it) is skipped; an index that does not
        // answer (503) fails the retriever, so the path store answers alone.
        if (error instanceof ProblemError && error.problem.status === 400) continue;
        throw new Error(`search index: ${(error as Error).message}`, { cause: error });
      }
      for (const hit of page.hits) {
        if (hit.kind === 'path') paths.get(term)!.add(hit.id);
        else nodes.get(term)!.add(hit.id);
        if (hit.kind === 'finding' && !findings.includes(hit.id)) findings.push(hit.id);
      }
    }
    return { nodes, paths, findings };
  };
}

/** The search index's retriever; asked before the path store's, which stays the fallback. */
export function searchRetriever(estate: EstateReader, search: SearchApi): Retriever {
  return new PathStoreRetriever(estate, {
    name: 'search',
    matcher: searchMatcher(search),
    selection: 'search',
    riskiestWhenUnmatched: false,
  });
}
