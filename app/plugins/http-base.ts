// What both listeners share: request ids, the 32 MiB body limit, problem+json for every error, and the
// 404 handler. Only app/service.ts listens; tests build the same app and call inject().
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { problem, ProblemError, type Problem } from '../../src/http/problems.js';

/** Spec limit: request bodies up to 32 MiB are accepted on ingest (and later the gate). */
export const BODY_LIMIT = 32 * 1024 * 1024;

/** An inbound X-Request-Id is honoured only when short and alphanumeric (dashes allowed, as in UUIDs). */
const INBOUND_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

export function createHttpApp(options: {
  logger: Logger;
  name: string;
  /** TLS_CERT_FILE / TLS_KEY_FILE contents: the listener serves HTTPS */
  https?: { cert: string; key: string };
}): FastifyInstance {
  // The HTTPS instance has another server type but the same API; the rest of the app does not care.
  const app = (Fastify as unknown as (o: object) => FastifyInstance)({
    ...(options.https && { https: options.https }),
    loggerInstance: options.logger.child({ listener: options.name }) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const inbound = req.headers['x-request-id'];
      return typeof inbound === 'string' && INBOUND_REQUEST_ID.test(inbound) ? inbound : crypto.randomUUID();
    },
    return503OnClosing: true,
  });
  // JSON only: fastify also parses text/plain by default, which would turn a wrong body into a 400.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problem('not-found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
    if (error instanceof ProblemError) return sendProblem(reply, error.problem);
    const fastifyError = error as FastifyError;
    const status = fastifyError.statusCode ?? 500;
    if (status >= 500) {
      // Details of server errors stay in the log.
      request.log.error({ err: error }, 'request failed');
      return sendProblem(reply, problem('internal', `internal error; quote request id ${request.id}`));
    }
    switch (fastifyError.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(
          reply,
          problem('payload-too-large', `request body exceeds ${BODY_LIMIT} bytes (32 MiB); split the report`),
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(
          reply,
          problem(
            'unsupported-media-type',
            `content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send application/json`,
          ),
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, problem('malformed-json', 'request body is empty; send a JSON document'));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(
          reply,
          problem('malformed-json', `request body is not valid JSON: ${fastifyError.message}`),
        );
    }
    if (error instanceof SyntaxError || fastifyError.code?.includes('JSON')) {
      return sendProblem(
        reply,
        problem('malformed-json', `request body is not valid JSON: ${error.message}`),
      );
    }
    if (status === 404) return sendProblem(reply, problem('not-found', fastifyError.message));
    if (status === 405) return sendProblem(reply, problem('method-not-allowed', fastifyError.message));
    return sendProblem(reply, { ...problem('invalid-payload', fastifyError.message), status });
  });
  return app;
}

export function sendProblem(
  reply: { code(n: number): unknown; type(t: string): unknown; send(b: unknown): unknown },
  body: Problem,
) {
  reply.code(body.status);
  reply.type('application/problem+json');
  return reply.send(body);
}
