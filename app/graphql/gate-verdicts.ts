// gateVerdicts: the merge gate's verdicts of the caller's tenant as a listing (issue 33: the dashboard's
// latest verdict per repository), read from the store prVerdict reads (src/gate/verdicts.ts; in scale-out
// every replica adopts the leader's verdicts from PostgreSQL into it). Merged into SCHEMA_SDL.
import { appsOfNode } from '../../src/auth/scope.js';
import type { StoredVerdict } from '../../src/gate/verdicts.js';
import { isRepositoryOfSlug } from '../../src/gate/successor.js';
import { ProblemError } from '../../src/http/problems.js';
import type { GraphqlContext } from './resolvers.js';

export const GATE_VERDICTS_SDL = /* GraphQL */ `
  extend type Query {
    """
    The merge gate's verdicts in the caller's tenant, one per commit, newest decision first (ties by SHA);
    the same verdicts prVerdict answers one at a time. A credential bound to applications sees the verdicts
    of the repositories whose Repository node names one of them (\`app\` or \`apps\`); a verdict that names no
    repository is not shown to it.
    """
    gateVerdicts(
      "Page size, 1 to 500 (default 50)."
      first: Int = 50
      "The cursor of the last edge of the previous page (pageInfo.endCursor: a commit SHA)."
      after: String
      "Only verdicts of this repository (owner/name, case-insensitive)."
      repository: String
      "Only the newest verdict of each repository (verdicts that name no repository are left out)."
      latestPerRepository: Boolean = false
    ): GateVerdictConnection!
  }

  "One page of merge gate verdicts (Query.gateVerdicts)."
  type GateVerdictConnection {
    "The verdicts of this page, newest first, each with its cursor."
    edges: [GateVerdictEdge!]!
    "Where this page ends and whether another follows."
    pageInfo: PageInfo!
    "Verdicts matching the filters, over every page."
    totalCount: Int!
  }

  "One verdict of a page, with the cursor that pages after it."
  type GateVerdictEdge {
    "Pass as \`after\` to continue after this verdict (the commit's SHA)."
    cursor: String!
    "The verdict."
    node: PrVerdict!
  }
`;

/** gateVerdicts' largest page: the dashboard asks for a screenful, an export reads the store itself. */
export const MAX_VERDICT_PAGE = 500;
const SLUG = /^[^/\s]+\/[^/\s]+$/;

interface GateVerdictsArgs {
  first?: number | null;
  after?: string | null;
  repository?: string | null;
  latestPerRepository?: boolean | null;
}

/**
 * For a credential bound to applications: whether a repository belongs to one of them (gateVerdicts lists, and
 * prVerdict answers, only those).
 */
export function repositoryScope(ctx: GraphqlContext): (slug: string | null) => boolean {
  const apps = ctx.principal.apps;
  if (!apps) return () => true;
  const graph = ctx.engine.tenant(ctx.tenant)?.graph;
  if (!graph) return () => false;
  const wanted = new Set(apps);
  const repositories: { attrs: Parameters<typeof isRepositoryOfSlug>[0]; apps: string[] }[] = [];
  graph.forEachNode((id, attrs) => {
    if (attrs.label === 'Repository') repositories.push({ attrs, apps: appsOfNode(graph, id) });
  });
  const cache = new Map<string, boolean>();
  return (slug) => {
    if (!slug) return false;
    const key = slug.toLowerCase();
    let hit = cache.get(key);
    if (hit === undefined)
      cache.set(
        key,
        (hit = repositories.some(
          (r) => isRepositoryOfSlug(r.attrs, key) && r.apps.some((a) => wanted.has(a)),
        )),
      );
    return hit;
  };
}

export function createGateVerdictResolvers() {
  return {
    Query: {
      gateVerdicts: (_: unknown, args: GateVerdictsArgs, ctx: GraphqlContext) => {
        const first = args.first ?? 50;
        if (!Number.isInteger(first) || first < 1 || first > MAX_VERDICT_PAGE)
          throw new ProblemError('invalid-query', `first must be 1 to ${MAX_VERDICT_PAGE}, got ${first}`);
        const repository = args.repository?.toLowerCase();
        if (repository !== undefined && !SLUG.test(repository))
          throw new ProblemError(
            'invalid-query',
            `repository must be owner/name, got ${JSON.stringify(args.repository!.slice(0, 200))}`,
          );
        const mine = repositoryScope(ctx);
        let list: StoredVerdict[] = ctx.engine
          .gateVerdicts(ctx.tenant)
          .filter((v) => mine(v.slug) && (!repository || v.slug?.toLowerCase() === repository));
        if (args.latestPerRepository) {
          const seen = new Set<string>();
          // newest first already: the first of each repository is its latest
          list = list.filter((v) => {
            const key = v.slug?.toLowerCase();
            if (!key || seen.has(key)) return false;
            seen.add(key);
            return true;
          });
        }
        let from = 0;
        if (args.after) {
          const index = list.findIndex((v) => v.sha === args.after!.toLowerCase());
          if (index < 0)
            throw new ProblemError(
              'invalid-query',
              `cursor ${JSON.stringify(args.after.slice(0, 200))} names no verdict in this listing`,
            );
          from = index + 1;
        }
        const page = list.slice(from, from + first);
        return {
          edges: page.map((node) => ({ cursor: node.sha, node })),
          pageInfo: { hasNextPage: from + first < list.length, endCursor: page.at(-1)?.sha ?? null },
          totalCount: list.length,
        };
      },
    },
  };
}
