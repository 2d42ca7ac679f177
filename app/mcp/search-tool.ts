// `search` over MCP: the caller's nodes, findings and open paths by words (GraphQL `search`: prefix and
// typo-tolerant, scoped by tenant and applications), each hit with where to read more: a path's id for
// get_attack_path and its page, a node's neighbourhood in the graph view.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answering, pathUri, type ToolDeps } from './answers.js';
import { SEARCH, type SearchAnswer } from './queries.js';

const KINDS = ['NODE', 'FINDING', 'PATH'] as const;

export function registerSearchTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'search',
    {
      title: 'Search the estate',
      description:
        "Finds your nodes (assets: workloads, load balancers, roles, databases, images, libraries), findings (CVE ids, code weaknesses, misconfiguration checks) and open attack paths by words, best first. A word matches by prefix (log4 finds log4j-core) or with a typo; a CVE id also finds the routes whose hops stand on it. A PATH hit's id is what get_attack_path takes.",
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(256)
          .regex(/\S/, 'words to find, not blank')
          .describe('Words to find (at most 256 characters, 16 words).'),
        kinds: z
          .array(z.enum(KINDS))
          .min(1)
          .max(KINDS.length)
          .optional()
          .describe('Only hits of these kinds (default: all).'),
        first: z.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100 (default 20).'),
        after: z
          .string()
          .max(200)
          .optional()
          .describe('nextCursor of the previous page; the first page without it.'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    },
    (args) =>
      answering(async () => {
        const { search } = await deps.api.graphql<SearchAnswer>(SEARCH, args);
        return {
          hits: search.edges.map(({ node: hit }) => ({
            ...hit,
            ...(hit.kind === 'PATH'
              ? { resource: pathUri(hit.id), link: deps.links.path(hit.id) }
              : { link: deps.links.graph(hit.id) }),
          })),
          nextCursor: search.pageInfo.hasNextPage ? search.pageInfo.endCursor : null,
        };
      }),
  );
}
