// afterPendingIo: called from an I/O callback, it resolves only after what arrived meanwhile was read.
import { once } from 'node:events';
import { readFile } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { afterPendingIo } from '../../src/engine/io-turn.js';

const self = fileURLToPath(import.meta.url);
let close: (() => void) | undefined;
afterEach(() => close?.());

/** A loopback connection whose server side notes each read as 'data' in `order`. */
async function connection(order: string[]): Promise<net.Socket> {
  const server = net.createServer((socket) => socket.on('data', () => order.push('data')));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  await Promise.all([once(client, 'connect'), once(server, 'connection')]);
  close = () => {
    client.destroy();
    server.close();
  };
  return client;
}

/** In a file read's callback (a poll phase), sends a byte, waits until it is surely there, then yields. */
function fromIoCallback(client: net.Socket, yieldTurn: () => Promise<void>, order: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    readFile(self, (error) => {
      if (error) return reject(error);
      client.write('x');
      const until = performance.now() + 10;
      while (performance.now() < until);
      void yieldTurn().then(() => {
        order.push('after');
        resolve();
      });
    }),
  );
}

describe('afterPendingIo', () => {
  it('resolves after the data that arrived while an I/O callback ran has been read', async () => {
    const order: string[] = [];
    const client = await connection(order);
    await fromIoCallback(client, afterPendingIo, order);
    expect(order).toEqual(['data', 'after']);
  });

  it('is needed: one setImmediate from the same callback resolves before that data is read', async () => {
    const order: string[] = [];
    const client = await connection(order);
    await fromIoCallback(client, () => new Promise((resolve) => setImmediate(resolve)), order);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(['after', 'data']);
  });
});
