// The catalog of problem types (RFC 9457) every 4xx/5xx body is built from. docs/errors.md lists the
// same codes; test/http/problems.test.ts keeps the two in step.
import type { FieldError } from '../ingest/envelope.js';

export interface ProblemType {
  status: number;
  title: string;
}

export const PROBLEMS = {
  'malformed-json': { status: 400, title: 'Request body is not valid JSON' },
  'malformed-yaml': { status: 400, title: 'Request body is not valid YAML' },
  'invalid-payload': { status: 400, title: 'Request body does not match the expected shape' },
  'unknown-vocabulary': { status: 400, title: 'Node label or edge type outside the closed vocabulary' },
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'snapshot-refused': { status: 400, title: 'The report cannot declare a complete snapshot' },
  'empty-snapshot': { status: 400, title: 'A complete snapshot that yields nothing is refused' },
  'query-limit': { status: 400, title: 'The GraphQL request exceeds a limit' },
  unauthorized: { status: 401, title: 'Missing or invalid credentials' },
  forbidden: { status: 403, title: 'Not allowed for this principal' },
  'tenant-limit': { status: 403, title: 'No more tenants may be created' },
  'not-found': { status: 404, title: 'No such route' },
  'unknown-source': { status: 404, title: 'Unknown ingest source' },
  'method-not-allowed': { status: 405, title: 'Method not allowed on this route' },
  conflict: { status: 409, title: 'Conflicts with the current state' },
  'payload-too-large': { status: 413, title: 'Request body exceeds the size limit' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** Problem type URIs are URNs: stable identifiers documented in docs/errors.md, not links. */
export function problemTypeUri(code: ProblemCode): string {
  return `urn:pathgate:problem:${code}`;
}

export function problem(
  code: ProblemCode,
  detail: string,
  extra: { errors?: FieldError[]; instance?: string; [k: string]: unknown } = {},
): Problem {
  const { status, title } = PROBLEMS[code];
  const body: Problem = { type: problemTypeUri(code), title, status, detail, ...extra };
  if (!body.errors?.length) delete body.errors;
  return body;
}

/** An error that carries a problem; thrown by handlers and rendered by the one error handler. */
export class ProblemError extends Error {
  readonly problem: Problem;
  constructor(
    code: ProblemCode,
    detail: string,
    extra: { errors?: FieldError[]; [k: string]: unknown } = {},
  ) {
    super(detail);
    this.problem = problem(code, detail, extra);
  }
}
