// JSON bodies received into the listener's reused buffer (app/plugins/body-buffer.ts): every body reads as
// sent, whatever came before it or arrives beside it, and fastify's own limits and errors hold.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { BodyBuffer, receiveBody, type ReceivedBody } from '../../app/plugins/body-buffer.js';
import { BODY_LIMIT, createHttpApp } from '../../app/plugins/http-base.js';
import { fullCollection } from '../../src/workers/full-collection.js';

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = createHttpApp({ logger: pino({ level: 'silent' }), name: 'test' });
  // Answers what it parsed: the item count and a digest-like sum, so a stale or mixed byte shows.
  app.post('/echo', async (request) => {
    const body = request.body as { tag: string; items: string[] };
    return { tag: body.tag, items: body.items.length, chars: body.items.reduce((n, s) => n + s.length, 0) };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
});

/** A JSON body of about `bytes` bytes, with multi-byte characters. */
function body(tag: string, bytes: number, fill = 'ü') {
  const item = `${fill.repeat(500)}${tag}`;
  const items = Array.from({ length: Math.ceil(bytes / (item.length * 2 + 3)) }, () => item);
  return { text: JSON.stringify({ tag, items }), items: items.length, chars: items.length * item.length };
}

/** POSTs `text` over a real socket; `beforeEnd` runs after all but the last 1,000 bytes are written. */
function post(
  text: string,
  options: { beforeEnd?: () => Promise<void>; length?: number } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const bytes = Buffer.from(text);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/echo',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': options.length ?? bytes.length },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(answer) }));
      },
    );
    request.on('error', reject);
    const split = Math.max(0, bytes.length - 1000);
    request.write(bytes.subarray(0, split));
    void (options.beforeEnd?.() ?? Promise.resolve()).then(() => request.end(bytes.subarray(split)));
  });
}

describe('JSON bodies through the reused receive buffer', () => {
  it('reads a large body, then a shorter one, then a larger one, each as sent', async () => {
    for (const [tag, size, fill] of [
      ['a', 3_000_000, 'ü'],
      ['b', 1_200_000, 'x'],
      ['c', 5_000_000, '€'],
    ] as const) {
      const sent = body(tag, size, fill);
      const answer = await post(sent.text);
      expect(answer).toEqual({ status: 200, json: { tag, items: sent.items, chars: sent.chars } });
    }
  });

  it('gives a body arriving while another holds the buffer its own bytes', async () => {
    const first = body('first', 2_000_000, 'ü');
    const second = body('second', 3_000_000, '€');
    let secondAnswer: Promise<{ status: number; json: Record<string, unknown> }> | undefined;
    // The first body is all but finished when the second is sent whole; only then does the first end.
    const firstAnswer = post(first.text, {
      beforeEnd: async () => {
        secondAnswer = post(second.text);
        await secondAnswer;
      },
    });
    expect(await firstAnswer).toEqual({
      status: 200,
      json: { tag: 'first', items: first.items, chars: first.chars },
    });
    expect(await secondAnswer).toEqual({
      status: 200,
      json: { tag: 'second', items: second.items, chars: second.chars },
    });
  });

  it('refuses a declared length over the limit with 413 before reading it', async () => {
    const answer = await post('{}', { length: BODY_LIMIT + 1 }).catch((error: Error) => error);
    // The server answers and closes without reading the body; the answer is the 413.
    if (answer instanceof Error) expect(answer.message).toMatch(/socket|ECONNRESET|EPIPE/);
    else expect(answer).toMatchObject({ status: 413, json: { title: expect.any(String), status: 413 } });
  });

  it('refuses a small JSON syntax error in a large body with its position, and reads the next body whole', async () => {
    const sent = body('z', 1_500_000);
    const broken = `${sent.text.slice(0, -2)}x]}`;
    const refused = await post(broken);
    expect(refused.status).toBe(400);
    expect(String(refused.json.detail)).toMatch(/line 1, column \d+/);
    const next = body('after', 1_100_000);
    expect((await post(next.text)).json).toEqual({ tag: 'after', items: next.items, chars: next.chars });
  });
});

/** A 3,000,000-byte body being received from `payload`, by a listener whose kept buffer is free. */
function receiving(options: { own?: boolean } = {}) {
  const buffers = new BodyBuffer();
  const kept = buffers.take(3_000_000);
  buffers.release(kept);
  const payload = new PassThrough();
  const request = { headers: { 'content-length': '3000000' } } as never;
  const answer = new Promise<[Error | null, ReceivedBody | undefined]>((resolve) =>
    receiveBody(request, payload, { limit: BODY_LIMIT, buffers, ...options }, (error, body) =>
      resolve([error, body]),
    ),
  );
  return { buffers, kept, payload, answer };
}

describe('BodyBuffer', () => {
  it('hands its one buffer to one large body at a time, fresh ones to the rest', () => {
    const buffers = new BodyBuffer();
    const small = buffers.take(100);
    const first = buffers.take(2_000_000);
    // Shared memory, which V8 does not count against its young generation's outside memory.
    expect(first.buffer).toBeInstanceOf(SharedArrayBuffer);
    const second = buffers.take(2_000_000);
    expect(second).not.toBe(first);
    expect(buffers.take(10)).not.toBe(small);
    buffers.release(second);
    buffers.release(first);
    // Given back: the next large body reuses it, grown when it needs more.
    expect(buffers.take(1_500_000)).toBe(first);
    buffers.release(first);
    const grown = buffers.take(3_000_000);
    expect(grown).not.toBe(first);
    expect(grown.length).toBeGreaterThanOrEqual(3_000_000);
  });

  it('reads a body meant for a worker into the shared buffer it lends, leaving the kept buffer free', async () => {
    const { buffers, kept, payload, answer } = receiving({ own: true });
    const sent = Buffer.alloc(3_000_000, 0x61);
    sent.write('{"x":', 0);
    payload.end(sent);
    const [error, body] = await answer;
    expect(error).toBeNull();
    expect(body!.shared).toBe(false);
    expect(body!.hold).toBeDefined();
    expect(body!.bytes.equals(sent)).toBe(true);
    // Shared memory: a worker reads it where it is, without a copy or a transfer.
    expect(body!.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(body!.bytes.buffer).not.toBe(kept.buffer);
    // The kept buffer was not touched: the next large body still gets it.
    expect(buffers.take(3_000_000)).toBe(kept);
    // Lent until given back: a body meanwhile gets bytes of its own; after, the same memory again.
    const meanwhile = buffers.lend(3_000_000);
    expect(meanwhile.bytes.buffer).not.toBe(body!.bytes.buffer);
    body!.release();
    expect(buffers.lend(3_000_000).bytes.buffer).toBe(body!.bytes.buffer);
  });

  it('lends its shared buffer to one body at a time, fresh bytes of their own to the rest', () => {
    const buffers = new BodyBuffer();
    const first = buffers.lend(2_000_000);
    expect(first.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const second = buffers.lend(2_000_000);
    // Its own, whole: a worker takes it over as it is.
    expect(second.bytes.buffer).toBeInstanceOf(ArrayBuffer);
    expect(second.bytes.byteOffset).toBe(0);
    expect(second.bytes.buffer.byteLength).toBe(2_000_000);
    // Small bodies never borrow it.
    expect(buffers.lend(1000).bytes.buffer).not.toBe(first.bytes.buffer);
    second.release();
    expect(buffers.lend(1_000_000).bytes.buffer).not.toBe(first.bytes.buffer);
    first.release();
    // Grown in steps: a body a little larger than the first still fits.
    const again = buffers.lend(2_500_000);
    expect(again.bytes.buffer).toBe(first.bytes.buffer);
    // A loan given back twice, or an earlier loan's late release, does not end the loan after it.
    first.release();
    expect(buffers.lend(1_500_000).bytes.buffer).not.toBe(first.bytes.buffer);
    again.release();
    const grown = buffers.lend(5_000_000);
    expect(grown.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(grown.bytes.length).toBeGreaterThanOrEqual(5_000_000);
  });

  it('ends a loan once the object holding its bytes is collected, and not while it is held', async () => {
    const gc = fullCollection();
    expect(gc).toBeDefined();
    const buffers = new BodyBuffer();
    const held = { name: 'a request still on its way to a worker' };
    const kept = buffers.lend(2_000_000);
    kept.hold(held);
    // A holder dropped without a release (a request refused before it reached a worker).
    const lendDropped = () => {
      const loan = buffers.lend(2_000_000);
      loan.hold({ name: 'dropped' });
      return loan.bytes.buffer;
    };
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        gc!();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    // Held: still lent after collections.
    await settle();
    expect(buffers.lend(2_000_000).bytes.buffer).not.toBe(kept.bytes.buffer);
    expect(held.name).toBeTruthy();
    kept.release();
    const lent = lendDropped();
    expect(lent).toBe(kept.bytes.buffer);
    await settle();
    // Its holder collected: given back.
    expect(buffers.lend(2_000_000).bytes.buffer).toBe(lent);
  });

  it('gets its buffer back from a body whose client went away before the end', async () => {
    const { buffers, kept, payload, answer } = receiving();
    payload.write(Buffer.alloc(2_000_000, 0x20));
    await new Promise((resolve) => setImmediate(resolve));
    payload.destroy();
    const [error, body] = await answer;
    expect(body).toBeUndefined();
    expect(error).toMatchObject({ statusCode: 400 });
    expect(buffers.take(3_000_000)).toBe(kept);
  });
});
