// Issue 31 item 6, on the embedded service (dry run: WEBHOOK_SECRET alone): a delivery replayed (same
// X-GitHub-Delivery) is taken once, also after a restart (the ids are kept under DATA_DIR); an older
// `opened` replayed under a new id does not move the pull request's head backwards; a delivery without a
// well-formed signature, or declaring a body over WEBHOOK_MAX_BYTES, is refused before its body is read, and
// one growing past it while it arrives is cut off.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const payloads = path.resolve(import.meta.dirname, '../../../shared/fixtures/real/github');
const SECRET = 'webhook-hardening-secret-0123456789';
const OLD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const NEW = '5b9e7a1f0c3d2e4b6a8c0e2f4a6b8d0c2e4f6a8b';
const env = { WEBHOOK_SECRET: SECRET, WEBHOOK_MAX_BYTES: '64KiB' };
let dataDir: string;
let service: TestService;

beforeAll(async () => {
  dataDir = await tempDir('pathgate-webhooks-');
  service = await makeService(env, { dataDir });
});
afterAll(() => service.dispose());

const payload = (file: string, edit?: (p: any) => void) => {
  const p = JSON.parse(readFileSync(path.join(payloads, file), 'utf8'));
  edit?.(p);
  return JSON.stringify(p);
};

async function deliver(s: TestService, id: string, body: string, event = 'pull_request') {
  return s.apiApp.inject({
    method: 'POST',
    url: '/api/github/webhooks',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-hub-signature-256': await sign(SECRET, body),
    },
    payload: body,
  });
}

/** Sends only the request head on a raw socket, and reads what comes back within `ms`. */
async function headOnly(url: string, head: string, ms = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (c) => (answer += c));
    socket.on('error', () => undefined);
    socket.write(head);
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, ms);
  });
}

describe('webhook deliveries (issue 31 item 6)', () => {
  it('a delivery replayed three times is taken once, and still refused after a restart', async () => {
    const body = payload('pull_request.opened.payload.json');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await deliver(service, 'replayed-delivery-1', body));
    expect(answers.map((a) => a.statusCode)).toEqual([202, 200, 200]);
    expect(answers[1].json()).toEqual({ received: 'replayed-delivery-1', duplicate: true });
    await service.github!.idle();
    await service.dispose({ keepData: true });
    service = await makeService(env, { dataDir });
    const again = await deliver(service, 'replayed-delivery-1', body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ duplicate: true });
    // Twin: a new delivery of the same event is taken.
    expect((await deliver(service, 'fresh-delivery-2', body)).statusCode).toBe(202);
  });

  it('an old `opened` replayed under a new id does not move the head backwards', async () => {
    const sync = payload('pull_request.synchronize.payload.json', (p) => {
      p.pull_request.head.sha = NEW;
      p.pull_request.updated_at = '2019-05-15T16:00:00Z';
    });
    expect((await deliver(service, 'head-sync-1', sync)).statusCode).toBe(202);
    expect(service.github!.headOf('Codertocat/Hello-World', 2)).toBe(NEW);
    const old = payload('pull_request.opened.payload.json');
    expect(JSON.parse(old).pull_request.head.sha).toBe(OLD);
    expect((await deliver(service, 'head-old-opened-2', old)).statusCode).toBe(202);
    expect(service.github!.headOf('Codertocat/Hello-World', 2)).toBe(NEW);
    // Twin: a newer synchronize moves it.
    const newer = payload('pull_request.synchronize.payload.json', (p) => {
      p.pull_request.updated_at = '2019-05-15T17:00:00Z';
    });
    expect((await deliver(service, 'head-newer-3', newer)).statusCode).toBe(202);
    expect(service.github!.headOf('Codertocat/Hello-World', 2)).toBe(OLD);
    await service.github!.idle();
  });

  it('an unsigned 31 MiB delivery is refused (401) before its body is sent', async () => {
    const url = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
    const answer = await headOnly(
      url,
      'POST /api/github/webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        `x-github-event: push\r\nx-github-delivery: big-1\r\ncontent-length: ${31 * 1024 * 1024}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(answer).toContain('X-Hub-Signature-256');
    // Signed-looking, but declaring more than WEBHOOK_MAX_BYTES (64 KiB here): 413, body unread.
    const declared = await headOnly(
      url,
      'POST /api/github/webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        `x-github-event: push\r\nx-github-delivery: big-2\r\nx-hub-signature-256: sha256=${'0'.repeat(64)}\r\n` +
        `content-length: ${31 * 1024 * 1024}\r\n\r\n`,
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
  });

  it('a body growing past WEBHOOK_MAX_BYTES while it arrives (chunked) is cut off with 413', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(200 * 1024) });
    const r = await service.apiApp.inject({
      method: 'POST',
      url: '/api/github/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': 'big-3',
        'x-hub-signature-256': await sign(SECRET, big),
        'transfer-encoding': 'chunked',
      },
      payload: big,
    });
    expect(r.statusCode).toBe(413);
    // Twin: a wrong signature on a small body is still 401 (checked once the body is in).
    const small = payload('pull_request.opened.payload.json');
    const wrong = await service.apiApp.inject({
      method: 'POST',
      url: '/api/github/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': 'wrong-sig-4',
        'x-hub-signature-256': await sign('another-secret', small),
      },
      payload: small,
    });
    expect(wrong.statusCode).toBe(401);
  });
});
