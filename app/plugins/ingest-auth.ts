// Ingest signatures on the ingest listener (src/auth/ingest-signature.ts). When secrets are configured,
// the body parsers hand over each body as received (its bytes are signed: `keepBody`), the cheap checks run before the body is read,
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
import type { Metrics } from '../../src/metrics/metrics.js';
import type { KeepBody } from './http-base.js';

export interface IngestAuth {
  enabled: boolean;
  /** The body parsers hand it each body's raw bytes: they are what is signed. */
  keepBody?: KeepBody;
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
    return { enabled: false, beforeBody() {}, verify: () => undefined };
  }
  const replay = new ReplayCache();
  const rawBodies = new WeakMap<FastifyRequest, Buffer>();
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
    keepBody: (request, body) => rawBodies.set(request, body),
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
