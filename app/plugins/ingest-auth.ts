// Ingest signatures on the ingest listener (src/auth/ingest-signature.ts). When secrets are configured,
// the JSON body is kept as received (its bytes are signed), the cheap checks run before the body is read,
// and the signature is verified before the report reaches a normalizer. The authenticated tenant is the
// one the report is routed to. Without secrets, ingest is open and X-Tenant is taken as sent.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  precheck,
  ReplayCache,
  SignatureError,
  signingEnabled,
  verify,
  type IngestSecrets,
} from '../../src/auth/ingest-signature.js';
import { ProblemError } from '../../src/http/problems.js';
import {
  NDJSON_CONTENT_TYPES,
  ndjsonToArray,
  YAML_CONTENT_TYPES,
  yamlToList,
} from '../../src/ingest/yaml.js';
import type { Metrics } from '../../src/metrics/metrics.js';

export interface IngestAuth {
  enabled: boolean;
  /** onRequest: refuses what can be refused without the body (no signature, stale time, unknown tenant). */
  beforeBody(request: FastifyRequest): void;
  /** verifies the signature over the body; returns the tenant it authenticates and the version used. */
  verify(request: FastifyRequest): { tenant: string; version: 'v1' | 'v2' } | undefined;
}

export function registerIngestAuth(
  app: FastifyInstance,
  deps: {
    secrets: IngestSecrets;
    metrics: Metrics;
    now: () => number;
    /** a presented signature failed (counts towards the client's lockout) */
    onFailure?: (request: FastifyRequest) => void;
    /** every refusal (the audit log's `auth.deny`) */
    onDeny?: (request: FastifyRequest, reason: string) => void;
  },
): IngestAuth {
  if (!signingEnabled(deps.secrets)) {
    registerTextBodies(app);
    return { enabled: false, beforeBody() {}, verify: () => undefined };
  }
  const replay = new ReplayCache();
  const rawBodies = new WeakMap<FastifyRequest, Buffer>();
  registerTextBodies(app, (request, body) => rawBodies.set(request, body));
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    rawBodies.set(request, body as Buffer);
    parseJson(request, (body as Buffer).toString('utf8'), done);
  });
  const refuse = (request: FastifyRequest, error: unknown): never => {
    if (!(error instanceof SignatureError)) throw error;
    deps.metrics.authDenied.inc({ surface: 'ingest', reason: error.reason });
    deps.onDeny?.(request, error.reason);
    // A missing signature is not a guess; a wrong one is.
    if (error.reason !== 'missing') deps.onFailure?.(request);
    throw new ProblemError('unauthorized', error.message, {
      errors: [{ pointer: '/headers/x-service-signature-v2', detail: error.message }],
      reason: error.reason,
    });
  };
  return {
    enabled: true,
    beforeBody(request) {
      try {
        precheck(
          deps.secrets,
          { method: request.method, url: request.url, headers: request.headers },
          deps.now(),
        );
      } catch (error) {
        refuse(request, error);
      }
    },
    verify(request) {
      try {
        const signed = verify(
          deps.secrets,
          {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: rawBodies.get(request) ?? Buffer.alloc(0),
          },
          replay,
          deps.now(),
        );
        deps.metrics.ingestSignatures.inc({ version: signed.version });
        return signed;
      } catch (error) {
        return refuse(request, error);
      }
    },
  };
}

/**
 * Multi-document YAML bodies (for /ingest/k8s) become one Kubernetes List, NDJSON bodies (for
 * /ingest/falco) an array; `keep` sees the raw bytes (they are what is signed).
 */
function registerTextBodies(
  app: FastifyInstance,
  keep?: (request: FastifyRequest, body: Buffer) => void,
): void {
  app.addContentTypeParser(NDJSON_CONTENT_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    keep?.(request, body as Buffer);
    try {
      done(null, ndjsonToArray((body as Buffer).toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser(YAML_CONTENT_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
    keep?.(request, body as Buffer);
    try {
      done(null, yamlToList((body as Buffer).toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
