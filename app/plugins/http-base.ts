// What both listeners share: request ids, the 32 MiB body limit, JSON bodies parsed and guarded (the
// position of a syntax error, nesting depth, prototype keys), problem+json for every error, and the 404
// handler. The ingest listener adds its report bodies (NDJSON, YAML on worker threads) with
// registerReportBodies. Only app/service.ts listens; tests build the same app and call inject().
import Fastify, {
  errorCodes,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { problem, ProblemError, type Problem } from '../../src/http/problems.js';
import { parseJsonBody, utf8Text } from '../../src/ingest/json-body.js';
import { cyclonedxXmlToJson, NotCycloneDxXml } from '../../src/ingest/cyclonedx-xml.js';
import { NDJSON_CONTENT_TYPES, ndjsonToArray, YAML_CONTENT_TYPES } from '../../src/ingest/yaml.js';
import type { YamlPool } from '../../src/ingest/yaml-pool.js';
import { RawJsonBody } from '../../src/ingest/report-pool.js';
import { BodyBuffer, receiveBody } from './body-buffer.js';

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
  registerJsonBody(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problem('not-found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
    if (error instanceof ProblemError) {
      if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
      return sendProblem(reply, error.problem);
    }
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

/** YAML_MAX_BYTES by default: YAML bodies over 8 MiB are refused (413). */
export const DEFAULT_YAML_MAX_BYTES = 8 * 1024 * 1024;

/** Sees each report body's raw bytes before parsing (signed ingest verifies them). */
export type KeepBody = (request: FastifyRequest, body: Buffer) => void;

/** Whether a JSON body of this many bytes is left unparsed, for an ingest worker (RawJsonBody). */
export type DeferBody = (request: FastifyRequest, bytes: number) => boolean;

/** Route config naming the setting behind a route's own body limit (the 413 names it). */
export interface BodyLimitConfig {
  bodyLimitSetting?: string;
}

/** Over a route's own limit: a 413 naming the setting and its value, not the listener's 32 MiB. */
function tooLarge(request: FastifyRequest, error: Error | null, limit: number): Error | null {
  const setting = (request.routeOptions.config as BodyLimitConfig | undefined)?.bodyLimitSetting;
  if (!setting || (error as FastifyError | null)?.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return error;
  return new ProblemError(
    'payload-too-large',
    `request body exceeds ${limit} bytes; ${setting} allows ${limit}`,
    { limit: setting, max: limit },
  );
}

/**
 * `application/json` through parseJsonBody: a syntax error names its line and column; the body is guarded.
 * A body `defer` names is left as bytes (RawJsonBody): an ingest worker parses it, with the same function.
 */
function registerJsonBody(app: FastifyInstance, options: { keep?: KeepBody; defer?: DeferBody } = {}): void {
  const { keep, defer } = options;
  const buffers = new BodyBuffer();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    // A route may hold its bodies to less (POST /graphql: GRAPHQL_MAX_BODY_BYTES), named in its config.
    const limit = Math.min(BODY_LIMIT, request.routeOptions.bodyLimit ?? BODY_LIMIT);
    // A body its declared length already defers is read into bytes of its own, which the worker takes over
    // without a copy (asked again once read: the answer may have changed meanwhile).
    const declared = Number(request.headers['content-length']);
    const readIntoOwn = !keep && declared > 0 && (defer?.(request, declared) ?? false);
    receiveBody(request, payload, { limit, buffers, own: readIntoOwn }, (failed, received) => {
      if (failed || !received) return done(tooLarge(request, failed, limit), undefined);
      const { bytes, shared, release, hold } = received;
      // The signature is checked later: it gets bytes of its own, not the listener's reused buffer.
      if (keep) keep(request, shared ? Buffer.from(bytes) : bytes);
      // No body at all stays fastify's own error, which routes tell apart (the gate reads it as no report).
      if (bytes.length === 0) {
        release();
        return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
      }
      if (defer?.(request, bytes.length)) {
        // Read for a worker (the loan, or bytes of its own): it reads them as they are, and they go back
        // once it has (RawJsonBody.release). Otherwise copied: the kept buffer is the next body's.
        if (hold) {
          const body = new RawJsonBody(bytes, release);
          hold(body);
          return done(null, body);
        }
        const body = new RawJsonBody(new Uint8Array(bytes));
        release();
        return done(null, body);
      }
      let text: string;
      try {
        text = utf8Text(bytes);
      } finally {
        release();
      }
      try {
        done(null, parseJsonBody(text, { keepText: true }));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  });
}

/**
 * The ingest listener's report bodies: JSON (again, when `keep` wants the raw bytes), NDJSON (for
 * /ingest/falco) as an array, and multi-document YAML (for /ingest/k8s) as one Kubernetes List, parsed on
 * `yaml`'s worker threads and refused over `yamlMaxBytes` (YAML_MAX_BYTES) with 413.
 */
export function registerReportBodies(
  app: FastifyInstance,
  options: { yaml: YamlPool; yamlMaxBytes: number; keep?: KeepBody; defer?: DeferBody },
): void {
  const { keep, defer, yaml, yamlMaxBytes } = options;
  if (keep || defer) registerJsonBody(app, { keep, defer });
  app.addContentTypeParser(NDJSON_CONTENT_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    keep?.(request, body as Buffer);
    try {
      done(null, ndjsonToArray((body as Buffer).toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // A CycloneDX XML BOM (`bom.xml`), read as its JSON twin; any other XML is a 400 naming what it is.
  app.addContentTypeParser(XML_CONTENT_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    keep?.(request, body as Buffer);
    try {
      done(null, cyclonedxXmlToJson((body as Buffer).toString('utf8')));
    } catch (error) {
      done(
        error instanceof NotCycloneDxXml
          ? new ProblemError('invalid-payload', `the XML body is ${error.message}`, {
              errors: [{ pointer: '/', detail: error.message }],
            })
          : (error as Error),
        undefined,
      );
    }
  });
  const tooLarge = (size: number) =>
    new ProblemError(
      'payload-too-large',
      `the YAML body is ${size} bytes, over YAML_MAX_BYTES (${yamlMaxBytes}); YAML is read many times slower than JSON, so send a large report as JSON (up to ${BODY_LIMIT} bytes) or split it`,
      { limit: yamlMaxBytes, size },
    );
  // A declared length over the limit is refused before the body is read.
  app.addHook('preParsing', async (request, _reply, payload) => {
    const declared = Number(request.headers['content-length']);
    if (declared > yamlMaxBytes && YAML_CONTENT_TYPES.includes(mediaType(request))) throw tooLarge(declared);
    return payload;
  });
  app.addContentTypeParser(
    YAML_CONTENT_TYPES,
    { parseAs: 'buffer' },
    async (request: FastifyRequest, body: string | Buffer) => {
      const bytes = body as Buffer;
      keep?.(request, bytes);
      // A chunked body has no declared length: counted once read.
      if (bytes.length > yamlMaxBytes) throw tooLarge(bytes.length);
      return yaml.parse(bytes);
    },
  );
}

/** The media types of an XML body: CycloneDX's own, and XML's. */
const XML_CONTENT_TYPES = ['application/vnd.cyclonedx+xml', 'application/xml', 'text/xml'];

/** The request's media type, lower-cased, without parameters. */
const mediaType = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

export function sendProblem(
  reply: { code(n: number): unknown; type(t: string): unknown; send(b: unknown): unknown },
  body: Problem,
) {
  reply.code(body.status);
  reply.type('application/problem+json');
  return reply.send(body);
}
