// The attack paths over MCP: `list_attack_paths` (the API's filters and paging), `get_attack_path` (the
// route hop by hop with its evidence, the score with its uncertainty, the alternative routes to the same
// target, the fix) and each path as a resource, `pathgate://paths/<id>`.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiError } from './api-client.js';
import { answering, pathSummary, pathUri, routeText, type ToolDeps } from './answers.js';
import {
  ALTERNATIVES,
  GET_PATH,
  LIST_PATHS,
  REMEDIATION_PLAN,
  type AlternativesAnswer,
  type GetPathAnswer,
  type ListPathsAnswer,
  type NodeRef,
  type PathDetail,
  type RemediationPlanAnswer,
} from './queries.js';

/** The API's path ids (app/routes/visible-path.ts). */
export const PATH_ID = /^ap-[0-9a-f]{16}$/;
/** Paths a `resources/list` names: the highest-scored open ones (the listing has no cursor here). */
export const RESOURCE_LIST_SIZE = 100;
/** MCP's "resource not found" (the specification's -32002). */
const RESOURCE_NOT_FOUND = -32002;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

/** One path as the API shows it to this caller, with the analyses `get_attack_path` adds on request. */
async function pathDetail(
  deps: ToolDeps,
  id: string,
  options: { alternatives: number; plan: boolean },
): Promise<object | undefined> {
  const { attackPath: path } = await deps.api.graphql<GetPathAnswer>(GET_PATH, { id });
  if (!path) return undefined;
  const byId = new Map<string, NodeRef>(path.nodes.map((n) => [n.id, n]));
  const nameOf = (nodeId: string) => byId.get(nodeId)?.name ?? nodeId;
  return {
    id: path.id,
    route: routeText(path.nodes),
    state: path.state,
    critical: path.critical,
    priority: path.priority,
    directAccess: path.directAccess,
    start: path.start,
    target: path.target,
    hops: path.steps.map((step) => ({
      from: nameOf(step.from),
      to: nameOf(step.to),
      type: step.type,
      probability: step.probability,
      weightBasis: step.weightBasis,
      evidence: step.evidence.map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== null))),
    })),
    score: {
      value: path.score,
      logScore: path.logScore,
      credibleInterval90: { low: path.scoreCiLow, high: path.scoreCiHigh },
      posteriorMean: path.posteriorMean,
      mixtureScore: path.mixtureScore,
      upperBound: path.scoreUpperBound,
      correlatedHops: path.correlatedHops,
      confidence: path.confidence,
      confidenceLabel: path.confidenceLabel,
    },
    suppression: path.suppression,
    firstSeen: path.firstSeen,
    openForSeconds: path.openForSeconds,
    reopens: path.reopens,
    resolvedAt: path.resolvedAt,
    ...(options.alternatives > 0 && { alternatives: await alternativesOf(deps, path, options.alternatives) }),
    fix: await fixOf(deps, path, options.plan),
    resource: pathUri(path.id),
    link: deps.links.path(path.id),
  };
}

/** The next-best routes to the same target (kShortestPaths), the path's own route left out. */
async function alternativesOf(deps: ToolDeps, path: PathDetail, wanted: number) {
  const own = path.nodes.map((n) => n.id).join('>');
  try {
    const { kShortestPaths } = await deps.api.graphql<AlternativesAnswer>(ALTERNATIVES, {
      target: path.target.id,
      k: Math.min(wanted + 1, 100),
    });
    return {
      routes: (kShortestPaths ?? [])
        .filter((r) => r.nodes.map((n) => n.id).join('>') !== own)
        .slice(0, wanted)
        .map((r) => ({
          pathId: r.pathId,
          route: routeText(r.nodes),
          score: r.score,
          hops: r.steps.length,
          link: deps.links.path(r.pathId),
        })),
    };
  } catch (error) {
    // An apps-bound credential may not run analyses over the whole estate: the path is still answered.
    if (error instanceof ApiError) return { routes: [], unavailable: error.message };
    throw error;
  }
}

/** The generated fixes; with none, the remediation plan's verified changes that close this path. */
async function fixOf(deps: ToolDeps, path: PathDetail, plan: boolean) {
  const generated = path.fixes;
  if (generated.length || !plan || !path.critical) return { generated, planItems: [] };
  try {
    const { remediationPlan } = await deps.api.graphql<RemediationPlanAnswer>(REMEDIATION_PLAN);
    return {
      generated,
      planItems: (remediationPlan ?? [])
        .filter((item) => item.pathIds.includes(path.id))
        .map((item) => ({
          rank: item.rank,
          title: item.title,
          kind: item.kind,
          cut: item.cut && {
            from: item.cut.from.name,
            to: item.cut.to.name,
            type: item.cut.type,
            probability: item.cut.probability,
          },
          blockPublicAccess: item.node?.name,
          verified: item.verification.verified,
          pathsEliminated: item.verification.pathsEliminated,
          riskReductionPct: item.verification.riskReductionPct,
          fix: item.fix,
          fixRefused: item.fixRefused,
        })),
    };
  } catch (error) {
    if (error instanceof ApiError) return { generated, planItems: [], planUnavailable: error.message };
    throw error;
  }
}

export function registerPathTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'list_attack_paths',
    {
      title: 'List attack paths',
      description:
        "Attack paths from internet-exposed assets to crown jewels in your estate, highest score first, with the API's filters. Page with `after` (the previous answer's nextCursor). Each path names its route, score, priority and whether it is critical (open P1, not suppressed).",
      inputSchema: {
        first: z.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100 (default 20).'),
        after: z
          .string()
          .max(100)
          .optional()
          .describe('nextCursor of the previous page; the first page without it.'),
        priority: z.enum(['P1', 'P2', 'P3']).optional().describe('Only paths of this priority.'),
        minScore: z.number().min(0).max(1).optional().describe('Only paths scored at least this (0 to 1).'),
        target: z
          .string()
          .min(1)
          .max(500)
          .optional()
          .describe('Only paths to this crown jewel, by node id or name (case-insensitive).'),
        state: z
          .enum(['OPEN', 'RESOLVED', 'ALL'])
          .default('OPEN')
          .describe('Open paths (default), resolved ones, or all.'),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answering(async () => {
        const { attackPathsConnection: page } = await deps.api.graphql<ListPathsAnswer>(LIST_PATHS, args);
        return {
          totalCount: page.totalCount,
          paths: page.edges.map((e) => pathSummary(e.node, deps.links)),
          nextCursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
          link: deps.links.paths(),
        };
      }),
  );

  server.registerTool(
    'get_attack_path',
    {
      title: 'Get an attack path',
      description:
        "One attack path by id: each hop with the evidence it stands on (CVE with CVSS, EPSS and KEV, code weakness, runtime alert, the rule of the hop), the score with its 90 % credible interval and confidence, the next-best alternative routes to the same target, and the fix (generated fixes, else the remediation plan's verified changes that close it).",
      inputSchema: {
        id: z
          .string()
          .regex(PATH_ID, 'an attack path id: ap- and 16 hex digits')
          .describe('The path id (ap-…).'),
        alternatives: z
          .number()
          .int()
          .min(0)
          .max(10)
          .default(3)
          .describe('How many alternative routes to the same target (0 to 10, default 3).'),
      },
      annotations: READ_ONLY,
    },
    ({ id, alternatives }) =>
      answering(async () => {
        const detail = await pathDetail(deps, id, { alternatives, plan: true });
        if (!detail) throw new ApiError(404, `no attack path ${id} is visible to this credential`);
        return detail;
      }),
  );

  server.registerResource(
    'attack-path',
    new ResourceTemplate('pathgate://paths/{id}', {
      list: async () => {
        const { attackPathsConnection: page } = await deps.api.graphql<ListPathsAnswer>(LIST_PATHS, {
          first: RESOURCE_LIST_SIZE,
        });
        return {
          resources: page.edges.map(({ node }) => ({
            uri: pathUri(node.id),
            name: node.id,
            title: routeText(node.nodes),
            description: `${node.priority}${node.critical ? ' critical' : ''}, score ${node.score}: ${node.start.name} to ${node.target.name}`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Attack path',
      description: `An attack path with its hops, evidence, score and fixes (JSON). resources/list names the ${RESOURCE_LIST_SIZE} highest-scored open paths; any path id reads.`,
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      const pathId = Array.isArray(id) ? id[0] : id;
      const detail = PATH_ID.test(pathId)
        ? await pathDetail(deps, pathId, { alternatives: 0, plan: false })
        : undefined;
      if (!detail)
        throw new McpError(RESOURCE_NOT_FOUND, `no attack path ${pathId} is visible to this credential`, {
          uri: uri.href,
        });
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(detail, null, 2) }],
      };
    },
  );
}
