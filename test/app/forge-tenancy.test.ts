// Forge writes are a tenant's own (issue 31, item 1). Two tenants share one GitHub App, against the
// stand-in GitHub on loopback: `victim/shop` belongs to the default tenant, `acme/app` to acme
// (REPO_ALLOWLIST=victim/shop,acme:acme/app). acme's operator gates a pull request of victim/shop, and acme's
// admin asks for a fix pull request on victim/shop (a node ingested with `repo_slug: victim/shop`): neither
// writes anything there, and both refusals are audited (`forge.refused`) and logged with slug and tenant.
// acme's own repository still gets its status, comment and fix pull request, and so does the default
// tenant's.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { gateEstate, KEV_CVE, LOW_CVE, trivyReport } from '../helpers/gate-estate.js';
import { GithubStandIn } from '../helpers/github-standin.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import { TenantRepos } from '../../src/forge/tenant-repos.js';
import { fixesFor } from '../../src/remediation/fixes.js';

const SECRET = 'forge-tenancy-webhook-secret';
const SHA = '9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a394f2a';
const ACME_OPERATOR = 'acme-operator-token-0123456789';
const ACME_ADMIN = 'acme-admin-token-0123456789abc';
const DEFAULT_OPERATOR = 'default-operator-token-012345';
const DEFAULT_ADMIN = 'default-admin-token-0123456789';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PACKAGE_JSON = '{\n  "name": "shop",\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n';

let github: GithubStandIn;
let service: TestService | undefined;
let logs: string[] = [];
let auditFile = '';
beforeAll(async () => {
  github = new GithubStandIn();
  await github.start();
  github.files.set('victim/shop:package.json', PACKAGE_JSON);
  github.files.set('acme/app:package.json', PACKAGE_JSON);
});
afterAll(async () => {
  await github.app.close();
});
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  logs = [];
  github.writes = [];
  github.statuses = [];
  github.comments = [];
});

async function start(): Promise<TestService> {
  const sink = new Writable({
    write(chunk, _e, done) {
      logs.push(String(chunk));
      done();
    },
  });
  auditFile = path.join(await tempDir('pathgate-forge-audit-'), 'audit.log');
  service = await makeService(
    {
      WEBHOOK_SECRET: SECRET,
      APP_ID: '4242',
      PRIVATE_KEY: PEM,
      FORGE_API_URL: github.url,
      REPO_ALLOWLIST: 'victim/shop,acme:acme/app',
      API_TOKENS: [
        `${ACME_OPERATOR}:operator:acme`,
        `${ACME_ADMIN}:admin:acme`,
        `${DEFAULT_OPERATOR}:operator`,
        `${DEFAULT_ADMIN}:admin`,
      ].join(','),
      AUDIT_LOG_PATH: auditFile,
    },
    { logger: pino({ level: 'info' }, sink) },
  );
  // Both tenants run the same estate: the gate has routes to judge, and the fix has a library to bump.
  for (const tenant of ['default', 'acme']) {
    await service.ingest(trivyReport([LOW_CVE]), { source: 'trivy', tenant });
    await service.ingest(gateEstate(), { tenant });
  }
  await service.settle();
  return service;
}

async function gate(s: TestService, token: string, slug: string, pr: number) {
  const r = await s.apiApp.inject({
    method: 'POST',
    url: `/gate/impact?source=trivy&slug=${slug}&pr=${pr}&sha=${SHA}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    payload: JSON.stringify(trivyReport([LOW_CVE, KEV_CVE])),
  });
  expect(r.statusCode, r.body).toBe(200);
  await s.github!.idle();
  return r.json();
}

/** Ingests, into a tenant, an image checkout runs, built from `repoSlug`, carrying lodash with a fixed CVE. */
async function lodashFrom(s: TestService, tenant: string, repoSlug: string) {
  const web = node('Service', 'checkout');
  const img = node('Image', `${repoSlug}:1.0`);
  const repo = node('Repository', `github.com/${repoSlug}`, { repo_slug: repoSlug });
  const lodash = node('Library', 'pkg:npm/lodash@4.17.20', {
    package: 'lodash',
    ecosystem: 'npm',
    version: '4.17.20',
  });
  const cve = node('CVE', 'CVE-2021-23337', { cvss_score: 7.2 });
  const r = await s.ingest(
    envelope(
      [web, img, repo, lodash, cve],
      [
        edge('DEPENDS_ON', web, img),
        edge('BUILT_FROM', img, repo),
        edge('DEPENDS_ON', img, lodash),
        { ...edge('AFFECTS', cve, lodash), properties: { fixed_version: '4.17.21' } },
      ],
    ),
    { tenant },
  );
  expect(r.status).toBe(202);
  await s.settle();
  const state = s.engine.tenant(tenant)!;
  const [path] = state.paths.open();
  const fix = fixesFor(path, state.graph).find((f) => f.repo === repoSlug)!;
  return { pathId: path.id, fix: fix.id };
}

async function fixPullRequest(s: TestService, token: string, ask: { pathId: string; fix: string }) {
  return s.apiApp.inject({
    method: 'POST',
    url: '/remediation/pr',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    payload: JSON.stringify(ask),
  });
}

const audited = () =>
  readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.event === 'forge.refused');
const refusalLogs = () =>
  logs.map((l) => JSON.parse(l)).filter((l) => /forge write refused/.test(l.msg ?? ''));

describe('forge writes are a tenant’s own', () => {
  it('refuses acme’s verdict on the default tenant’s repository, audited, and posts acme’s on its own', async () => {
    const s = await start();
    // acme's operator gates a pull request of victim/shop: nothing reaches that repository.
    expect((await gate(s, ACME_OPERATOR, 'victim/shop', 8)).verdict).toBe('blocked');
    expect(github.writesTo('victim/shop')).toEqual([]);
    expect(github.comments).toEqual([]);
    const [record] = audited();
    expect(record).toMatchObject({
      event: 'forge.refused',
      subject: 'gate-verdict',
      tenant: 'acme',
      fields: { slug: 'victim/shop', reason: 'repository of another tenant' },
    });
    expect(refusalLogs()[0]).toMatchObject({ slug: 'victim/shop', tenant: 'acme' });

    // acme's own repository gets its status and comment.
    expect((await gate(s, ACME_OPERATOR, 'acme/app', 3)).verdict).toBe('blocked');
    expect(github.statuses).toEqual([expect.objectContaining({ slug: 'acme/app', state: 'failure' })]);
    // The pull request's conversation: its summary and one comment per fix, all on acme/app.
    expect(github.comments.length).toBeGreaterThanOrEqual(1);
    expect(github.writesTo('acme/app').length).toBeGreaterThanOrEqual(2);
    expect(github.writes.filter((w) => w.slug !== '' && w.slug !== 'acme/app')).toEqual([]);

    // The default tenant's verdict on its own repository is posted.
    expect((await gate(s, DEFAULT_OPERATOR, 'victim/shop', 8)).verdict).toBe('blocked');
    expect(github.statuses.at(-1)).toMatchObject({ slug: 'victim/shop', state: 'failure' });
    // ...and the default tenant cannot post on acme's.
    await gate(s, DEFAULT_OPERATOR, 'acme/app', 3);
    expect(github.statuses.filter((st) => st.slug === 'acme/app')).toHaveLength(1);
    expect(audited().map((r) => [r.tenant, r.fields.slug])).toEqual([
      ['acme', 'victim/shop'],
      ['default', 'acme/app'],
    ]);
    // No secret in the refusal records or log lines.
    const said = JSON.stringify(audited()) + logs.join('');
    for (const secret of [ACME_OPERATOR, DEFAULT_OPERATOR, SECRET, 'ghs_standin_installation_token'])
      expect(said).not.toContain(secret);
    expect(said).not.toContain('PRIVATE KEY');
  });

  it('refuses acme’s fix pull request on the default tenant’s repository, and opens it on acme’s', async () => {
    const s = await start();
    const foreign = await lodashFrom(s, 'acme', 'victim/shop');
    const refused = await fixPullRequest(s, ACME_ADMIN, foreign);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().detail).toMatch(/victim\/shop is not a repository of tenant acme/);
    // No branch, commit or pull request, and not even a read of the other tenant's repository.
    expect(github.writesTo('victim/shop')).toEqual([]);
    expect(audited()).toEqual([
      expect.objectContaining({
        subject: expect.stringMatching(/^token:/),
        tenant: 'acme',
        fields: expect.objectContaining({ slug: 'victim/shop', reason: 'repository of another tenant' }),
      }),
    ]);
    expect(refusalLogs()).toEqual([expect.objectContaining({ slug: 'victim/shop', tenant: 'acme' })]);

    // The same fix for acme's own repository opens its branch, commit and pull request.
    const own = await lodashFrom(s, 'acme', 'acme/app');
    const opened = await fixPullRequest(s, ACME_ADMIN, own);
    expect(opened.statusCode, opened.body).toBe(201);
    expect(opened.json()).toMatchObject({ repo: 'acme/app', url: 'https://github.com/acme/app/pull/9' });
    expect(
      github.writesTo('acme/app').map((w) => `${w.method} ${w.url.split('/').slice(4).join('/')}`),
    ).toEqual(['POST git/refs', 'PUT contents/package.json', 'POST pulls']);
    // The default tenant's admin opens the fix on victim/shop, its own.
    const mine = await lodashFrom(s, 'default', 'victim/shop');
    const ok = await fixPullRequest(s, DEFAULT_ADMIN, mine);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(github.writesTo('victim/shop').map((w) => w.method)).toEqual(['POST', 'PUT', 'POST']);
  });

  it('never lets acme’s refused verdict stand in for the default tenant’s next one', async () => {
    const s = await start();
    // GitHub is slow: the default tenant's first update waits while listing comments.
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let listing = false;
    github.beforeList = () => {
      listing = true;
      return hold;
    };
    const post = (token: string, report: unknown) =>
      s.apiApp.inject({
        method: 'POST',
        url: `/gate/impact?source=trivy&slug=victim/shop&pr=8&sha=${SHA}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        payload: JSON.stringify(report),
      });
    try {
      expect((await post(DEFAULT_OPERATOR, trivyReport([LOW_CVE, KEV_CVE]))).json().verdict).toBe('blocked');
      for (let i = 0; i < 500 && !listing; i++) await new Promise((r) => setTimeout(r, 10));
      expect(listing).toBe(true);
      // While it waits, acme's verdict for the same commit is queued, then the default tenant's fix arrives.
      expect((await post(ACME_OPERATOR, trivyReport([LOW_CVE]))).statusCode).toBe(200);
      expect((await post(DEFAULT_OPERATOR, trivyReport([LOW_CVE]))).json().verdict).toBe('clean');
    } finally {
      release();
      github.beforeList = undefined;
    }
    await s.github!.idle();
    expect(github.statuses.map((st) => `${st.slug} ${st.state}`)).toEqual([
      'victim/shop failure',
      'victim/shop success',
    ]);
    expect(audited().map((r) => [r.tenant, r.fields.slug])).toEqual([['acme', 'victim/shop']]);
  });

  it('answers a webhook of acme’s repository from acme’s verdicts', async () => {
    const s = await start();
    await gate(s, ACME_OPERATOR, 'acme/app', 3);
    const before = github.statuses.length;
    await s.github!.refresh({ repo: { owner: 'acme', repo: 'app' }, number: 3, sha: SHA });
    await s.github!.idle();
    expect(github.statuses.slice(before)).toEqual([
      expect.objectContaining({ slug: 'acme/app', state: 'failure' }),
    ]);
    expect(audited()).toEqual([]);
  });
});

describe('REPO_ALLOWLIST per tenant', () => {
  it('gives bare entries to the default tenant and prefixed ones to theirs', () => {
    const repos = new TenantRepos(TenantRepos.parse('victim/shop, acme:acme/*, beta:Beta-Org/api'));
    expect(repos.allows('default', 'Victim/Shop')).toBe(true);
    expect(repos.allows('acme', 'victim/shop')).toBe(false);
    expect(repos.allows('acme', 'acme/anything')).toBe(true);
    expect(repos.allows('default', 'acme/anything')).toBe(false);
    expect(repos.tenantOf('beta-org/API')).toBe('beta');
    expect(repos.tenantOf('nobody/else')).toBeUndefined();
  });

  it('refuses a repository two tenants claim, and a malformed entry, naming it', () => {
    expect(() => TenantRepos.parse('victim/shop,acme:victim/shop')).toThrow(
      /acme:victim\/shop.*tenant "default" already has \(victim\/shop\)/,
    );
    expect(() => TenantRepos.parse('victim/*,acme:victim/shop')).toThrow(/one tenant/);
    expect(() => TenantRepos.parse('acme:victim/shop,victim/*')).toThrow(/one tenant/);
    expect(() => TenantRepos.parse('Bad Tenant:victim/shop')).toThrow(/not a tenant name/);
    expect(() => TenantRepos.parse('acme:victim')).toThrow(/neither owner\/repo nor owner\/\*/);
    // The same tenant may name a repository and its owner both.
    expect(() => TenantRepos.parse('acme:victim/*,acme:victim/shop')).not.toThrow();
  });
});
