// Debian's Chromium driven by playwright-core (never a downloaded browser): installed with apt-get when
// missing, as scripts/services.sh does. Pages collect their console errors and failed requests so a test
// can say a page loaded cleanly.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const root = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]) =>
    execFileSync(root[0] ?? args[0], root.length ? args : args.slice(1), {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
}

export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // WebGL (sigma.js) through SwiftShader: headless Chromium has no GPU here.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}

export interface WatchedPage {
  page: Page;
  /** console errors, uncaught exceptions and failed requests seen so far */
  problems: string[];
}

export async function watchedPage(browser: Browser, baseURL: string): Promise<WatchedPage> {
  const context = await browser.newContext({ baseURL, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  // Only the dashboard's own pages count: an identity provider's login page is not ours to judge.
  const ours = () => new URL(page.url()).origin === new URL(baseURL).origin;
  page.on('console', (message) => {
    if (message.type() === 'error' && ours()) problems.push(`console: ${message.text()} (${page.url()})`);
  });
  page.on('pageerror', (error) => ours() && problems.push(`exception: ${error.message}`));
  page.on('requestfailed', (request) => {
    // a download the page hands to the browser is not a failure
    if (ours() && request.failure()?.errorText !== 'net::ERR_ABORTED')
      problems.push(`request failed: ${request.url()}`);
  });
  return { page, problems };
}

/** Signs in with an API token through the sign-in form. */
export async function signInWithToken(page: Page, token: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in with a token' }).click();
  await page.getByTestId('who').waitFor();
}
