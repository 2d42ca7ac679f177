// MCP over Streamable HTTP at `/mcp` on the API listener. Stateless: each POST is authenticated by the
// policy layer like any API route (bearer token or JWT, roles, tenant, applications, rate limits, lockout),
// gets a server built for its principal (an admin's lists the admin's tools) and is answered as one JSON
// body; no session is kept between requests and the server sends nothing unasked, so GET (the
// notification stream) and DELETE (ending a session) answer 405. The tools call the API through the
// listener's own pipeline (inject) with the caller's credentials, so a tool reads exactly what the same
// caller would read from /graphql, and the audit log records its views. docs/mcp.md.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { problem } from '../../src/http/problems.js';
import { sendProblem } from '../plugins/http-base.js';
import { PathgateApi, type ApiTransport } from './api-client.js';
import { DashboardLinks } from './links.js';
import { createMcpServer } from './server.js';

export const MCP_ROUTE = '/mcp';

/** The caller's headers a tool's API call carries: who it is, which tenant, which client (for the limits). */
const CALLER_HEADERS = ['authorization', 'x-tenant', 'x-forwarded-for'] as const;
/** The headers the MCP transport reads (content negotiation, protocol version). */
const MCP_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

/** The API as the caller of `request` sees it, through the listener's own request pipeline. */
function callerTransport(app: FastifyInstance, request: FastifyRequest): ApiTransport {
  const headers: Record<string, string> = {};
  for (const name of CALLER_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return async ({ method, path, body }) => {
    const response = await app.inject({
      method,
      url: path,
      headers: {
        ...headers,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
      // The same client to the rate limits and lockout as the MCP request itself.
      remoteAddress: request.socket.remoteAddress,
    });
    let parsed: unknown;
    try {
      parsed = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, body: parsed };
  };
}

export function registerMcpRoute(app: FastifyInstance, deps: { publicUrl?: string }): void {
  const links = new DashboardLinks(deps.publicUrl);
  app.post(MCP_ROUTE, { config: { access: 'read' } }, async (request, reply) => {
    const { principal } = request;
    const server = createMcpServer(
      { api: new PathgateApi(callerTransport(app, request)), links },
      { role: principal.role, anonymous: principal.anonymous },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const name of MCP_HEADERS) {
        const value = request.headers[name];
        if (typeof value === 'string') headers.set(name, value);
      }
      const webRequest = new Request(new URL(MCP_ROUTE, 'http://pathgate.invalid'), {
        method: 'POST',
        headers,
      });
      const response = await transport.handleRequest(webRequest, { parsedBody: request.body });
      const text = await response.text();
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') void reply.header(name, value);
      });
      return reply.send(text === '' ? undefined : text);
    } finally {
      await server.close();
    }
  });
  // Stateless: no notification stream to open, no session to end.
  for (const method of ['GET', 'DELETE'] as const)
    app.route({
      method,
      url: MCP_ROUTE,
      config: { access: 'read' },
      handler: async (_request, reply) => {
        void reply.header('allow', 'POST');
        return sendProblem(
          reply,
          problem(
            'method-not-allowed',
            `${method} ${MCP_ROUTE}: this server is stateless (no sessions, no server-sent stream); send each MCP message as a POST`,
          ),
        );
      },
    });
}
