// GET /export/graph end to end, from real reports (ingress-nginx's docker-registry example dump through the
// k8s normalizer, the real Trivy scan of its image): the body loads with graphology's own Graph.from and
// import, holds the same nodes and edges as the GraphQL `neighbourhood` answer for the same node and depth,
// prices each hop as the analyzer does (the path's steps), shows a node's properties as search does (scrubbed
// at ingest, numbers and the engine's vectors left out); a path's route with hops around it; auth, scoping to
// a credential's applications (a node outside them is answered as an unknown one), bad parameters named,
// the signature verifies with the export key, and each export is in the audit log.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as graphology from 'graphology';
import type { MultiDirectedGraph } from 'graphology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExportCommand } from '../../app/verify-export.js';
import { verifyExport } from '../../src/export/signing.js';
import { nodeId } from '../../src/graph/ids.js';
import { node, envelope } from '../helpers/envelope.js';
import { readReal } from '../helpers/normalize.js';
import { registryDump, SCANNED } from '../helpers/registry-dump.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import { ingestOk } from '../helpers/service-calls.js';

// graphology's generic Graph (the ESM build exports it as `Graph` and as the default): `Graph.from` reads
// the type from the body's options. Its typings are read as CommonJS and name neither, hence the cast.
const Graph = (graphology as unknown as { Graph: typeof MultiDirectedGraph }).Graph;
type Graph = MultiDirectedGraph;

const ADMIN = 'graph-export-admin-token-0123456789';
const REGISTRY = 'graph-export-registry-token-012345';
const PLATFORM = 'graph-export-platform-token-012345';
// A GitHub token in a reported property: scrubbed at ingest, so never exported.
const TOKEN = ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('');

const WORKLOAD = nodeId('Service', 'prod/docker-registry/docker-registry');
const SERVICE_LB = nodeId('LoadBalancer', 'prod/docker-registry/service/docker-registry');
const INGRESS = nodeId('LoadBalancer', 'prod/docker-registry/ingress/docker-registry');
const NODE_VM = nodeId('VirtualMachine', 'prod/node/unscheduled');
const ACCOUNT = nodeId('ServiceAccount', 'prod/docker-registry/default');
const CRITICAL_CVE = nodeId('CVE', 'CVE-2019-18224');

let service: TestService;
let work: string;
let auditFile: string;
let pathId: string;

beforeAll(async () => {
  work = await tempDir('pathgate-graph-export-');
  auditFile = path.join(work, 'audit.log');
  service = await makeService({
    API_TOKENS: `${ADMIN}:admin,${REGISTRY}:viewer::2099-12-31:registry,${PLATFORM}:viewer::2099-12-31:platform`,
    AUDIT_LOG_PATH: auditFile,
  });
  await ingestOk(service, registryDump(), 'k8s', 'cluster=prod');
  await ingestOk(service, readReal('trivy/debian-buster-archive.json'), 'trivy');
  // Applications are named by the ingest contract's node properties (docs/security.md): the registry's
  // ingress, service and workload belong to `registry`, the cluster node and the account to `platform`;
  // the image and its CVEs to none (scoped callers never see them).
  await ingestOk(
    service,
    envelope([
      node('LoadBalancer', 'prod/docker-registry/ingress/docker-registry', { app: 'registry' }),
      node('LoadBalancer', 'prod/docker-registry/service/docker-registry', { app: 'registry' }),
      node('Service', 'prod/docker-registry/docker-registry', {
        app: 'registry',
        note: `deploy key ${TOKEN}`,
      }),
      node('VirtualMachine', 'prod/node/unscheduled', { app: 'platform' }),
      node('ServiceAccount', 'prod/docker-registry/default', { apps: ['platform'] }),
    ]),
    'events',
  );
  await service.settle();
  pathId = service.engine.tenant('default')!.paths.open()[0].id;
});
afterAll(() => service.dispose());

async function get(url: string, token: string | null = ADMIN) {
  const r = await service.apiApp.inject({
    method: 'GET',
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: r.statusCode, body: r.rawPayload, headers: r.headers, json: () => JSON.parse(r.body) };
}

async function gql(query: string, variables: Record<string, unknown> = {}, token = ADMIN) {
  const r = await service.apiApp.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ query, variables }),
  });
  return r.json().data;
}

async function neighbourhood(id: string, depth: number, token = ADMIN, limit = 2000) {
  const query = `query($id: ID!, $depth: Int, $limit: Int) { neighbourhood(nodeId: $id, depth: $depth, limit: $limit) {
    truncated nodes { id name label distance } edges { from to type } } }`;
  return (await gql(query, { id, depth, limit }, token)).neighbourhood;
}

const edgeLines = (edges: { from: string; to: string; type: string }[]) =>
  edges.map((e) => `${e.type} ${e.from} -> ${e.to}`).sort();

function graphEdges(graph: Graph) {
  return graph.mapEdges((_key, a, source, target) => ({ from: source, to: target, type: a.type as string }));
}

describe('GET /export/graph', () => {
  it('is a graphology graph holding the neighbourhood GraphQL answers for the same node and depth', async () => {
    for (const depth of [1, 2, 3]) {
      const r = await get(`/export/graph?node=${encodeURIComponent(WORKLOAD)}&depth=${depth}`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers['content-disposition']).toBe(
        `attachment; filename="pathgate-default-graph-${WORKLOAD.replace(':', '-')}.json"`,
      );
      const body = JSON.parse(r.body.toString());
      const graph = Graph.from(body);
      expect(graph.type).toBe('directed');
      expect(graph.multi).toBe(true);
      // import into a graph made by hand with the same options works too
      const imported = new Graph({ type: 'directed', multi: true, allowSelfLoops: false });
      imported.import(body);
      expect(imported.order).toBe(graph.order);
      expect(imported.size).toBe(graph.size);

      const answer = await neighbourhood(WORKLOAD, depth);
      expect(graph.nodes()).toEqual(answer.nodes.map((n: any) => n.id));
      for (const n of answer.nodes)
        expect(graph.getNodeAttributes(n.id)).toMatchObject({
          label: n.label,
          name: n.name,
          distance: n.distance,
        });
      expect(edgeLines(graphEdges(graph))).toEqual(edgeLines(answer.edges));
      expect(graph.getAttributes()).toMatchObject({
        tenant: 'default',
        root: WORKLOAD,
        rootKind: 'node',
        depth,
        truncated: answer.truncated,
        scope: 'all',
      });
      expect(new Date(graph.getAttribute('generatedAt')).toISOString()).toBe(
        graph.getAttribute('generatedAt'),
      );
    }
    // depth 3 from the workload reaches the whole estate: the ingress two hops back, the CVEs two forward
    const whole = Graph.from(
      JSON.parse((await get(`/export/graph?node=${WORKLOAD}&depth=3`)).body.toString()),
    );
    expect(whole.hasNode(INGRESS)).toBe(true);
    expect(whole.hasNode(CRITICAL_CVE)).toBe(true);
    expect(whole.hasEdge(`ROUTES_TO|${INGRESS}|${SERVICE_LB}`)).toBe(true);
  });

  it('prices each hop as the analyzer does, with its basis and when it was last seen', async () => {
    const graph = Graph.from(
      JSON.parse((await get(`/export/graph?node=${WORKLOAD}&depth=2`)).body.toString()),
    );
    const { attackPath } = await gql(
      `query($id: ID!) { attackPath(id: $id) { steps { from to type probability weightBasis } } }`,
      { id: pathId },
    );
    const steps = attackPath.steps;
    expect(steps.length).toBe(3);
    for (const step of steps) {
      const a = graph.getEdgeAttributes(`${step.type}|${step.from}|${step.to}`);
      expect(a.probability).toBe(step.probability);
      expect(a.basis).toBe(step.weightBasis);
      expect(new Date(a.lastSeen).toISOString()).toBe(a.lastSeen);
    }
    // the hop into the workload is priced from the image's critical CVE, not the table's heuristic
    const exposes = graph.getEdgeAttributes(`EXPOSES|${SERVICE_LB}|${WORKLOAD}`);
    expect(exposes.basis).not.toBe('heuristic');
  });

  it('shows node properties as search shows them: scrubbed at ingest, no numbers, vectors or engine flags', async () => {
    const r = await get(`/export/graph?node=${CRITICAL_CVE}&depth=1`);
    const text = r.body.toString();
    expect(text).not.toContain(TOKEN);
    const graph = Graph.from(JSON.parse(text));
    const cve = graph.getNodeAttributes(CRITICAL_CVE).props;
    expect(cve.severity).toBe('CRITICAL');
    expect(cve).not.toHaveProperty('cvss');
    expect(cve).not.toHaveProperty('cvss_vector');
    expect(cve).not.toHaveProperty('cvss_score');
    expect(cve).not.toHaveProperty('last_seen');
    const image = graph.getNodeAttributes(
      nodeId('Image', 'aquasecurity/trivy-test-images:debian-buster'),
    ).props;
    expect(image.image_ref).toBe(SCANNED);
    graph.forEachNode((_key, attrs) => {
      for (const value of Object.values(attrs.props)) expect(typeof value).toBe('string');
    });
    const workload = Graph.from((await get(`/export/graph?node=${WORKLOAD}`)).json()).getNodeAttributes(
      WORKLOAD,
    );
    expect(workload.props.note).toMatch(/^deploy key \*\*\*redacted:[a-z_-]+\*\*\*$/);
    expect(workload.props).not.toHaveProperty('secrets_scrubbed');
  });

  it('path=<id>: the route whole and depth hops around it', async () => {
    const r = await get(`/export/graph?path=${pathId}&depth=1`);
    expect(r.status).toBe(200);
    expect(r.headers['content-disposition']).toBe(
      `attachment; filename="pathgate-default-graph-${pathId}.json"`,
    );
    const graph = Graph.from(r.json());
    const route = [INGRESS, SERVICE_LB, WORKLOAD, NODE_VM];
    expect(graph.getAttributes()).toMatchObject({ root: pathId, rootKind: 'path', route, depth: 1 });
    expect(graph.nodes().slice(0, 4)).toEqual(route);
    for (const id of route) expect(graph.getNodeAttribute(id, 'distance')).toBe(0);
    // one hop around the route: the account and the image of the workload; the CVEs are two hops away
    expect(graph.nodes().slice(4).sort()).toEqual(
      [ACCOUNT, nodeId('Image', 'aquasecurity/trivy-test-images:debian-buster')].sort(),
    );
    expect(graph.hasEdge(`CAN_ESCALATE_TO|${WORKLOAD}|${NODE_VM}`)).toBe(true);
    const deeper = Graph.from((await get(`/export/graph?path=${pathId}&depth=2`)).json());
    expect(deeper.hasNode(CRITICAL_CVE)).toBe(true);
  });

  it('limit caps the nodes and says the graph is truncated', async () => {
    const graph = Graph.from((await get(`/export/graph?node=${WORKLOAD}&depth=3&limit=2`)).json());
    expect(graph.order).toBe(2);
    expect(graph.getAttribute('truncated')).toBe(true);
    expect(graph.getAttribute('limit')).toBe(2);
    const n = await neighbourhood(WORKLOAD, 3, ADMIN, 2);
    expect(graph.nodes()).toEqual(n.nodes.map((x: any) => x.id));
    expect(n.truncated).toBe(true);
  });

  it('answers 401 without a token when tokens are configured', async () => {
    const r = await get(`/export/graph?node=${WORKLOAD}`, null);
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toContain('application/problem+json');
    expect(r.body.toString()).not.toContain('nodes');
  });

  it('a credential bound to an application gets only its nodes; others are answered as unknown', async () => {
    const r = await get(`/export/graph?node=${WORKLOAD}&depth=3`, REGISTRY);
    expect(r.status).toBe(200);
    const graph = Graph.from(r.json());
    expect(graph.nodes().sort()).toEqual([INGRESS, SERVICE_LB, WORKLOAD].sort());
    expect(graph.getAttribute('scope')).toBe('applications:registry');
    const answer = await neighbourhood(WORKLOAD, 3, REGISTRY);
    expect(graph.nodes()).toEqual(answer.nodes.map((n: any) => n.id));
    expect(edgeLines(graphEdges(graph))).toEqual(edgeLines(answer.edges));
    // the platform's node, and the image no application names, as unknown as a node that does not exist
    const unknown = 'VirtualMachine:0123456789abcdef';
    const missing = await get(`/export/graph?node=${unknown}`, REGISTRY);
    expect(missing.status).toBe(404);
    for (const hidden of [NODE_VM, nodeId('Image', 'aquasecurity/trivy-test-images:debian-buster')]) {
      const other = await get(`/export/graph?node=${hidden}`, REGISTRY);
      expect(other.status).toBe(404);
      expect(other.body.toString().replaceAll(hidden, unknown)).toBe(missing.body.toString());
      expect(other.json().errors[0]).toMatchObject({ pointer: '/query/node', value: hidden });
    }
    // the platform's credential sees the node and the account, not the registry's workload
    expect((await get(`/export/graph?node=${WORKLOAD}`, PLATFORM)).status).toBe(404);
    const platform = Graph.from((await get(`/export/graph?node=${NODE_VM}&depth=3`, PLATFORM)).json());
    expect(platform.nodes()).toEqual([NODE_VM]);
    // a path the credential may see: its route whole, hops around it only within the application
    const routed = Graph.from((await get(`/export/graph?path=${pathId}&depth=2`, REGISTRY)).json());
    expect(routed.nodes()).toEqual([INGRESS, SERVICE_LB, WORKLOAD, NODE_VM]);
  });

  it('a path outside a scoped caller’s applications is answered as an unknown path', async () => {
    const scopedOut = await makeService({
      API_TOKENS: `${ADMIN}:admin,${PLATFORM}:viewer::2099-12-31:nothing-here`,
    });
    try {
      await ingestOk(scopedOut, registryDump(), 'k8s', 'cluster=prod');
      await scopedOut.settle();
      const id = scopedOut.engine.tenant('default')!.paths.open()[0].id;
      const ask = (p: string) =>
        scopedOut.apiApp.inject({
          method: 'GET',
          url: `/export/graph?path=${p}`,
          headers: { authorization: `Bearer ${PLATFORM}` },
        });
      const hidden = await ask(id);
      const none = await ask('ap-0123456789abcdef');
      expect(hidden.statusCode).toBe(404);
      expect(hidden.body.replaceAll(id, 'ap-0123456789abcdef')).toBe(none.body);
      expect(hidden.json().errors[0]).toMatchObject({ pointer: '/query/path', value: id });
    } finally {
      await scopedOut.dispose();
    }
  });

  it('refuses every bad parameter with a problem naming it and its value', async () => {
    const cases: [string, string, string][] = [
      ['', '/query/node', ''],
      ['node=bogus', '/query/node', 'bogus'],
      ['node=Service:XYZ', '/query/node', 'Service:XYZ'],
      [`node=${WORKLOAD}&depth=0`, '/query/depth', '0'],
      [`node=${WORKLOAD}&depth=7`, '/query/depth', '7'],
      [`node=${WORKLOAD}&depth=two`, '/query/depth', 'two'],
      [`node=${WORKLOAD}&depth=1.5`, '/query/depth', '1.5'],
      [`node=${WORKLOAD}&limit=0`, '/query/limit', '0'],
      [`node=${WORKLOAD}&limit=5001`, '/query/limit', '5001'],
      [`node=${WORKLOAD}&limit=-3`, '/query/limit', '-3'],
      ['path=ap-xyz', '/query/path', 'ap-xyz'],
      [`node=${WORKLOAD}&path=${pathId}`, '/query/path', pathId],
      [`node=${WORKLOAD}&node=${INGRESS}`, '/query/node', `${WORKLOAD},${INGRESS}`],
    ];
    for (const [query, pointer, value] of cases) {
      const r = await get(`/export/graph?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers['content-type']).toContain('application/problem+json');
      const problem = r.json();
      expect(problem.type).toBe('urn:pathgate:problem:invalid-query');
      expect(problem.errors[0], query).toMatchObject({ pointer, value });
      if (value) expect(problem.detail, query).toContain(value);
    }
    const unknownNode = await get('/export/graph?node=Service:0123456789abcdef');
    expect(unknownNode.status).toBe(404);
    expect(unknownNode.json().detail).toContain('Service:0123456789abcdef');
    const unknownPath = await get('/export/graph?path=ap-0123456789abcdef');
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.json().errors[0]).toMatchObject({
      pointer: '/query/path',
      value: 'ap-0123456789abcdef',
    });
  });

  it('is signed: the signature verifies with the export key, for this tenant, kind and scope only', async () => {
    const key = (await get('/export/pubkey')).json();
    for (const [token, scope] of [
      [ADMIN, 'all'],
      [REGISTRY, 'applications:registry'],
    ] as const) {
      const r = await get(`/export/graph?node=${WORKLOAD}&depth=2`, token);
      const sig = String(r.headers['x-service-signature']);
      expect(verifyExport(r.body, sig, key.publicKey)).toMatchObject({
        ok: true,
        keyId: key.keyId,
        statement: { tenant: 'default', kind: 'graph', format: 'graphology-json', scope, state: 'current' },
      });
      const tampered = Buffer.from(r.body.toString().replace('"depth":2', '"depth":3'));
      expect(verifyExport(tampered, sig, key.publicKey).ok).toBe(false);
    }
    // verify-export: intact under the service's own file name, refused under another tenant's
    const r = await get(`/export/graph?node=${WORKLOAD}`);
    const sig = String(r.headers['x-service-signature']);
    const pubFile = path.join(work, 'pubkey.json');
    writeFileSync(pubFile, JSON.stringify(key));
    const verify = async (name: string) => {
      const file = path.join(work, name);
      writeFileSync(file, r.body);
      const out: string[] = [];
      const code = await verifyExportCommand([file, sig, '-pubkey', pubFile], {
        out: (t) => out.push(t),
        err: (t) => out.push(t),
        env: {},
      });
      return { code, text: out.join('') };
    };
    const own = /filename="([^"]+)"/.exec(String(r.headers['content-disposition']))![1];
    expect(await verify(own)).toMatchObject({ code: 0 });
    const renamed = await verify(own.replace('pathgate-default-', 'pathgate-acme-'));
    expect(renamed.code).toBe(1);
    expect(renamed.text).toContain('tenant');
  });

  it('each export is in the audit log as export.graph, with what it held', async () => {
    await get(`/export/graph?node=${WORKLOAD}&depth=2`, REGISTRY);
    await get(`/export/graph?path=${pathId}`);
    const records = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((x) => x.event === 'export.graph');
    const scoped = records.filter((x) => x.fields.root === WORKLOAD && x.fields.depth === 2).at(-1);
    expect(scoped).toMatchObject({
      tenant: 'default',
      subject: expect.stringMatching(/^token:/),
      fields: { path: '/export/graph', nodes: 3, edges: 2, truncated: false, path_ids: [] },
    });
    expect(records.at(-1)).toMatchObject({ fields: { root: pathId, path_ids: [pathId], nodes: 6 } });
    // a refused export is not an export
    const before = records.length;
    await get('/export/graph?node=bogus');
    const after = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .filter((l) => JSON.parse(l).event === 'export.graph').length;
    expect(after).toBe(before);
  });
});
