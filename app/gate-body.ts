// The merge gate answers every report it cannot read with verdict `unknown` (200), naming the problem
// (DECISIONS: "A report the gate cannot analyse (empty, malformed, ...) is 200 with verdict unknown"), so
// the CLI and the Action exit 2, not 3. Fastify's JSON parser refuses a malformed body before the route
// runs; this route-level error handler turns that refusal into the route's own answer. Authentication ran
// before parsing (onRequest), so nothing is skipped. Any other error goes to the listener's handler.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { UnreadableReport } from '../src/gate/evaluate.js';
import { ProblemError, problemTypeUri } from '../src/http/problems.js';

const PARSE_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);
const MALFORMED = problemTypeUri('malformed-json');

export async function unreadableReportHandler(
  this: unknown,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  // The listener's JSON parser (app/plugins/http-base.ts) names where a body stops being JSON; a body
  // nested too deeply or naming a prototype key stays a 400: it is refused, not unreadable.
  if (error instanceof ProblemError && error.problem.type === MALFORMED) {
    request.body = new UnreadableReport(
      `not JSON: ${error.problem.detail.replace(/^request body is not valid JSON: /, '')}`,
    );
    return reply.send(await routeHandler(this, request, reply));
  }
  if (!PARSE_ERRORS.has(error.code)) throw error;
  request.body =
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
      ? undefined
      : new UnreadableReport(
          `not JSON (${error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, 'invalid JSON')})`,
        );
  return reply.send(await routeHandler(this, request, reply));
}

function routeHandler(self: unknown, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const handler = request.routeOptions.handler as (
    this: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<unknown>;
  return handler.call(self, request, reply);
}
