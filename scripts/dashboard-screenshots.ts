// The screenshots in docs/dashboard.md: the demo estate served with its dashboard, photographed by the same
// Debian Chromium the browser tests drive. `npx tsx scripts/dashboard-screenshots.ts` rewrites
// docs/images/dashboard-*.png.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startService } from '../app/service.js';
import { packageRoot } from '../app/package-root.js';
import { loadSettings } from '../src/config/settings.js';
import { launchChromium } from '../test/helpers/browser.js';

const root = packageRoot();
execFileSync(process.execPath, [path.join(root, 'dashboard', 'build.mjs')], { stdio: 'inherit' });
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pathgate-shots-'));
const settings = loadSettings(
  {
    DATA_DIR: dataDir,
    INGEST_ADDR: '127.0.0.1:0',
    API_ADDR: '127.0.0.1:0',
    DASHBOARD_ADDR: '127.0.0.1:0',
    ANALYZER_THREADS: '1',
  },
  { demoData: true },
);
const service = await startService({
  settings,
  demo: true,
  dashboard: true,
  logger: pino({ level: 'warn' }),
});
const browser = await launchChromium();
try {
  const page = await browser.newPage({
    baseURL: service.dashboardUrl,
    viewport: { width: 1280, height: 900 },
  });
  const shot = async (url: string, name: string, ready: () => Promise<unknown>) => {
    await page.goto(url);
    await ready();
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(500);
    const file = path.join(root, 'docs', 'images', `dashboard-${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    process.stdout.write(`wrote ${path.relative(root, file)}\n`);
  };
  await shot('/', 'overview', () => page.getByText('Chance that at least one crown jewel falls').waitFor());
  const paths = await fetch(`${service.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ attackPaths(first: 10) { id directAccess critical } }' }),
  }).then(
    (r) =>
      r.json() as Promise<{
        data: { attackPaths: { id: string; directAccess: boolean; critical: boolean }[] };
      }>,
  );
  const route = paths.data.attackPaths.find((p) => p.critical && !p.directAccess)!;
  await shot(`/paths/${route.id}`, 'path', () => page.getByTestId('route').waitFor());
  await shot(`/graph?depth=3&path=${route.id}`, 'graph', () =>
    page.locator('[data-drawn]').waitFor({ state: 'attached' }),
  );
} finally {
  await browser.close();
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
