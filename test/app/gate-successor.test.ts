// The README's workflow against the demo estate: the pull request's image is built and scanned as
// `ghcr.io/<repo>:<head sha>` while the estate runs `ghcr.io/acme/checkout-api:1.14.2`. The gate evaluates
// the new image in place of the running one (successor images, docs/gate.md): a critical CVE the PR adds
// blocks and names the route; the Spring4Shell fix is clean and reports the route as improved; an image of
// a repository the estate does not run stays unknown. Through the listening API, with the query the Action
// sends (source, slug, pr, sha), and the live graph unchanged after every call.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderText, requestGate } from '../../app/gate-client.js';
import { DEMO_DIR, loadDemo } from '../../app/service.js';
import { makeService, type TestService } from '../helpers/service.js';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const LIVE_TAG = 'ghcr.io/acme/checkout-api:1.14.2';
const LOG4SHELL = {
  VulnerabilityID: 'CVE-2021-44228',
  PkgName: 'org.apache.logging.log4j:log4j-core',
  InstalledVersion: '2.14.1',
  FixedVersion: '2.15.0',
  Severity: 'CRITICAL',
  CVSS: { nvd: { V3Score: 10 } },
};
const APT_LOW = {
  VulnerabilityID: 'CVE-2011-3374',
  PkgName: 'apt',
  InstalledVersion: '2.6.1',
  Status: 'affected',
  Severity: 'LOW',
  CVSS: { nvd: { V3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:L/A:N', V3Score: 3.7 } },
};
let service: TestService;
let apiUrl: string;
let demoScan: any;

/** The demo image's real scan, as Trivy prints it for the PR's build tagged by the head SHA. */
function prScan(edit: (scan: any) => void = () => {}, image = `ghcr.io/acme/checkout-api:${SHA}`) {
  const scan = JSON.parse(JSON.stringify(demoScan).replaceAll(LIVE_TAG, image));
  delete scan.Metadata.RepoDigests;
  edit(scan);
  return JSON.stringify(scan);
}

/** What the Action sends (README, "Merge gate"): the slug, PR number and head SHA from the event. */
const ask = (report: string, slug = 'acme/checkout-api') =>
  requestGate({ apiUrl, report, query: { source: 'trivy', slug, pr: '7', sha: SHA } });

function liveState() {
  const state = service.engine.tenant('default')!;
  const edges: unknown[] = [];
  state.graph.forEachEdge((_k, a, s, t) => edges.push([a.type, s, t, a.p, a.joinConfidence]));
  return JSON.stringify({
    edges,
    order: state.graph.order,
    paths: state.paths.open().map((p) => [p.id, p.score]),
  });
}

beforeAll(async () => {
  service = await makeService();
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  expect(await loadDemo(service)).toBe(true);
  await service.settle();
  demoScan = JSON.parse(await readFile(path.join(DEMO_DIR, 'trivy-checkout-api.json'), 'utf8'));
});
afterAll(() => service.dispose());

describe('the pull request image replaces the running image of its repository', () => {
  it('blocks a PR image that adds a critical CVE, naming the route', async () => {
    const before = liveState();
    const answer: any = await ask(prScan((scan) => scan.Results[1].Vulnerabilities.push(LOG4SHELL)));
    expect(answer.verdict).toBe('blocked');
    expect(answer.reason).toContain('shop-public-alb → shop/stripe-api-key');
    expect(answer.successors).toEqual([
      {
        imageName: `acme/checkout-api:${SHA}`,
        replaces: [{ id: expect.stringMatching(/^Image:/), name: 'acme/checkout-api:1.14.2' }],
        basis: ['build record', 'slug'],
      },
    ]);
    const [route] = answer.worsened;
    expect(route.nodes.map((n: any) => n.name)).toEqual([
      'shop-public-alb',
      'checkout-api',
      'shop/stripe-api-key',
    ]);
    expect(route.why).toEqual([
      expect.objectContaining({ change: 'repriced', type: 'ROUTES_TO', weightBasis: 'cvss' }),
    ]);
    // The fix names what the PR brings, not what the running image already had (Spring4Shell).
    expect(route.fix).toMatch(
      /^upgrade org\.apache\.logging\.log4j:log4j-core to 2\.15\.0 \(CVE-2021-44228\)/,
    );
    expect(liveState()).toBe(before);
  });

  it('is clean when the PR fixes its CVEs, and reports the route as improved', async () => {
    // Spring4Shell fixed (spring-beans 5.3.18) and the base image bumped: libexpat fixed, the one finding
    // Debian 12 images keep (apt, LOW) left.
    const answer: any = await ask(
      prScan((scan) => {
        scan.Results[0].Vulnerabilities = [APT_LOW];
        scan.Results[1].Vulnerabilities = [];
        scan.Results[1].Packages = scan.Results[1].Packages?.map((p: any) => ({ ...p, Version: '5.3.18' }));
      }),
    );
    expect(answer.verdict).toBe('clean');
    expect(answer.opened).toEqual([]);
    expect(answer.worsened).toEqual([]);
    const improved = answer.improved.find((p: any) => p.nodes.at(-1).name === 'shop/stripe-api-key');
    expect(improved).toMatchObject({ closed: false, previousPriority: 'P1' });
    expect(improved.score).toBeLessThan(improved.previousScore);
    expect(answer.reason).toMatch(
      /route\(s\) made less likely or closed: .*shop-public-alb → shop\/stripe-api-key/,
    );
    // On a terminal, the improved route is listed with its scores.
    expect(renderText(answer)).toMatch(
      /^improved: shop-public-alb → checkout-api → shop\/stripe-api-key \(0\.633 → 0\.\d{3}\)$/m,
    );
  });

  it('is clean when the PR fixes every CVE: a clean scan prices the hop below any CVE', async () => {
    const answer: any = await ask(
      prScan((scan) => {
        for (const result of scan.Results) result.Vulnerabilities = [];
      }),
    );
    expect(answer.verdict).toBe('clean');
    expect(answer.worsened).toEqual([]);
    const improved = answer.improved.find((p: any) => p.nodes.at(-1).name === 'shop/stripe-api-key');
    expect(improved.score).toBeLessThan(improved.previousScore);
    expect(improved.priority).not.toBe('P1');
  });

  it('finds the repository by its build record when the call carries no slug', async () => {
    const answer: any = await requestGate({
      apiUrl,
      report: prScan((scan) => scan.Results[1].Vulnerabilities.push(LOG4SHELL)),
      query: { source: 'trivy' },
    });
    expect(answer.verdict).toBe('blocked');
    expect(answer.successors[0].basis).toEqual(['build record']);
  });

  it('leaves an image of a repository the estate does not run unknown (negative twin)', async () => {
    const answer: any = await ask(
      prScan((scan) => scan.Results[1].Vulnerabilities.push(LOG4SHELL), `ghcr.io/acme/newsletter:${SHA}`),
      'acme/newsletter',
    );
    expect(answer.verdict).toBe('unknown');
    expect(answer.successors).toBeUndefined();
    expect(answer.reason).toMatch(/names nothing the estate holds/);
  });
});
