// The merge gate end to end, on a listening API server: a live estate (internet load balancer → workload
// running a scanned image → crown-jewel database) and pull-request reports that add a known-exploited CVE
// (blocked, naming the route), fix a CVE (clean), change nothing (clean, preexisting), or name an unknown
// image or nothing at all (unknown); commit attribution and its fallback; prVerdict; and proof that the
// live graph and the live paths are the same after every call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const TOKEN = 'gate-test-token-0123456789';
/** an operator's token: only an operator's gate call records the commit's verdict */
const OPERATOR = 'gate-test-operator-0123456789';
const SHA = '4f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39';
let service: TestService;
let apiUrl: string;

const image = 'ghcr.io/acme/checkout:1.0';

function trivy(vulnerabilities: Record<string, unknown>[], artifact = image) {
  return {
    SchemaVersion: 2,
    ArtifactName: artifact,
    ArtifactType: 'container_image',
    Metadata: { OS: { Family: 'debian', Name: '12.7' }, RepoTags: [artifact] },
    Results: [
      {
        Target: `${artifact} (debian 12.7)`,
        Class: 'os-pkgs',
        Type: 'debian',
        Vulnerabilities: vulnerabilities,
      },
    ],
  };
}

const lowCve = {
  VulnerabilityID: 'CVE-2023-0001',
  PkgName: 'libfoo',
  InstalledVersion: '1.0',
  FixedVersion: '1.1',
  Severity: 'LOW',
  CVSS: { nvd: { V3Score: 3.1 } },
};
const log4shell = {
  VulnerabilityID: 'CVE-2021-44228',
  PkgName: 'org.apache.logging.log4j:log4j-core',
  InstalledVersion: '2.14.1',
  FixedVersion: '2.15.0',
  Severity: 'CRITICAL',
  CVSS: { nvd: { V3Score: 10 } },
};

async function gate(body: unknown, query = '', token: string | null = TOKEN) {
  const response = await fetch(`${apiUrl}/gate/impact${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** Everything the live tenant holds that a gate call could change. */
function liveState() {
  const state = service.engine.tenant('default')!;
  const nodes: unknown[] = [];
  state.graph.forEachNode((id, a) => nodes.push([id, a.label, a.name, a.props]));
  const edges: unknown[] = [];
  state.graph.forEachEdge((_k, a, s, t) => edges.push([a.type, s, t, a.p, a.joinConfidence, a.props]));
  const paths = state.paths.open().map((p) => [p.id, p.score, p.priority, p.state]);
  return JSON.stringify({ nodes, edges, paths, version: state.writer.version, order: state.graph.order });
}

beforeAll(async () => {
  service = await makeService({ API_TOKENS: `${TOKEN}:viewer,${OPERATOR}:operator` });
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  const lb = node('LoadBalancer', 'shop-alb', { internet_exposed: true });
  const web = node('Service', 'checkout', { app: 'shop' });
  const img = node('Image', 'acme/checkout:1.0', { resolve_ref: image });
  const db = node('Database', 'orders', { crown_jewel: true });
  // Threat intel the estate already holds: log4shell is known exploited.
  const intel = node('CVE', 'CVE-2021-44228', { kev: true });
  expect((await service.ingest(trivy([lowCve]), { source: 'trivy' })).status).toBe(202);
  expect(
    (
      await service.ingest(
        envelope(
          [lb, web, img, db, intel],
          [edge('ROUTES_TO', lb, web), edge('DEPENDS_ON', web, img), edge('HAS_PERMISSION', web, db, 0.9)],
        ),
      )
    ).status,
  ).toBe(202);
  await service.settle();
});
afterAll(async () => {
  await service.dispose();
});

describe('POST /gate/impact', () => {
  it('the live estate has one P2 route, priced from the image’s low CVE', () => {
    const [path] = service.engine.tenant('default')!.paths.open();
    expect(path.priority).toBe('P2');
  });

  it('(a) blocks a change that adds a known-exploited CVE to the running image, naming the route', async () => {
    const before = liveState();
    const { status, json } = await gate(
      trivy([lowCve, log4shell]),
      `source=trivy&slug=acme/checkout&pr=7&sha=${SHA}`,
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({
      verdict: 'blocked',
      analysed: true,
      attribution: 'report',
      source: 'trivy',
    });
    expect(json.reason).toMatch(/1 critical route opened or made likelier: shop-alb → orders/);
    expect(json.opened).toEqual([]);
    expect(json.worsened).toHaveLength(1);
    const [route] = json.worsened;
    expect(route.nodes.map((n: { name: string }) => n.name)).toEqual(['shop-alb', 'checkout', 'orders']);
    expect(route).toMatchObject({ priority: 'P1', previousPriority: 'P2', critical: true });
    expect(route.score).toBeGreaterThan(route.previousScore);
    // KEV 0.9 × the tag join 0.85, then the database grant 0.9.
    expect(route.score).toBeCloseTo(0.9 * 0.85 * 0.9, 9);
    expect(route.why).toEqual([
      expect.objectContaining({
        change: 'repriced',
        type: 'ROUTES_TO',
        weightBasis: 'kev',
        probability: expect.closeTo(0.765, 9),
      }),
    ]);
    expect(route.fix).toMatch(
      /upgrade org\.apache\.logging\.log4j:log4j-core to 2\.15\.0 \(CVE-2021-44228, known exploited\)/,
    );
    expect(liveState()).toBe(before);
  });

  it('(b) passes a change that fixes a CVE', async () => {
    const before = liveState();
    const { json } = await gate(trivy([]), 'source=trivy');
    expect(json).toMatchObject({ verdict: 'clean', analysed: true, opened: [], worsened: [] });
    expect(liveState()).toBe(before);
  });

  it('(c) passes a change that leaves everything as it was, counting the routes that were already there', async () => {
    const before = liveState();
    const { json } = await gate(trivy([lowCve]));
    expect(json).toMatchObject({
      verdict: 'clean',
      source: 'trivy',
      preexisting: 1,
      opened: [],
      worsened: [],
    });
    expect(json.reason).toMatch(/opens no route/);
    // Counted, not listed: the answer is about the change.
    expect(json.preexistingCount).toBe(1);
    expect(json.paths).toEqual([]);
    expect(json.preexistingPage).toBeUndefined();
    // Listed on request, paged.
    const listed = (await gate(trivy([lowCve]), 'preexisting=list&first=1')).json;
    expect(listed.paths).toEqual([expect.objectContaining({ status: 'preexisting', priority: 'P2' })]);
    expect(listed.preexistingPage).toMatchObject({ first: 1, after: null, hasNextPage: false });
    const next = (await gate(trivy([lowCve]), `preexisting=list&after=${listed.preexistingPage.endCursor}`))
      .json;
    expect(next.paths).toEqual([]);
    expect(next.preexistingPage).toMatchObject({ endCursor: null, hasNextPage: false });
    expect(liveState()).toBe(before);
  });

  it('(f) evaluates a report adding a new node next to live ones, naming the live ones by id only', async () => {
    const before = liveState();
    const live = node('Service', 'checkout');
    const alb = node('LoadBalancer', 'pr-public-alb', { internet_exposed: true });
    const { json } = await gate(envelope([alb], [edge('ROUTES_TO', alb, live, 0.95)], 'pr'), 'source=events');
    expect(json).toMatchObject({ verdict: 'blocked', analysed: true, worsened: [] });
    expect(json.opened.map((r: any) => r.nodes.map((n: any) => n.name))).toEqual([
      ['pr-public-alb', 'checkout', 'orders'],
    ]);
    expect(json.opened[0].why).toEqual([expect.objectContaining({ change: 'added', type: 'ROUTES_TO' })]);
    // Negative twin: an edge from a new node to nothing the estate holds stays unknown, naming both.
    const elsewhere = node('Service', 'not-in-the-estate');
    const twin = await gate(
      envelope([alb], [edge('ROUTES_TO', alb, elsewhere, 0.95)], 'pr'),
      'source=events',
    );
    expect(twin.json).toMatchObject({ verdict: 'unknown', analysed: false });
    expect(twin.json.unjoined).toEqual([
      expect.objectContaining({ kind: 'asset', label: 'LoadBalancer', name: 'pr-public-alb' }),
    ]);
    expect(liveState()).toBe(before);
  });

  it('(g) an unknown names each image it read, why it joined nothing, and what would join it', async () => {
    const { json } = await gate(
      trivy([log4shell], 'ghcr.io/acme/elsewhere:9.9'),
      'source=trivy&slug=acme/elsewhere',
    );
    expect(json.verdict).toBe('unknown');
    expect(json.unjoinedCount).toBe(1);
    expect(json.unjoined).toEqual([
      {
        kind: 'image',
        label: 'Image',
        name: 'acme/elsewhere:9.9',
        reason: expect.stringMatching(
          /no image the estate runs .*the estate holds no repository of slug acme\/elsewhere/,
        ),
        hint: expect.stringMatching(
          /^record where the running image comes from: POST \/ingest\/build .*"slug": "acme\/elsewhere"/,
        ),
      },
    ]);
    expect(json.reason).toMatch(/names nothing the estate holds \(image acme\/elsewhere:9\.9\)/);
  });

  it('(h) refuses a misspelt source (400 listing the sources), whatever the report', async () => {
    const { status, json } = await gate(trivy([lowCve]), 'source=trivyy');
    expect(status).toBe(400);
    expect(json.errors).toEqual([expect.objectContaining({ pointer: '/query/source', value: 'trivyy' })]);
    expect(json.detail).toMatch(/"trivyy" is not one the gate reads; use one of events, trivy, .*terraform/);
  });

  it('refuses a listing it cannot page (400 naming the value), before reading the report', async () => {
    for (const [query, pointer] of [
      ['preexisting=all', '/query/preexisting'],
      ['preexisting=list&first=0', '/query/first'],
      ['preexisting=list&first=ten', '/query/first'],
      ['preexisting=list&after=bm90LWEtY3Vyc29y', '/query/after'],
    ]) {
      const { status, json } = await gate(trivy([lowCve]), query);
      expect(status, query).toBe(400);
      expect(json.errors[0].pointer).toBe(pointer);
      expect(json.detail).toContain(json.errors[0].value);
    }
  });

  it('(d) answers unknown, with the reason, for an unknown image, an empty or an unreadable report', async () => {
    const before = liveState();
    const unknownImage = await gate(trivy([log4shell], 'ghcr.io/acme/elsewhere:9.9'));
    expect(unknownImage.status).toBe(200);
    expect(unknownImage.json).toMatchObject({ verdict: 'unknown', analysed: false });
    expect(unknownImage.json.reason).toMatch(/names nothing the estate holds/);
    expect((await gate({})).json).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/empty/),
    });
    const unreadable = await gate({ SchemaVersion: 2, ArtifactName: '' }, 'source=trivy');
    expect(unreadable.json).toMatchObject({
      verdict: 'unknown',
      errors: [expect.objectContaining({ pointer: '/ArtifactName' })],
    });
    expect((await gate({ hello: 'world' })).json.reason).toMatch(/not of a kind any ingest source takes/);
    expect(liveState()).toBe(before);
  });

  it('(e) analyses a relationship-only report (nodes: []) between nodes the estate holds', async () => {
    const before = liveState();
    const lb = node('LoadBalancer', 'shop-alb');
    const web = node('Service', 'checkout');
    const db = node('Database', 'orders');
    // A new hop: the load balancer now reaches the database directly, which makes its route critical.
    const added = await gate(envelope([], [edge('ROUTES_TO', lb, db)]), 'source=events');
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ verdict: 'blocked', analysed: true, source: 'events' });
    const [route] = added.json.worsened;
    expect(route.nodes.map((n: any) => n.name)).toEqual(['shop-alb', 'orders']);
    expect(route).toMatchObject({ priority: 'P1', previousPriority: 'P2' });
    expect(route.why).toEqual([expect.objectContaining({ change: 'added', type: 'ROUTES_TO' })]);
    // A grant re-stated likelier: the existing route is worsened, not opened.
    const repriced = await gate(envelope([], [edge('HAS_PERMISSION', web, db, 1)]), 'source=events');
    expect(repriced.json).toMatchObject({ analysed: true, opened: [] });
    expect(repriced.json.worsened).toHaveLength(1);
    expect(repriced.json.worsened[0].why).toEqual([
      expect.objectContaining({
        change: 'repriced',
        type: 'HAS_PERMISSION',
        previousProbability: 0.9,
        probability: 1,
      }),
    ]);
    // The same grant, no likelier: clean, nothing changed.
    const same = await gate(envelope([], [edge('HAS_PERMISSION', web, db, 0.9)]), 'source=events');
    expect(same.json).toMatchObject({ verdict: 'clean', analysed: true, preexisting: 1 });
    // Negative twin: a relationship between nodes the estate does not hold is about nothing it holds.
    const elsewhere = await gate(
      envelope([], [edge('ROUTES_TO', node('LoadBalancer', 'other-alb'), node('Database', 'other-db'))]),
      'source=events',
    );
    expect(elsewhere.json).toMatchObject({ verdict: 'unknown', analysed: false });
    expect(liveState()).toBe(before);
  });

  it('attributes by commit when asked, and falls back to it (saying so) when there is no report', async () => {
    // The commit's build is in the live estate, stamped with its sha.
    const stamped = node('Service', 'checkout', {});
    expect(
      (await service.ingest(envelope([stamped]), { query: `sha=${SHA}&slug=acme/checkout&pr=7` })).status,
    ).toBe(202);
    await service.settle();
    const before = liveState();
    const asked = await gate(trivy([lowCve]), `attribution=commit&sha=${SHA}`);
    expect(asked.json).toMatchObject({ verdict: 'clean', attribution: 'commit', analysed: true });
    expect(asked.json.opened).toHaveLength(1);
    const fallback = await gate({}, `sha=${SHA.slice(0, 12)}`);
    expect(fallback.json).toMatchObject({ attribution: 'commit', verdict: 'clean' });
    expect(fallback.json.reason).toMatch(/fell back to attribution by commit/);
    const nobody = await gate({}, 'sha=0000000');
    expect(nobody.json).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/no asset .* carries commit 0000000/),
    });
    expect(liveState()).toBe(before);
  });

  it('stores the verdict per commit for prVerdict(sha)', async () => {
    await gate(trivy([lowCve, log4shell]), `source=trivy&slug=acme/checkout&pr=7&sha=${SHA}`, OPERATOR);
    const response = await fetch(`${apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        query: `{ prVerdict(sha: "${SHA.slice(0, 10)}") { sha verdict reason attribution opened worsened preexisting slug pr } none: prVerdict(sha: "deadbeef00") { sha } }`,
      }),
    });
    const { data } = (await response.json()) as any;
    expect(data.prVerdict).toMatchObject({
      sha: SHA,
      verdict: 'blocked',
      attribution: 'report',
      worsened: 1,
      slug: 'acme/checkout',
      pr: 7,
    });
    expect(data.none).toBeNull();
  });

  it('needs a caller: 401 without a token', async () => {
    expect((await gate(trivy([lowCve]), '', null)).status).toBe(401);
  });
});
