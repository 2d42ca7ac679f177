// Issue 32 item 8: GraphiQL loaded from a CDN (blank offline) and was off once API auth was on. It is now
// served from the graphiql, react and react-dom packages (app/graphql/graphiql.ts) and runs queries with a
// bearer token from its headers editor. Checked in Debian's chromium (playwright-core, never a downloaded
// browser) with every request off loopback blocked; skipped where /usr/bin/chromium is not installed.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { makeService, type TestService } from '../helpers/service.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'graphiql-offline-viewer-token-0123';

describe.runIf(existsSync(CHROMIUM))('GraphiQL offline, under API auth', () => {
  let svc: TestService;
  let browser: Browser;
  let origin: string;
  beforeAll(async () => {
    svc = await makeService({ API_TOKENS: `${TOKEN}:viewer` });
    expect(await loadDemo(svc)).toBe(true);
    await svc.settle();
    await svc.apiApp.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(svc.apiApp.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.dispose();
  });

  /** A page whose every request off loopback is refused and recorded. */
  async function offlinePage(storage: Record<string, string>) {
    const context = await browser.newContext();
    const blocked: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      blocked.push(url.href);
      return route.abort('internetdisconnected');
    });
    await context.addInitScript((entries) => {
      // Runs in the page, where localStorage exists (this file is typed for Node).
      const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } })
        .localStorage;
      for (const [key, value] of Object.entries(entries)) storage.setItem(key, value);
    }, storage);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    return { context, page, blocked, errors };
  }

  it('renders from bundled assets and runs a query with the bearer token from the headers editor', async () => {
    const { context, page, blocked, errors } = await offlinePage({
      'graphiql:query': '{ posture { openPaths } }',
      'graphiql:headers': JSON.stringify({ Authorization: `Bearer ${TOKEN}` }),
    });
    try {
      await page.goto(`${origin}/graphiql`);
      await page.locator('.graphiql-execute-button').click({ timeout: 20_000 });
      const result = page.locator('.result-window');
      await expect.poll(async () => result.innerText(), { timeout: 20_000 }).toMatch(/"openPaths": \d+/);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows nothing without a token: the page holds no data, and /graphql answers 401', async () => {
    const html = await (await fetch(`${origin}/graphiql`)).text();
    expect(html).not.toMatch(/openPaths|customer-exports|Bearer graphiql/);
    expect(html).toContain('Authorization');
    const { context, page, blocked } = await offlinePage({
      'graphiql:query': '{ posture { openPaths } }',
      'graphiql:headers': '{}',
    });
    try {
      await page.goto(`${origin}/graphiql`);
      await page.locator('.graphiql-execute-button').click({ timeout: 20_000 });
      const result = page.locator('.result-window');
      await expect.poll(async () => result.innerText(), { timeout: 20_000 }).toMatch(/unauthorized|401/i);
      expect(await result.innerText()).not.toMatch(/"openPaths": \d/);
      expect(blocked).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
