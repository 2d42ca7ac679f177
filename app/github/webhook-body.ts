// How a GitHub webhook's body is received (issue 31: unsigned 31 MiB bodies were read whole before the
// signature check; 60 at once held 2.3 GB). Before a byte of the body is read, a delivery without a
// well-formed `X-Hub-Signature-256` is refused (401) and one declaring more than WEBHOOK_MAX_BYTES too (413).
// While it arrives, the HMAC-SHA256 is computed chunk by chunk and the bytes count against one budget for all
// deliveries together (WEBHOOK_BUFFER_MAX_BYTES: 503 past it, GitHub redelivers); a body growing past
// WEBHOOK_MAX_BYTES is cut off with 413. The handler gets the text and whether the signature matched.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../../src/http/problems.js';

export interface WebhookBody {
  text: string;
  /** the body's HMAC-SHA256 under WEBHOOK_SECRET is the one `X-Hub-Signature-256` names */
  verified: boolean;
}

export interface WebhookBodyLimits {
  maxBytes: number;
  bufferMaxBytes: number;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** Installs, in `scope` only, the checks before the body and the verifying JSON body reader. */
export function registerWebhookBody(scope: FastifyInstance, secret: string, limits: WebhookBodyLimits): void {
  let buffered = 0;
  const held = new WeakMap<FastifyRequest, number>();
  const release = (request: FastifyRequest) => {
    buffered -= held.get(request) ?? 0;
    held.delete(request);
  };
  scope.addHook('onRequest', async (request) => {
    const signature = request.headers['x-hub-signature-256'];
    if (typeof signature !== 'string' || !SIGNATURE.test(signature))
      throw new ProblemError(
        'unauthorized',
        'the webhook has no X-Hub-Signature-256 of the form sha256=<64 hex>: refused before its body is read',
      );
    const declared = Number(request.headers['content-length']);
    if (declared > limits.maxBytes)
      throw new ProblemError(
        'payload-too-large',
        `the webhook body declares ${declared} bytes, more than WEBHOOK_MAX_BYTES=${limits.maxBytes}`,
      );
  });
  scope.addHook('onResponse', async (request) => release(request));
  scope.addHook('onRequestAbort', async (request) => release(request));
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (request, payload, done) => {
    const signature = SIGNATURE.exec(String(request.headers['x-hub-signature-256']))?.[1] ?? '';
    const mac = createHmac('sha256', secret);
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const finish = (error: Error | null, body?: WebhookBody) => {
      if (finished) return;
      finished = true;
      payload.removeAllListeners('data');
      if (error) {
        release(request);
        payload.resume();
      }
      done(error, body);
    };
    payload.on('data', (chunk: Buffer) => {
      if (finished) return;
      received += chunk.length;
      if (received > limits.maxBytes)
        return finish(
          new ProblemError(
            'payload-too-large',
            `the webhook body passes WEBHOOK_MAX_BYTES=${limits.maxBytes}`,
          ),
        );
      if (buffered + chunk.length > limits.bufferMaxBytes)
        return finish(
          new ProblemError(
            'unavailable',
            `webhook bodies being received hold WEBHOOK_BUFFER_MAX_BYTES=${limits.bufferMaxBytes}; redeliver later`,
          ),
        );
      buffered += chunk.length;
      held.set(request, (held.get(request) ?? 0) + chunk.length);
      mac.update(chunk);
      chunks.push(chunk);
    });
    payload.on('error', (error) => finish(error));
    payload.on('end', () => {
      const digest = mac.digest();
      const verified = signature !== '' && timingSafeEqual(digest, Buffer.from(signature, 'hex'));
      finish(null, { text: Buffer.concat(chunks, received).toString('utf8'), verified });
    });
  });
}
