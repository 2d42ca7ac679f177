// The dashboard in real Chromium (Debian's, through playwright-core) on the demo estate, signed in with
// tokens and through a real OpenID provider (oidc-provider) with PKCE. Every assertion reads the page the
// way a person would: text, roles, labels.
import { AxeBuilder } from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../app/service.js';
import { loadSettings } from '../../src/config/settings.js';
import { launchChromium, signInWithToken, watchedPage } from '../helpers/browser.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { tempDir } from '../helpers/service.js';

const ADMIN = 'admin-token-0123456789abcdef';
const VIEWER = 'viewer-token-0123456789abcdef';
const OTHER_TENANT = 'other-tenant-token-0123456789';
// bound to an application no demo node belongs to: it sees nothing (scoping fails closed)
const SCOPED = 'scoped-token-0123456789abcdef';

const GATED_SHA = '0123456789abcdef0123456789abcdef01234567';

let service: RunningService;
let provider: TestProvider;
let browser: Browser;
let dataDir: string;
let base: string;

async function api(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${service.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

beforeAll(async () => {
  // The pages under test are the sources as they are now (npm ci builds them too; this takes ~2 s).
  execFileSync(process.execPath, ['dashboard/build.mjs'], { stdio: 'inherit' });
  provider = await startOidcProvider();
  dataDir = await tempDir('pathgate-dashboard-');
  const settings = loadSettings(
    {
      DATA_DIR: dataDir,
      INGEST_ADDR: '127.0.0.1:0',
      API_ADDR: '127.0.0.1:0',
      DASHBOARD_ADDR: '127.0.0.1:0',
      ANALYZER_THREADS: '1',
      API_RATE_RPS: '1000',
      API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer,${OTHER_TENANT}:admin:other,${SCOPED}:viewer::2099-12-31:billing`,
      API_ANONYMOUS_ROLE: 'viewer',
      AUDIT_LOG_PATH: path.join(dataDir, 'audit.log'),
      ...provider.env,
    },
    { demoData: true },
  );
  service = await startService({ settings, demo: true, dashboard: true, logger: pino({ level: 'silent' }) });
  base = service.dashboardUrl!;
  // The demo names no application: one of its entry points joins "storefront" (the application filter's
  // test), and a commit of acme/shop is gated (the overview's latest verdicts).
  const { attackPaths } = await api('{ attackPaths { start { id label name } } }');
  const alb = (attackPaths as any[]).find((p) => p.start.name === 'shop-public-alb').start;
  await service.engine.ingest({
    tenant: 'default',
    source: 'events',
    body: {
      source: 'dashboard-test',
      kind: 'asset',
      observed_at: '2026-11-01T00:00:00Z',
      nodes: [{ ...alb, properties: { app: 'storefront' } }],
      edges: [],
    },
    query: {},
  });
  await service.engine.drain();
  await service.engine.analyzeAll();
  await service.engine.gateImpact(
    {
      tenant: 'default',
      body: {},
      query: { sha: GATED_SHA, slug: 'acme/shop', pr: '12' },
      attribution: 'report',
    },
    { persist: true },
  );
  provider.admit(base, { role: 'admin' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await provider?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The demo's highest open path with hops, as the API answers it. */
async function demoRoute() {
  const data = await api(`{ attackPaths(first: 20) { id critical directAccess nodes { name }
    steps { evidence { name } } } }`);
  return (data.attackPaths as any[]).find((p) => p.critical && !p.directAccess && p.steps.length >= 2);
}

describe('dashboard pages', () => {
  it('loads every page with no console error and no serious or critical axe violation', async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, ADMIN);
    const pages: [string, string][] = [
      ['/', 'Overview'],
      ['/paths', 'Attack paths'],
      [`/paths/${route.id}`, `${route.nodes[0].name} → ${route.nodes.at(-1).name}`],
      ['/graph', 'Graph'],
      ['/what-if', 'What-if and plan'],
      ['/gate', 'Merge gate'],
      ['/governance', 'Governance'],
    ];
    for (const [path, heading] of pages) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      const axe = await new AxeBuilder({ page }).analyze();
      const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${path}: ${v.id} ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
    }
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('answers a PUBLIC_URL link to /paths/<id> with the route: every hop by name, with its evidence', async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, VIEWER);
    await page.goto(`/paths/${route.id}`);
    const drawn = page.getByTestId('route');
    await drawn.waitFor();
    for (const node of route.nodes)
      await expect(drawn.getByText(node.name, { exact: true }).count()).resolves.toBe(1);
    const evidence = route.steps.flatMap((s: any) => s.evidence.map((e: any) => e.name));
    expect(evidence.length).toBeGreaterThan(0);
    for (const name of evidence)
      await expect(drawn.getByText(name, { exact: true }).count()).resolves.toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('takes a suppressed path out of the critical count and puts it back when the suppression goes', async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, ADMIN);
    const criticalCount = async () => {
      await page.goto('/');
      const tile = page.getByTestId('critical-count');
      await tile.waitFor();
      return Number((await tile.locator('.big').textContent())!.replace(/\D/g, ''));
    };
    const before = await criticalCount();
    expect(before).toBeGreaterThan(0);
    await page.goto(`/paths/${route.id}`);
    await page.getByLabel('Owner').fill('security-lead');
    await page.getByLabel('Note').fill('compensating WAF rule');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('status').filter({ hasText: 'Suppressed' }).waitFor();
    await page.getByTestId('suppression').filter({ hasText: 'active' }).waitFor();
    expect(await criticalCount()).toBe(before - 1);
    await page.goto(`/paths/${route.id}`);
    await page.getByRole('button', { name: 'Remove the suppression' }).click();
    await page.getByRole('status').filter({ hasText: 'Suppression removed' }).waitFor();
    expect(await criticalCount()).toBe(before);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the risk change of a what-if cut', async () => {
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, ADMIN);
    await page.goto('/what-if');
    const hops = page.getByRole('group', { name: 'Hops on the open critical routes' }).getByRole('checkbox');
    await hops.first().waitFor();
    const count = await hops.count();
    for (let i = 0; i < count; i++) await hops.nth(i).check();
    await page.getByRole('button', { name: /Simulate cutting/ }).click();
    await page.getByTestId('whatif-result').waitFor();
    const before = await page.getByTestId('risk-before').textContent();
    const after = await page.getByTestId('risk-after').textContent();
    expect(parseFloat(after!)).toBeLessThan(parseFloat(before!));
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('dashboard: applications, verdicts, the graph and the audit log', () => {
  it('filters the paths list by application, as the API says a path belongs to one', async () => {
    const { attackPaths } = await api('{ attackPaths(application: "storefront") { start { name } } }');
    expect(attackPaths.length).toBeGreaterThan(0);
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, VIEWER);
    await page.goto('/paths');
    await page.getByTestId('path-count').filter({ hasNotText: 'loading' }).waitFor();
    const everything = await page.getByTestId('path-count').textContent();
    await page.getByLabel('Application').selectOption('storefront');
    await page.waitForURL(/application=storefront/);
    const n = attackPaths.length;
    await page
      .getByTestId('path-count')
      .filter({ hasText: new RegExp(`^${n} of ${n} paths$`) })
      .waitFor();
    expect(everything).not.toBe(`${n} of ${n} paths`);
    const starts = await page.locator('.virtual li a').allTextContents();
    expect(starts.sort()).toEqual(attackPaths.map((p: any) => p.start.name).sort());
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the latest verdict of each repository on the overview, linking to the commit on the Gate page', async () => {
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, VIEWER);
    await page.goto('/');
    const table = page.getByTestId('latest-verdicts');
    await table.waitFor();
    const row = table.getByRole('row').filter({ hasText: 'acme/shop #12' });
    await row.getByRole('link').click();
    await page.waitForURL(new RegExp(`/gate\\?sha=${GATED_SHA}`));
    await page
      .getByTestId('verdict')
      .filter({ hasText: GATED_SHA.slice(0, 12) })
      .waitFor();
    await page.getByTestId('recent-verdicts').filter({ hasText: 'acme/shop' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('draws the neighbourhood the API answers, the route in red, and expands a node', async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, VIEWER);
    await page.goto(`/graph?path=${route.id}`);
    const summary = page.getByTestId('graph-summary');
    await summary.filter({ hasText: `within 2 hops of ${route.nodes.at(-1).name}` }).waitFor();
    await summary.filter({ hasText: `route of ${route.id}` }).waitFor();
    await page.locator('[data-draw-ms]').waitFor({ state: 'attached' });
    const before = Number(await page.getByTestId('graph').getAttribute('data-drawn'));
    await page.getByText('The nodes shown, as a list').click();
    await page
      .locator('.node-list')
      .getByRole('button', { name: /^Expand / })
      .nth(1)
      .click();
    await summary.filter({ hasText: 'and 1 expanded' }).waitFor();
    const after = Number(await page.getByTestId('graph').getAttribute('data-drawn'));
    expect(after).toBeGreaterThanOrEqual(before);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the audit log to an admin, with its chain verified, and not to a viewer', async () => {
    const admin = await watchedPage(browser, base);
    await signInWithToken(admin.page, ADMIN);
    await admin.page.goto('/governance');
    await admin.page.getByRole('heading', { level: 2, name: 'Audit log' }).waitFor();
    await admin.page.getByTestId('audit-chain').filter({ hasText: 'The chain verifies' }).waitFor();
    await admin.page.getByLabel('Action').selectOption('view.attack_paths');
    await admin.page
      .getByTestId('audit-log')
      .getByRole('cell', { name: 'view.attack_paths' })
      .first()
      .waitFor();
    // The unfiltered page holds view.attack_paths rows too: wait for the filtered answer to replace it.
    await admin.page
      .getByTestId('audit-log')
      .getByRole('cell', { name: 'request', exact: true })
      .first()
      .waitFor({ state: 'detached' });
    expect(
      await admin.page.getByTestId('audit-log').getByRole('cell', { name: 'request', exact: true }).count(),
    ).toBe(0);
    expect(admin.problems).toEqual([]);
    await admin.page.context().close();
    const viewer = await watchedPage(browser, base);
    await signInWithToken(viewer.page, VIEWER);
    await viewer.page.goto('/governance');
    await viewer.page.getByRole('heading', { level: 2, name: 'Exports' }).waitFor();
    await viewer.page.waitForLoadState('networkidle');
    expect(await viewer.page.getByRole('heading', { name: 'Audit log' }).count()).toBe(0);
    expect(await viewer.page.getByTestId('audit-log').count()).toBe(0);
    expect(viewer.problems).toEqual([]);
    await viewer.page.context().close();
  });
});

describe('dashboard sign-in and what each principal sees', () => {
  it('signs in through the OpenID provider with the authorization code and PKCE', async () => {
    const { page, problems } = await watchedPage(browser, base);
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    // oidc-provider's own development login and consent pages
    await page.waitForURL((url) => url.origin === provider.issuer);
    const authorize = new URL(page.url());
    await page.locator('input[name=login]').fill('lead@example.com');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page
      .locator('button[type=submit]')
      .filter({ hasText: /continue/i })
      .click();
    await page.waitForURL((url) => url.origin === new URL(base).origin && url.pathname === '/');
    await expect(page.getByTestId('who').textContent()).resolves.toContain('jwt:lead@example.com · admin');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(authorize.pathname).toMatch(/^\/interaction\//);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('asks no /auth/me it would be refused once it knows the API reads nothing anonymously', async () => {
    const dir = await tempDir('pathgate-dashboard-strict-');
    const settings = loadSettings(
      {
        DATA_DIR: dir,
        INGEST_ADDR: '127.0.0.1:0',
        API_ADDR: '127.0.0.1:0',
        DASHBOARD_ADDR: '127.0.0.1:0',
        ANALYZER_THREADS: '1',
        API_TOKENS: `${ADMIN}:admin`,
      },
      { demoData: false },
    );
    const strict = await startService({
      settings,
      demo: false,
      dashboard: true,
      logger: pino({ level: 'silent' }),
    });
    try {
      const { page, problems } = await watchedPage(browser, strict.dashboardUrl!);
      const asked: number[] = [];
      page.on('response', (r) => {
        if (new URL(r.url()).pathname.endsWith('/auth/me')) asked.push(r.status());
      });
      await page.goto('/');
      await page.getByRole('button', { name: 'Sign in with a token' }).waitFor();
      const firstVisit = asked.length;
      problems.length = 0;
      await page.goto('/paths');
      await page.getByRole('button', { name: 'Sign in with a token' }).waitFor();
      expect(asked.slice(firstVisit)).toEqual([]);
      expect(problems).toEqual([]);
      await signInWithToken(page, ADMIN);
      expect(asked.at(-1)).toBe(200);
      await page.context().close();
    } finally {
      await strict.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows a viewer and an anonymous reader no admin control', async () => {
    const route = await demoRoute();
    for (const token of [VIEWER, null]) {
      const { page, problems } = await watchedPage(browser, base);
      if (token) await signInWithToken(page, token);
      await page.goto(`/paths/${route.id}`);
      await page.getByTestId('route').waitFor();
      await expect(page.getByTestId('who').textContent()).resolves.toMatch(/viewer/);
      expect(await page.locator('[data-admin]').count()).toBe(0);
      for (const name of ['Suppress', 'Open a ticket', 'Record a validation', 'Open the fix pull request'])
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      await page.getByText('need the admin role').waitFor();
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it('shows a token scoped to applications only the paths through them', async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, SCOPED);
    await page.goto('/paths');
    await page
      .getByTestId('path-count')
      .filter({ hasText: /^0 of 0 paths$/ })
      .waitFor();
    await page.goto(`/paths/${route.id}`);
    await page.getByRole('heading', { level: 1, name: 'Attack path not found' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("answers another tenant's path id with not found", async () => {
    const route = await demoRoute();
    const { page, problems } = await watchedPage(browser, base);
    await signInWithToken(page, OTHER_TENANT);
    await page.goto(`/paths/${route.id}`);
    await page.getByRole('heading', { level: 1, name: 'Attack path not found' }).waitFor();
    expect(await page.getByText(route.nodes[0].name).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
