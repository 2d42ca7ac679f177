// Receives a request body's bytes. A large body with a declared length goes into a buffer that the
// listener keeps from request to request (one for bodies parsed here, one for bodies a worker reads),
// instead of fastify's list of socket chunks and their concatenation: those are ArrayBuffers outside V8's
// heap, held while the body arrives (long enough to be promoted), and V8 starts a full collection whenever
// such memory has grown by 64 MB since the last one. A 1M-node estate sent in 30 MiB reports then paid one
// full collection per report, each marking the whole graph (docs/perf.md, "Fifth session: external
// memory"). Socket chunks copied at once die young.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';

/** Bodies from this size on use the kept buffer (smaller ones cost nothing worth keeping). */
const KEEP_FROM = 1024 * 1024;

/**
 * The lent buffer grows in steps of this many bytes: reports cut at a size limit differ by a few bytes, and
 * each growth is a fresh buffer (the 1M estate's 30 MiB requests grew an exact-size buffer five times).
 */
const LEND_STEP = 4 * 1024 * 1024;

/**
 * Two reusable buffers per listener: one for bodies parsed here (`take`), one for bodies a worker reads in
 * place (`lend`). The first large body to arrive takes one, others meanwhile their own. A fresh buffer per
 * body counts as V8 external memory on the event loop until a collection frees it (a transfer to a worker
 * does not), and every 64 MB of it starts a full collection of the whole heap: with a fresh buffer per
 * worker-bound body, the 1M estate's service ran 18 full collections instead of 10 and was ready 20 % later
 * (docs/perf.md, "A body for a worker is read into a kept, shared buffer"). A kept buffer's pages are also
 * touched only once.
 */
export class BodyBuffer {
  private kept: Buffer | undefined;
  private busy = false;
  /** shared memory (a SharedArrayBuffer), which a worker reads without a copy or a transfer */
  private lent: Buffer | undefined;
  /** the current loan of `lent`; 0 while it is free */
  private loan = 0;
  private loans = 0;
  /** A loan not given back explicitly is given back once nothing holds its body (see lend). */
  private readonly unreached = new FinalizationRegistry<number>((loan) => this.giveBack(loan));

  /**
   * A buffer of at least `size` bytes for a body a worker will read in place, and how to give it back once
   * the worker has (its job settled). Shared memory: the worker reads it where it is. `holder` is the
   * object that carries the bytes on: should it be dropped without `release` (a request refused before it
   * reached a worker), the loan ends once it is collected, never while anything can still hand the bytes on.
   */
  lend(size: number): { bytes: Buffer; hold(holder: object): void; release(): void } {
    if (size < KEEP_FROM || this.loan)
      return { bytes: Buffer.allocUnsafeSlow(size), hold() {}, release() {} };
    if (!this.lent || this.lent.length < size)
      this.lent = Buffer.from(new SharedArrayBuffer(Math.ceil(size / LEND_STEP) * LEND_STEP));
    const loan = ++this.loans;
    this.loan = loan;
    return {
      bytes: this.lent,
      hold: (holder) => this.unreached.register(holder, loan),
      release: () => this.giveBack(loan),
    };
  }

  private giveBack(loan: number): void {
    if (this.loan === loan) this.loan = 0;
  }

  /**
   * A buffer of at least `size` bytes for one body; give it back with `release` once it was decoded. Shared
   * memory too, though no worker reads it: V8 counts an ArrayBuffer as the young generation's memory outside
   * the heap until it is promoted, and with 32 MiB of that every new buffer starts a scavenge first; it does
   * not count shared memory so (docs/perf.md, "Shared memory for chunks").
   */
  take(size: number): Buffer {
    if (size < KEEP_FROM || this.busy) return Buffer.allocUnsafe(size);
    if (!this.kept || this.kept.length < size) this.kept = Buffer.from(new SharedArrayBuffer(size));
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
  /**
   * Set when read as `own` asked (the listener's loan for worker-bound bodies, see BodyBuffer.lend, or bytes
   * of their own): names the object that carries the bytes on until `release`.
   */
  hold?(holder: object): void;
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
     * Read into the listener's buffer for worker-bound bodies (BodyBuffer.lend), or bytes of its own while
     * that one is lent: a body a worker is expected to read, which can then have these bytes without a
     * copy (a 30 MiB copy on the event loop, after the read).
     */
    own?: boolean;
  },
  done: (error: Error | null, body?: ReceivedBody) => void,
): void {
  const { limit, buffers } = options;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const sized = Number.isSafeInteger(declared) && declared > 0;
  const loan = sized && options.own ? buffers.lend(declared) : undefined;
  const target = loan ? loan.bytes : sized ? buffers.take(declared) : undefined;
  const giveBack = () => (loan ? loan.release() : target && buffers.release(target));
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
    if (error) giveBack();
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
    finish(null, {
      bytes,
      shared: buffers.isKept(target),
      release: giveBack,
      ...(loan && { hold: loan.hold }),
    });
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
