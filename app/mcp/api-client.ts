// What the MCP server asks of pathgate: its public GraphQL and REST API, never the engine behind it. Two
// ways to reach the API: over HTTP with a bearer token (`pathgate mcp --api <url>`, app/mcp/stdio.ts), or
// through the API listener's own request pipeline (`/mcp`, app/mcp/http-route.ts), so every call passes
// the same policy layer, request limits, rate limits and audit log as a direct call would.
import { describeError } from '../cli-flags.js';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** the route, from the API's root (`/graphql`, `/suppressions`) */
  path: string;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  body: unknown;
}

/** Sends one request to the API and answers its status and parsed JSON body. */
export type ApiTransport = (request: ApiRequest) => Promise<ApiResponse>;

/** The API refused or failed a call: its status (0 when it could not be reached) and what it said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: { message?: string; extensions?: { code?: string } }[];
}

/** The problem+json body of a refusal, in one line: title, detail and the status. */
function describeProblem(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const { title, detail } = body as { title?: unknown; detail?: unknown };
    const parts = [title, detail].filter((p): p is string => typeof p === 'string' && p !== '');
    if (parts.length) return `${parts.join(': ')} (HTTP ${status})`;
  }
  return `the API answered HTTP ${status}`;
}

export class PathgateApi {
  constructor(private readonly send: ApiTransport) {}

  /** Runs a GraphQL operation; any error in the answer throws an ApiError naming it. */
  async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const { status, body } = await this.send({
      method: 'POST',
      path: '/graphql',
      body: { query, variables },
    });
    const answer = body as GraphqlAnswer<T> | undefined;
    if (answer?.errors?.length)
      throw new ApiError(status, answer.errors.map((e) => e.message ?? 'GraphQL error').join('; '));
    if (status !== 200 || !answer || answer.data === undefined || answer.data === null)
      throw new ApiError(status, describeProblem(status, body));
    return answer.data;
  }

  /** A REST call; a status outside 2xx throws an ApiError with the problem's title and detail. */
  async rest<T>(method: ApiRequest['method'], path: string, body?: unknown): Promise<T> {
    const response = await this.send({ method, path, body });
    if (response.status < 200 || response.status >= 300)
      throw new ApiError(response.status, describeProblem(response.status, response.body));
    return response.body as T;
  }
}

/**
 * The API over HTTP (`pathgate mcp`): `base` is the API listener's URL (a path prefix, behind a proxy, is
 * kept), the token goes as `Authorization: Bearer`, never into a message.
 */
export function httpTransport(base: URL, token: string | undefined, timeoutMs = 120_000): ApiTransport {
  const root = new URL(base.href.endsWith('/') ? base.href : `${base.href}/`);
  return async ({ method, path, body }) => {
    const url = new URL(path.replace(/^\/+/, ''), root);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(token && { authorization: `Bearer ${token}` }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ApiError(0, `cannot reach ${url.href}: ${describeError(error)}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new ApiError(
        response.status,
        `${url.href} answered HTTP ${response.status} with a body that is not JSON: is --api the pathgate API listener?`,
      );
    }
    return { status: response.status, body: parsed };
  };
}
