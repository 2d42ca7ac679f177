// The bench's client for report bodies: node:http, writing the body's bytes as they are, as curl sends a
// file. Global fetch (undici) copied each body into a buffer of its own before its first byte left: 35-50 ms
// of a 30 MiB request before the service saw its headers, measured beside this client (docs/perf.md), the
// client's cost and not the service's.
import http from 'node:http';

/** Kept-alive connections, as fetch keeps them (an idle one does not hold the bench's process open). */
const agent = new http.Agent({ keepAlive: true });

export interface Answer {
  status: number;
  text: string;
}

/** POSTs `body` to `url` and reads the whole answer. */
export function postBytes(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', ...headers, 'content-length': String(body.length) },
      },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
