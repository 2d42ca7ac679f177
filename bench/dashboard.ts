// The dashboard in Debian's Chromium on large estates (issue 33; not a test: figures for docs/perf.md).
//   npx tsx bench/dashboard.ts [--runs 3] [--paths-only | --graph-only]
// 1. The paths page on an estate with 100,000 open paths (1,000 internet-facing load balancers → one
//    service → 100 databases): from navigation to the first rows drawn and the list scrollable (the first
//    page of 50, fetched while the session is read), to all 100,000 loaded, and a filter's answer over all
//    of them.
// 2. The graph view of a 2,050-node neighbourhood (1,999 load balancers → one service → 50 databases:
//    99,950 routes, the service's one-hop neighbourhood): building the view and drawing it (sigma.js,
//    WebGL through SwiftShader), and the whole navigation (the page asks the API for the neighbourhood).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { buildDashboardServer } from '../app/dashboard-server.js';
import { packageRoot } from '../app/package-root.js';
import { buildService } from '../app/service.js';
import { loadSettings } from '../src/config/settings.js';
import { nodeId } from '../src/graph/ids.js';
import { launchChromium } from '../test/helpers/browser.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
const logger = pino({ level: 'silent' });
const only = process.argv.includes('--paths-only')
  ? 'paths'
  : process.argv.includes('--graph-only')
    ? 'graph'
    : '';

function estate(starts: number, targets: number) {
  const node = (label: string, name: string, properties: Record<string, unknown> = {}) => ({
    id: nodeId(label as never, name),
    label,
    name,
    properties,
  });
  const hub = node('Service', 'hub');
  const lbs = Array.from({ length: starts }, (_, i) =>
    node('LoadBalancer', `lb-${i}`, { internet_exposed: true }),
  );
  const dbs = Array.from({ length: targets }, (_, i) => node('Database', `db-${i}`, { crown_jewel: true }));
  const edge = (type: string, from: { id: string }, to: { id: string }, p: number) => ({
    type,
    from: from.id,
    to: to.id,
    exploit_probability: p,
  });
  return {
    hub: hub.id,
    body: {
      source: 'bench',
      kind: 'asset',
      observed_at: '2026-11-01T00:00:00Z',
      nodes: [hub, ...lbs, ...dbs],
      edges: [
        ...lbs.map((lb, i) => edge('ROUTES_TO', lb, hub, 0.5 + (i % 50) / 100)),
        ...dbs.map((db) => edge('CONNECTS_TO', hub, db, 0.9)),
      ],
    },
  };
}

async function serve(starts: number, targets: number) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pathgate-bench-dashboard-'));
  const settings = loadSettings(
    { DATA_DIR: dir, ANALYZER_THREADS: '2', API_RATE_RPS: '100000', GRAPHQL_MAX_COST: '1000000' },
    { demoData: false },
  );
  const service = await buildService({ settings, logger });
  const { hub, body } = estate(starts, targets);
  await service.engine.ingest({ tenant: 'default', source: 'events', body, query: {} });
  await service.engine.drain();
  await service.engine.analyzeAll();
  const apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  const dashboard = buildDashboardServer({ logger, apiUrl: () => apiUrl });
  const url = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  const open = service.engine.tenant('default')?.paths.open().length ?? 0;
  return {
    url,
    hub,
    open,
    async close() {
      await dashboard.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const ms = (t: number) => `${t.toFixed(0)} ms`;

execFileSync(process.execPath, [path.join(packageRoot(), 'dashboard', 'build.mjs')], { stdio: 'inherit' });
const browser = await launchChromium();
try {
  if (only !== 'graph') {
    const estate100k = await serve(1000, 100);
    console.log(`paths page: ${estate100k.open.toLocaleString('en')} open paths`);
    const fields = process.env.BENCH_FIELDS ?? 'id score';
    for (const first of [1, 50, 200]) {
      const t = performance.now();
      const response = await fetch(`${estate100k.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ attackPaths(first: ${first}) { ${fields} } }` }),
      });
      await response.json();
      console.log(
        `  the API alone, attackPaths(first: ${first}) { ${fields} }: ${ms(performance.now() - t)}`,
      );
    }
    for (let i = 0; i < (process.env.BENCH_FIELDS ? 0 : runs); i++) {
      const page = await browser.newPage({ baseURL: estate100k.url, viewport: { width: 1280, height: 900 } });
      const t0 = performance.now();
      if (process.env.BENCH_TRACE) {
        page.on('request', (r) =>
          console.log(`    ${ms(performance.now() - t0)} → ${r.method()} ${r.url()}`),
        );
        page.on('requestfinished', (r) => console.log(`    ${ms(performance.now() - t0)} ← ${r.url()}`));
      }
      await page.goto('/paths', { waitUntil: 'commit' });
      await page.locator('.virtual li').first().waitFor();
      const firstRows = performance.now() - t0;
      await page.getByTestId('path-count').filter({ hasNotText: 'loading' }).waitFor({ timeout: 120_000 });
      const all = performance.now() - t0;
      const count = await page.getByTestId('path-count').textContent();
      const t1 = performance.now();
      await page.getByRole('textbox', { name: 'Start', exact: true }).fill('lb-77');
      await page
        .getByTestId('path-count')
        .filter({ hasText: /^1,100 of 100,000/ })
        .waitFor();
      const filtered = performance.now() - t1;
      const t2 = performance.now();
      // to the middle of the (unfiltered) list: row 50,000 is drawn
      await page.getByRole('textbox', { name: 'Start', exact: true }).fill('');
      await page
        .getByTestId('path-count')
        .filter({ hasText: /^100,000 of/ })
        .waitFor();
      await page.getByTestId('path-list').evaluate((el) => el.scrollTo(0, 36 * 50_000));
      await page.locator('.virtual li[data-index="50000"]').waitFor();
      const scrolled = performance.now() - t2;
      console.log(
        `  run ${i + 1}: first rows ${ms(firstRows)}, all loaded ${ms(all)} (${count}), filter over them ${ms(filtered)}, scroll ${ms(scrolled)}`,
      );
      await page.close();
    }
    await estate100k.close();
  }
  if (only !== 'paths') {
    const wide = await serve(1999, 50);
    console.log(`graph view: ${wide.open.toLocaleString('en')} open paths, the hub's one-hop neighbourhood`);
    for (let i = 0; i < runs; i++) {
      const page = await browser.newPage({ baseURL: wide.url, viewport: { width: 1280, height: 900 } });
      const t0 = performance.now();
      await page.goto(`/graph?node=${encodeURIComponent(wide.hub)}&depth=1`, { waitUntil: 'commit' });
      const drawn = page.locator('[data-draw-ms]');
      await drawn.waitFor({ state: 'attached', timeout: 120_000 });
      const total = performance.now() - t0;
      const nodes = await drawn.getAttribute('data-drawn');
      const draw = Number(await drawn.getAttribute('data-draw-ms'));
      // a second neighbourhood, one hop deeper: what "Expand one hop" costs (another neighbourhood query)
      // the next draw sets the attribute again
      await page.getByTestId('graph').evaluate((el) => {
        delete (el as unknown as { dataset: Record<string, string> }).dataset.drawMs;
      });
      const t1 = performance.now();
      await page.getByRole('button', { name: 'Expand one hop' }).click();
      await page.waitForURL(/depth=2/);
      await drawn.waitFor({ state: 'attached' });
      const expand = performance.now() - t1;
      console.log(
        `  run ${i + 1}: ${nodes} nodes built and drawn in ${ms(draw)}; navigation to drawn ${ms(total)} (the neighbourhood query included); expand one hop ${ms(expand)}`,
      );
      await page.close();
    }
    await wide.close();
  }
} finally {
  await browser.close();
}
