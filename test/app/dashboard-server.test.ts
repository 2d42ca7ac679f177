// The dashboard listener without a browser: pages for every app route, files by name, and /api/* forwarded
// to the real API listener with the caller's Authorization unchanged (the API decides, never the proxy).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardServer } from '../../app/dashboard-server.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const TOKEN = 'viewer-token-0123456789abcdef';
let service: TestService;
let apiUrl: string;
let assets: string;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  service = await makeService({ API_TOKENS: `${TOKEN}:viewer` });
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  assets = await tempDir('pathgate-dashboard-assets-');
  await writeFile(path.join(assets, 'index.html'), '<!doctype html><title>pathgate</title>');
  await writeFile(path.join(assets, 'app.js'), 'console.log(1)');
});

afterAll(async () => {
  await service.dispose();
});

describe('dashboard listener', () => {
  it('answers every app route with the page (PUBLIC_URL/paths/<id> links), files by name, a missing file 404', async () => {
    const app = buildDashboardServer({ logger, apiUrl: () => apiUrl, assets });
    for (const url of ['/', '/paths/ap-0123456789abcdef', '/graph?node=x', '/auth/callback?code=1']) {
      const page = await app.inject({ url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('<title>pathgate</title>');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    }
    expect((await app.inject({ url: '/app.js' })).body).toBe('console.log(1)');
    expect((await app.inject({ url: '/nosuch.js' })).statusCode).toBe(404);
    await app.close();
  });

  it('forwards /api/* to the API listener with the Authorization header unchanged', async () => {
    const app = buildDashboardServer({ logger, apiUrl: () => apiUrl, assets });
    const me = await app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ role: 'viewer', anonymous: false });
    // the API refuses, not the proxy: the same 401 and challenge a direct call gets
    const anonymous = await app.inject({ url: '/api/auth/me' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    const wrong = await app.inject({
      url: '/api/auth/me',
      headers: { authorization: 'Bearer not-a-token-at-all-x' },
    });
    expect(wrong.statusCode).toBe(401);
    const graphql = await app.inject({
      method: 'POST',
      url: '/api/graphql',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: '{ posture { openPaths } }' }),
    });
    expect(graphql.json()).toEqual({ data: { posture: { openPaths: 0 } } });
    // a viewer's write is refused by the API's policy layer
    const write = await app.inject({
      method: 'POST',
      url: '/api/suppressions',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ pathId: 'ap-0123456789abcdef', reason: 'accept-risk', owner: 'x' }),
    });
    expect(write.statusCode).toBe(403);
    await app.close();
  });

  it('says the API is unavailable when it does not answer, and that the pages are not built when they are not', async () => {
    const empty = await tempDir('pathgate-dashboard-empty-');
    await mkdir(empty, { recursive: true });
    const app = buildDashboardServer({ logger, apiUrl: () => 'http://127.0.0.1:9', assets: empty });
    const down = await app.inject({ url: '/api/auth/config' });
    expect(down.statusCode).toBe(503);
    expect(down.json().detail).toBe('the API listener did not answer the dashboard');
    const page = await app.inject({ url: '/paths' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npm run build:dashboard');
    await app.close();
  });
});
