// GraphQL `search` (issue 36): the caller's tenant's nodes, findings and attack paths by words, as a
// connection. Merged into SCHEMA_SDL (the snapshot covers it) and into createResolvers. The search itself,
// its checks and its scoping are src/search/search-service.ts's; this file only maps it.
import type { SearchHit, SearchPage } from '../../src/search/search-service.js';
import type { GraphqlContext } from './resolvers.js';

export const SEARCH_SDL = /* GraphQL */ `
  extend type Query {
    """
    The caller's tenant's nodes, findings and open attack paths matching every word of \`query\`, best first.
    A word matches by prefix (\`log4\` finds \`log4j-core\`) or with a typo (one from four letters, two from
    eight); a CVE id finds the CVE and the routes whose hops stand on it. An app-scoped credential finds only
    its applications' nodes and the paths through them. Pages of \`first\` (default 20, at most 100); pass
    pageInfo.endCursor as \`after\` for the next page. An empty query, \`first\` out of range or a cursor this
    service did not hand out is refused (400 invalid-query, naming the value).
    """
    search(
      "Words to find (at most 256 characters, 16 words); punctuation separates words."
      query: String!
      "Page size, 1 to 100 (default 20)."
      first: Int
      "The cursor of the last hit of the previous page (pageInfo.endCursor); the first page without it."
      after: String
      "Only hits of these kinds (default: all)."
      kinds: [SearchKind!]
    ): SearchConnection!
  }

  "What a search hit is."
  enum SearchKind {
    "An asset of the graph (a workload, load balancer, role, database, image, library…)."
    NODE
    "A finding: a CVE, a code weakness or a misconfiguration check."
    FINDING
    "An open attack path (its id is what attackPath(id) takes)."
    PATH
  }

  "One page of search hits (Query.search)."
  type SearchConnection {
    "The hits of this page, best first, each with its cursor."
    edges: [SearchEdge!]!
    "Where this page ends and whether more hits follow."
    pageInfo: PageInfo!
  }

  "One search hit of a page, with the cursor that pages after it."
  type SearchEdge {
    "Pass as \`after\` to continue after this hit."
    cursor: String!
    "The hit."
    node: SearchHit!
  }

  "A node, finding or attack path that matches the search."
  type SearchHit {
    "Node, finding or path."
    kind: SearchKind!
    "The node id, or the attack path id (attackPath(id))."
    id: ID!
    "The node's name; a path's start → target."
    name: String!
    "The node's label (Service, CVE, Database…); AttackPath for a path."
    label: String!
    "Relevance, higher is better; comparable within one answer only."
    score: Float!
    "The hit's properties (a node) or hops and findings (a path) around the first matching word."
    snippet: String!
  }
`;

interface SearchArgs {
  query: string;
  first?: number | null;
  after?: string | null;
  kinds?: string[] | null;
}

export function createSearchResolvers() {
  return {
    Query: {
      search: async (_: unknown, args: SearchArgs, ctx: GraphqlContext) => {
        const page: SearchPage = await ctx.engine.search.search(ctx.tenant, args.query, {
          first: args.first,
          after: args.after,
          kinds: args.kinds,
          apps: ctx.principal.apps,
        });
        // The audit log's view of attack paths covers paths named by a search too.
        const paths = page.hits.filter((h) => h.kind === 'path').map((h) => h.id);
        if (paths.length) ctx.onView?.(paths);
        return {
          edges: page.hits.map((hit: SearchHit) => ({ cursor: hit.cursor, node: hit })),
          pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
        };
      },
    },
    SearchHit: {
      kind: (hit: SearchHit) => hit.kind.toUpperCase(),
    },
  };
}
