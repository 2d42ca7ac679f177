// What every MCP tool shares: the caller a server is built for, the answer as both text (for a model to
// read) and structured content (for a program), and the API's refusals as tool errors naming the cause.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Role } from '../../src/auth/principal.js';
import { ApiError, type PathgateApi } from './api-client.js';
import type { DashboardLinks } from './links.js';
import type { NodeRef, PathSummary } from './queries.js';

/** Who the server answers for: the role decides which tools it lists (writes are the admin's). */
export interface McpCaller {
  role: Role;
  anonymous: boolean;
}

export interface ToolDeps {
  api: PathgateApi;
  links: DashboardLinks;
}

/** The URI of a path as an MCP resource (app/mcp/path-resources.ts). */
export function pathUri(id: string): string {
  return `pathgate://paths/${id}`;
}

export function routeText(nodes: readonly NodeRef[]): string {
  return nodes.map((n) => n.name).join(' → ');
}

/** A path in a listing: enough to pick one, with where to read it (tool, resource, page). */
export function pathSummary(path: PathSummary, links: DashboardLinks) {
  return {
    id: path.id,
    route: routeText(path.nodes),
    start: path.start.name,
    target: path.target.name,
    hops: Math.max(path.nodes.length - 1, 0),
    score: path.score,
    priority: path.priority,
    critical: path.critical,
    directAccess: path.directAccess,
    state: path.state,
    firstSeen: path.firstSeen,
    resource: pathUri(path.id),
    link: links.path(path.id),
  };
}

/** A tool's answer: the JSON as text and as structured content (undefined members, such as absent links, left out). */
export function answer(value: object): CallToolResult {
  const text = JSON.stringify(value, null, 2);
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/** Runs a tool's work; a refusal or failure of the API becomes a tool error that says what the API said. */
export async function answering(work: () => Promise<object>): Promise<CallToolResult> {
  try {
    return answer(await work());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { isError: true, content: [{ type: 'text', text: error.message }] };
  }
}
