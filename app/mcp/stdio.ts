// `pathgate mcp --api <url>`: the MCP server on stdin and stdout for a local assistant (Claude Desktop, VS
// Code), calling a running pathgate's public API over HTTP with the token in PATHGATE_API_TOKEN. It asks
// GET /auth/me once at the start: a refused token stops it there (exit 1, the API's reason on stderr), and
// the role decides the tool list. stdout carries the protocol alone; everything else goes to stderr.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describeError, parseOrExit, type CommandSpec } from '../cli-flags.js';
import { ApiError, httpTransport, PathgateApi } from './api-client.js';
import { DashboardLinks } from './links.js';
import { createMcpServer } from './server.js';
import type { McpCaller } from './answers.js';
import type { Role } from '../../src/auth/principal.js';

export const MCP_COMMAND = {
  name: 'mcp',
  summary: "serve pathgate's attack paths to an MCP client (an AI assistant) on stdio",
  synopsis: '[--api URL] [--public-url URL]',
  description:
    'A Model Context Protocol server on stdin/stdout over the public API of a running pathgate: read-only tools (search, posture, list_attack_paths, get_attack_path, gate_verdict, what_if, remediation_plan), each path as the resource pathgate://paths/<id>, and suppress_attack_path for an admin token only. The token comes from $PATHGATE_API_TOKEN (never a flag); it is checked with GET /auth/me at the start. Runs until the client closes stdin. docs/mcp.md.',
  flags: {
    api: {
      type: 'string',
      value: 'URL',
      url: true,
      default: 'http://127.0.0.1:8080',
      help: 'the API listener (a path prefix behind a proxy is kept)',
    },
    'public-url': {
      type: 'string',
      value: 'URL',
      url: true,
      help: 'where people open the dashboard, for links in answers (default: $PUBLIC_URL; none without it)',
    },
  },
  exits: '0 when the client closes the connection, 1 the API is unreachable or refuses the token',
} as const satisfies CommandSpec;

export interface McpIo {
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** the protocol's streams (default: the process' stdin and stdout) */
  stdin?: Readable;
  stdout?: Writable;
}

interface Me {
  subject: string;
  role: Role;
  tenant: string | null;
  anonymous: boolean;
}

/** Runs `pathgate mcp`; resolves to the exit code once the client has gone (or at once when it cannot start). */
export async function mcpCommand(args: string[], io: McpIo): Promise<number> {
  const parsed = parseOrExit(MCP_COMMAND, args, { out: io.err, err: io.err });
  if (typeof parsed === 'number') return parsed;
  const apiUrl = new URL(parsed.values.api);
  const token = io.env.PATHGATE_API_TOKEN?.trim() || undefined;
  const publicUrl = parsed.values['public-url'] ?? (io.env.PUBLIC_URL?.trim() || undefined);
  const api = new PathgateApi(httpTransport(apiUrl, token));
  let me: Me;
  try {
    me = await api.rest<Me>('GET', '/auth/me');
  } catch (error) {
    const why = error instanceof ApiError ? error.message : describeError(error);
    const hint =
      error instanceof ApiError && error.status === 401
        ? token
          ? ': check PATHGATE_API_TOKEN'
          : ': set PATHGATE_API_TOKEN to an API token'
        : '';
    io.err(`pathgate mcp: ${apiUrl.href}: ${why}${hint}\n`);
    return 1;
  }
  const caller: McpCaller = { role: me.role, anonymous: me.anonymous };
  const server = createMcpServer({ api, links: new DashboardLinks(publicUrl) }, caller);
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  const closed = new Promise<number>((resolve) => {
    server.server.onclose = () => resolve(0);
  });
  // The client is gone when stdin ends: the server closes with it.
  stdin.once('end', () => void server.close());
  await server.connect(transport);
  io.err(
    `pathgate mcp: serving ${apiUrl.href} as ${me.subject} (${me.role}${me.tenant ? `, tenant ${me.tenant}` : ''}) on stdio\n`,
  );
  return closed;
}
