// The catalog of problem types (RFC 9457) every 4xx/5xx body is built from. docs/errors.md lists the
// same codes; test/http/problems.test.ts keeps the two in step.
import type { FieldError } from '../ingest/envelope.js';

export interface ProblemType {
  status: number;
  title: string;
  /** Seconds sent as `Retry-After` with this problem: the condition is expected to pass. */
  retryAfter?: number;
}

export const PROBLEMS = {
  'malformed-json': { status: 400, title: 'Request body is not valid JSON' },
  'malformed-yaml': { status: 400, title: 'Request body is not valid YAML' },
  'invalid-payload': { status: 400, title: 'Request body does not match the expected shape' },
  'nesting-too-deep': { status: 400, title: 'Request body nests objects and arrays too deeply' },
  'too-many-aliases': { status: 400, title: 'YAML aliases expand beyond the limit' },
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
  'fix-refused': { status: 422, title: 'The fix cannot be generated from the values the graph holds' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable', retryAfter: 5 },
  'analysis-deadline': { status: 503, title: 'The analysis did not finish within its deadline' },
  'ai-provider-failed': { status: 502, title: 'The AI provider did not answer' },
  'ai-unconfigured': { status: 503, title: 'AI answers are not configured' },
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

/** An echoed value (`errors[].value`) is cut to this many characters, so a hostile value never comes back whole. */
export const MAX_ECHOED_CHARS = 200;
/** `detail` and pointers are cut to this many characters: they quote values too. */
export const MAX_DETAIL_CHARS = 1_000;
/** At most this many entries in `errors[]`. */
export const MAX_PROBLEM_ERRORS = 50;

/** `text` cut to `max` characters, with an ellipsis and the original length when it was longer. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/**
 * A value as it may be echoed: strings capped; objects and arrays kept when their JSON fits, otherwise
 * replaced by the start of their JSON and their size. The walk is bounded in depth and output, so a huge
 * or deeply nested value costs no more than the cap.
 */
export function capEchoed(value: unknown): unknown {
  if (typeof value === 'string') return capText(value, MAX_ECHOED_CHARS);
  if (value === null || typeof value !== 'object') return value;
  const out = { text: '', full: true };
  preview(value, out, 0);
  if (out.full && out.text.length <= MAX_ECHOED_CHARS) return value;
  const size = Array.isArray(value)
    ? `array of ${value.length} items`
    : `object of ${Object.keys(value).length} keys`;
  return `${out.text.slice(0, MAX_ECHOED_CHARS)}… (${size})`;
}

const PREVIEW_DEPTH = 8;

function preview(value: unknown, out: { text: string; full: boolean }, depth: number): void {
  if (out.text.length > MAX_ECHOED_CHARS) {
    out.full = false;
    return;
  }
  if (value === null || typeof value !== 'object') {
    const json =
      typeof value === 'string'
        ? JSON.stringify(capText(value, MAX_ECHOED_CHARS + 1))
        : JSON.stringify(value);
    out.text += json ?? 'null';
    if (typeof value === 'string' && value.length > MAX_ECHOED_CHARS) out.full = false;
    return;
  }
  if (depth >= PREVIEW_DEPTH) {
    out.text += '…';
    out.full = false;
    return;
  }
  const array = Array.isArray(value);
  out.text += array ? '[' : '{';
  let first = true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (out.text.length > MAX_ECHOED_CHARS) {
      out.full = false;
      break;
    }
    if (!first) out.text += ',';
    first = false;
    if (!array) out.text += `${JSON.stringify(capText(key, MAX_ECHOED_CHARS + 1))}:`;
    preview((value as Record<string, unknown>)[key], out, depth + 1);
  }
  out.text += array ? ']' : '}';
}

function capFieldError(error: FieldError): FieldError {
  return {
    ...error,
    pointer: capText(String(error.pointer), MAX_DETAIL_CHARS),
    detail: capText(String(error.detail), MAX_DETAIL_CHARS),
    ...('value' in error && { value: capEchoed(error.value) }),
  };
}

/**
 * Builds a problem body. Every problem passes here, so this is where echoed input is capped: `detail`,
 * each `errors[]` entry's pointer, detail and value, and the number of entries.
 */
export function problem(
  code: ProblemCode,
  detail: string,
  extra: { errors?: FieldError[]; instance?: string; [k: string]: unknown } = {},
): Problem {
  const { status, title } = PROBLEMS[code];
  const body: Problem = {
    type: problemTypeUri(code),
    title,
    status,
    detail: capText(detail, MAX_DETAIL_CHARS),
    ...extra,
  };
  if (!body.errors?.length) delete body.errors;
  else body.errors = body.errors.slice(0, MAX_PROBLEM_ERRORS).map(capFieldError);
  return body;
}

/** An error that carries a problem; thrown by handlers and rendered by the one error handler. */
export class ProblemError extends Error {
  readonly problem: Problem;
  /** Seconds for `Retry-After`, when the client may retry the same request later. */
  readonly retryAfter?: number;
  constructor(
    code: ProblemCode,
    detail: string,
    extra: { errors?: FieldError[]; retryAfter?: number; [k: string]: unknown } = {},
  ) {
    const { retryAfter, ...rest } = extra;
    super(capText(detail, MAX_DETAIL_CHARS));
    this.problem = problem(code, detail, rest);
    const fallback: number | undefined = (PROBLEMS[code] as ProblemType).retryAfter;
    if (retryAfter ?? fallback) this.retryAfter = retryAfter ?? fallback;
  }

  /** The error again from its body, as it crosses a thread (a parsing worker's answer). */
  static fromBody(body: Problem): ProblemError {
    const { type, title: _title, status: _status, detail, ...extra } = body;
    const code = type.slice(problemTypeUri('' as ProblemCode).length) as ProblemCode;
    const error = new ProblemError(code in PROBLEMS ? code : 'internal', detail, extra);
    // The body was built (and capped) by problem() already; capping it again would lose the lengths.
    if (code in PROBLEMS) (error as { problem: Problem }).problem = body;
    return error;
  }
}
