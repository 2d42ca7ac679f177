// Receives a request body's bytes. A large body with a declared length goes into one buffer that the
// listener keeps from request to request, instead of fastify's list of socket chunks and their
// concatenation: those are ArrayBuffers outside V8's heap, held while the body arrives (long enough to
// be promoted), and V8 starts a full collection whenever such memory has grown by 64 MB since the last
// one. A 1M-node estate sent in 30 MiB reports then paid one full collection per report, each marking
// the whole graph (docs/perf.md, "Fifth session: external memory"). Socket chunks copied at once die
// young.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';

/** Bodies from this size on use the kept buffer (smaller ones cost nothing worth keeping). */
const KEEP_FROM = 1024 * 1024;

/** One reusable buffer per listener: the first large body to arrive takes it, others meanwhile their own. */
export class BodyBuffer {
  private kept: Buffer | undefined;
  private busy = false;

  /** A buffer of at least `size` bytes for one body; give it back with `release` once it was decoded. */
  take(size: number): Buffer {
    if (size < KEEP_FROM || this.busy) return Buffer.allocUnsafe(size);
    if (!this.kept || this.kept.length < size) this.kept = Buffer.allocUnsafeSlow(size);
    this.busy = true;
    return this.kept;
  }

  release(buffer: Buffer): void {
    if (buffer === this.kept) this.busy = false;
  }

  /** Whether `buffer` is the kept one (bytes in it are overwritten by a later body). */
  isKept(buffer: Buffer): boolean {
    return buffer === this.kept;
  }
}

/** What a body parser is handed: the bytes, and how to give them back. */
export interface ReceivedBody {
  bytes: Buffer;
  /** The bytes are in the listener's kept buffer: valid only until `release`. */
  shared: boolean;
  release(): void;
}

/**
 * Reads `payload` whole, with fastify's own checks and errors: over `limit` bytes (declared or received)
 * 413, a length other than the declared one 400, a stream error 400.
 */
export function receiveBody(
  request: FastifyRequest,
  payload: IncomingMessage | Readable,
  options: {
    limit: number;
    buffers: BodyBuffer;
    /**
     * Read into a buffer of the body's own, not the kept one: a body a worker is expected to take over,
     * which can then have these bytes without a copy (a 30 MiB copy on the event loop, after the read).
     */
    own?: boolean;
  },
  done: (error: Error | null, body?: ReceivedBody) => void,
): void {
  const { limit, buffers } = options;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const target =
    Number.isSafeInteger(declared) && declared > 0
      ? options.own
        ? Buffer.allocUnsafeSlow(declared)
        : buffers.take(declared)
      : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  const encoded = () => (payload as { receivedEncodedLength?: number }).receivedEncodedLength;
  let finished = false;
  const finish = (error: Error | null, body?: ReceivedBody) => {
    if (finished) return;
    finished = true;
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
    payload.removeListener('close', onClose);
    if (error && target) buffers.release(target);
    done(error, body);
  };
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const at = received;
    received += bytes.length;
    if (received > limit || (encoded() ?? 0) > limit)
      return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    if (!target) chunks.push(bytes);
    // More than declared: the end reports the mismatch; nothing is written past the buffer meanwhile.
    else if (received <= declared) bytes.copy(target, at);
  }
  function onEnd(error?: Error & { statusCode?: number }) {
    if (error) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      return finish(error);
    }
    if (!Number.isNaN(declared) && (encoded() || received) !== declared)
      return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    if (!target) return finish(null, { bytes: Buffer.concat(chunks, received), shared: false, release() {} });
    const bytes = target.subarray(0, received);
    finish(null, { bytes, shared: buffers.isKept(target), release: () => buffers.release(target) });
  }
  // A client gone before the end: the buffer is given back (no answer reaches it anyway).
  function onClose() {
    const error: Error & { statusCode?: number } = new Error('the request body ended before it was complete');
    error.statusCode = 400;
    finish(error);
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.on('close', onClose);
  payload.resume();
}
