// The MCP server end to end: the real service listening on loopback with the demo estate, and the SDK's
// own Client over both transports: `pathgate mcp` spawned as a process (stdio, the CLI through tsx as the
// other CLI tests run it) and Streamable HTTP at /mcp on the API listener. Every expected value comes from
// the API's own answer to the same credential, never written down here.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DIR, startService, type RunningService } from '../../app/service.js';
import { loadSettings } from '../../src/config/settings.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { tempDir } from '../helpers/service.js';

const cli = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));
const VIEWER = 'mcp-viewer-token-0123456789';
const ADMIN = 'mcp-admin-token-0123456789';
const OTHER = 'mcp-other-tenant-token-0123456789';
// bound to an application no demo node belongs to: it sees no path (scoping fails closed)
const SCOPED = 'mcp-scoped-token-0123456789';
const PUBLIC_URL = 'https://pathgate.example.test';
const SHA = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';

const READ_TOOLS = [
  'get_attack_path',
  'gate_verdict',
  'list_attack_paths',
  'posture',
  'remediation_plan',
  'search',
  'what_if',
];

let service: RunningService;
let dataDir: string;

interface ApiPath {
  id: string;
  score: number;
  critical: boolean;
  nodes: { id: string; name: string }[];
  steps: { from: string; to: string; type: string; evidence: { name: string }[] }[];
}

async function api(token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const response = await fetch(`${service.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** The demo's critical route as the API answers the viewer: the highest-scored critical path with hops. */
async function criticalRoute(token: string): Promise<ApiPath> {
  const data = await api(
    token,
    `{ attackPathsConnection(first: 100) { edges { node {
        id score critical nodes { id name } steps { from to type evidence { name } } } } } }`,
  );
  const paths = (data.attackPathsConnection.edges as { node: ApiPath }[]).map((e) => e.node);
  const critical = paths.filter((p) => p.critical && p.steps.length > 0).sort((a, b) => b.score - a.score);
  expect(critical.length).toBeGreaterThan(0);
  return critical[0];
}

interface Connected {
  client: Client;
  stderr: () => string;
}

async function overStdio(token: string | undefined): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', cli, 'mcp', '--api', service.apiUrl, '--public-url', PUBLIC_URL],
    env: token === undefined ? {} : { PATHGATE_API_TOKEN: token },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const client = new Client({ name: 'pathgate-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

async function overHttp(token: string | undefined): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', service.apiUrl), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'pathgate-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => '' };
}

function structured(result: unknown): any {
  const call = result as CallToolResult;
  expect(call.isError ?? false, JSON.stringify(call.content)).toBe(false);
  // The text a model reads and the structured content say the same.
  expect(JSON.parse((call.content[0] as { text: string }).text)).toEqual(call.structuredContent);
  return call.structuredContent;
}

function toolError(result: unknown): string {
  const call = result as CallToolResult;
  expect(call.isError).toBe(true);
  return (call.content[0] as { text: string }).text;
}

beforeAll(async () => {
  dataDir = await tempDir('pathgate-mcp-');
  const settings = loadSettings(
    {
      DATA_DIR: dataDir,
      INGEST_ADDR: '127.0.0.1:0',
      API_ADDR: '127.0.0.1:0',
      ANALYZER_THREADS: '1',
      API_RATE_RPS: '1000',
      API_TOKENS: `${VIEWER}:viewer,${ADMIN}:admin,${OTHER}:viewer:other,${SCOPED}:viewer::2099-12-31:billing`,
      PUBLIC_URL,
    },
    { demoData: true },
  );
  service = await startService({ settings, demo: true, logger: pino({ level: 'silent' }) });
  // Another tenant with a route of its own, through the same ingest path.
  const gateway = node('LoadBalancer', 'ledger-gateway', { internet_exposed: true });
  const ledgerApi = node('Service', 'ledger-api');
  const ledger = node('Database', 'ledger-db', { crown_jewel: true });
  await service.engine.ingest({
    tenant: 'other',
    source: 'events',
    body: envelope(
      [gateway, ledgerApi, ledger],
      [edge('ROUTES_TO', gateway, ledgerApi), edge('HAS_PERMISSION', ledgerApi, ledger, 0.9)],
    ),
    query: {},
  });
  // A gate verdict recorded for a commit (an admin records it), for gate_verdict to find.
  const scan = await readFile(path.join(DEMO_DIR, 'trivy-checkout-api.json'), 'utf8');
  const gated = await fetch(
    `${service.apiUrl}/gate/impact?source=trivy&slug=acme/checkout-api&pr=7&sha=${SHA}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: scan,
    },
  );
  expect(gated.status).toBe(200);
  await service.engine.drain();
  await service.engine.analyzeAll();
}, 120_000);

afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['stdio (pathgate mcp)', overStdio],
  ['Streamable HTTP (/mcp)', overHttp],
] as const)('MCP over %s', (_name, connect) => {
  it('lists the read-only tools for a viewer, and no write', async () => {
    const { client } = await connect(VIEWER);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(READ_TOOLS));
      expect(names).not.toContain('suppress_attack_path');
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        expect(tool.inputSchema.type).toBe('object');
      }
      const getPath = tools.find((t) => t.name === 'get_attack_path')!;
      expect(getPath.inputSchema.required).toEqual(['id']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("get_attack_path answers the demo's critical route hop by hop, as the API shows it", async () => {
    const expected = await criticalRoute(VIEWER);
    const { client } = await connect(VIEWER);
    try {
      const got = structured(
        await client.callTool({ name: 'get_attack_path', arguments: { id: expected.id } }),
      );
      const names = new Map(expected.nodes.map((n) => [n.id, n.name]));
      expect(got.route).toBe(expected.nodes.map((n) => n.name).join(' → '));
      expect(got.hops.map((h: { from: string; to: string; type: string }) => [h.from, h.to, h.type])).toEqual(
        expected.steps.map((s) => [names.get(s.from), names.get(s.to), s.type]),
      );
      expect(got.hops.map((h: { evidence: { name: string }[] }) => h.evidence.map((e) => e.name))).toEqual(
        expected.steps.map((s) => s.evidence.map((e) => e.name)),
      );
      expect(got.score.value).toBe(expected.score);
      expect(got.score.credibleInterval90.low).toBeLessThanOrEqual(got.score.credibleInterval90.high);
      expect(got.critical).toBe(true);
      expect(Array.isArray(got.alternatives.routes)).toBe(true);
      expect(got.fix).toHaveProperty('generated');
      expect(got.link).toBe(`${PUBLIC_URL}/paths/${expected.id}`);
      expect(got.resource).toBe(`pathgate://paths/${expected.id}`);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("search finds the critical route by its target's prefix, with a typo and by its CVE, as the API does", async () => {
    const route = await criticalRoute(VIEWER);
    const target = route.nodes.at(-1)!.name;
    const word = target.split(/[^A-Za-z0-9]+/).sort((a, b) => b.length - a.length)[0];
    const typo = `${word.slice(0, 2)}${word[2] === 'x' ? 'y' : 'x'}${word.slice(3)}`;
    const cve = route.steps.flatMap((s) => s.evidence.map((e) => e.name)).find((n) => /^CVE-/.test(n));
    expect(word.length).toBeGreaterThanOrEqual(5);
    expect(cve).toBeDefined();
    const { client } = await connect(VIEWER);
    try {
      for (const query of [word.slice(0, 4), typo, cve!]) {
        const got = structured(await client.callTool({ name: 'search', arguments: { query, first: 50 } }));
        const { search } = await api(
          VIEWER,
          'query ($q: String!) { search(query: $q, first: 50) { edges { node { id kind } } } }',
          { q: query },
        );
        expect(
          got.hits.map((h: { id: string }) => h.id),
          query,
        ).toEqual(search.edges.map((e: { node: { id: string } }) => e.node.id));
        const path = got.hits.find(
          (h: { kind: string; id: string }) => h.kind === 'PATH' && h.id === route.id,
        );
        expect(path, query).toMatchObject({ link: `${PUBLIC_URL}/paths/${route.id}` });
      }
      // Another tenant's names are not found from here.
      const other = structured(await client.callTool({ name: 'search', arguments: { query: 'ledger' } }));
      expect(other.hits).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('lists suppress_attack_path for an admin', async () => {
    const { client } = await connect(ADMIN);
    try {
      const { tools } = await client.listTools();
      const suppress = tools.find((t) => t.name === 'suppress_attack_path');
      expect(suppress?.annotations?.readOnlyHint).toBe(false);
      expect(suppress?.inputSchema.required?.sort()).toEqual(['owner', 'pathId', 'reason']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers a tenant's own paths only: another tenant's path is as unknown as none", async () => {
    const own = await criticalRoute(VIEWER);
    const { client } = await connect(OTHER);
    try {
      const listed = structured(await client.callTool({ name: 'list_attack_paths', arguments: {} }));
      expect(listed.paths.map((p: { route: string }) => p.route)).toEqual([
        'ledger-gateway → ledger-api → ledger-db',
      ]);
      expect(
        toolError(await client.callTool({ name: 'get_attack_path', arguments: { id: own.id } })),
      ).toMatch(new RegExp(`no attack path ${own.id}`));
      const found = structured(await client.callTool({ name: 'search', arguments: { query: 'ledger' } }));
      expect(found.hits.map((h: { name: string }) => h.name)).toContain('ledger-db');
      const target = own.nodes.at(-1)!.name;
      const theirs = structured(await client.callTool({ name: 'search', arguments: { query: target } }));
      expect(theirs.hits.map((h: { id: string }) => h.id)).not.toContain(own.id);
      await expect(client.readResource({ uri: `pathgate://paths/${own.id}` })).rejects.toThrow(
        /no attack path/,
      );
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('a credential bound to applications', () => {
  it('sees through MCP exactly the paths the API shows it: here none', async () => {
    const own = await criticalRoute(VIEWER);
    const { attackPathsConnection } = await api(SCOPED, '{ attackPathsConnection { totalCount } }');
    const { client } = await overHttp(SCOPED);
    try {
      const listed = structured(await client.callTool({ name: 'list_attack_paths', arguments: {} }));
      expect(listed.totalCount).toBe(attackPathsConnection.totalCount);
      expect(listed.paths).toEqual([]);
      expect(
        toolError(await client.callTool({ name: 'get_attack_path', arguments: { id: own.id } })),
      ).toMatch(/no attack path/);
      // The analyses over the whole estate are refused to it by the API, and the tool says why.
      expect(await client.callTool({ name: 'remediation_plan', arguments: {} })).toMatchObject({
        isError: true,
      });
    } finally {
      await client.close();
    }
  });
});

describe('refusals', () => {
  it('pathgate mcp stops with exit 1 and the reason when the token is wrong or missing', async () => {
    for (const token of ['not-a-token-0123456789', undefined]) {
      let err = '';
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', cli, 'mcp', '--api', service.apiUrl],
        env: token === undefined ? {} : { PATHGATE_API_TOKEN: token },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const client = new Client({ name: 'pathgate-test', version: '1.0.0' });
      await expect(client.connect(transport)).rejects.toThrow();
      await client.close();
      expect(err).toMatch(/pathgate mcp: .*Missing or invalid credentials.*\(HTTP 401\)/);
      expect(err).toMatch(token ? /check PATHGATE_API_TOKEN/ : /set PATHGATE_API_TOKEN/);
      expect(err).not.toContain('not-a-token-0123456789');
    }
  }, 60_000);

  it('/mcp refuses a wrong or missing token with 401, before any MCP message is read', async () => {
    await expect(overHttp('not-a-token-0123456789')).rejects.toThrow(/401/);
    await expect(overHttp(undefined)).rejects.toThrow(/401/);
    const raw = await fetch(`${service.apiUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('/mcp is stateless: GET and DELETE answer 405 naming POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${service.apiUrl}/mcp`, {
        method,
        headers: { authorization: `Bearer ${VIEWER}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    // A client that cannot take the protocol's answers is told so by the transport (JSON-RPC error).
    const plain = await fetch(`${service.apiUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${VIEWER}`, 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(plain.status).toBe(406);
  });
});

describe('the tools, over HTTP with a viewer token', () => {
  let client: Client;
  beforeAll(async () => {
    ({ client } = await overHttp(VIEWER));
  });
  afterAll(async () => {
    await client.close();
  });

  it('posture is the API posture, with links to the overview and the paths', async () => {
    const { posture } = await api(
      VIEWER,
      '{ posture { criticalPaths suppressedCriticalPaths kevOnPaths runtimeConfirmed openPaths } }',
    );
    const got = structured(await client.callTool({ name: 'posture', arguments: {} }));
    expect(got).toEqual({ ...posture, link: `${PUBLIC_URL}/`, pathsLink: `${PUBLIC_URL}/paths` });
  });

  it('list_attack_paths pages with the cursor and filters as the API does', async () => {
    const { attackPathsConnection } = await api(
      VIEWER,
      '{ attackPathsConnection(first: 100) { totalCount edges { node { id priority } } } }',
    );
    const ids = attackPathsConnection.edges.map((e: { node: { id: string } }) => e.node.id);
    const first = structured(await client.callTool({ name: 'list_attack_paths', arguments: { first: 2 } }));
    expect(first.totalCount).toBe(attackPathsConnection.totalCount);
    expect(first.paths.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2));
    const second = structured(
      await client.callTool({ name: 'list_attack_paths', arguments: { first: 2, after: first.nextCursor } }),
    );
    expect(second.paths.map((p: { id: string }) => p.id)).toEqual(ids.slice(2, 4));
    const p1 = structured(
      await client.callTool({ name: 'list_attack_paths', arguments: { priority: 'P1' } }),
    );
    expect(p1.paths.map((p: { id: string }) => p.id)).toEqual(
      attackPathsConnection.edges
        .filter((e: { node: { priority: string } }) => e.node.priority === 'P1')
        .map((e: { node: { id: string } }) => e.node.id),
    );
    // A bad argument is refused by the tool's schema, naming it.
    const bad = await client.callTool({ name: 'list_attack_paths', arguments: { first: 0 } });
    expect(toolError(bad)).toMatch(/first/);
  });

  it('lists paths as resources and reads one', async () => {
    const expected = await criticalRoute(VIEWER);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`pathgate://paths/${expected.id}`);
    const read = await client.readResource({ uri: `pathgate://paths/${expected.id}` });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    expect(body.route).toBe(expected.nodes.map((n) => n.name).join(' → '));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('pathgate://paths/{id}');
  });

  it("gate_verdict answers the commit's recorded verdict, and says when there is none", async () => {
    const { prVerdict } = await api(VIEWER, `{ prVerdict(sha: "${SHA}") { sha verdict reason opened } }`);
    const got = structured(await client.callTool({ name: 'gate_verdict', arguments: { sha: SHA } }));
    expect(got).toMatchObject({ found: true, ...prVerdict, link: `${PUBLIC_URL}/gate?sha=${SHA}` });
    const none = structured(
      await client.callTool({ name: 'gate_verdict', arguments: { sha: 'deadbeef99' } }),
    );
    expect(none.found).toBe(false);
  });

  it("what_if cutting the critical route's hops answers the API's what-if, with the paths it closes", async () => {
    const route = await criticalRoute(VIEWER);
    const cuts = route.steps.map((s) => ({ from: s.from, to: s.to, type: s.type }));
    const { whatIf } = await api(
      VIEWER,
      `query ($cuts: [EdgeCut!]!) { whatIf(cuts: $cuts) {
        removedEdges riskReduction afterRisk { anyCompromiseProbability } closedPaths { id } } }`,
      { cuts },
    );
    const got = structured(await client.callTool({ name: 'what_if', arguments: { cuts } }));
    expect(got.removedEdges).toBe(whatIf.removedEdges);
    expect(got.removedEdges).toBeGreaterThan(0);
    expect(got.riskReduction).toBe(whatIf.riskReduction);
    expect(got.riskAfter.anyCompromiseProbability).toBe(whatIf.afterRisk.anyCompromiseProbability);
    expect(got.closedPaths.map((p: { id: string }) => p.id)).toEqual(
      whatIf.closedPaths.map((p: { id: string }) => p.id),
    );
    expect(got.link).toBe(`${PUBLIC_URL}/what-if`);
    const unknown = await client.callTool({
      name: 'what_if',
      arguments: { cuts: [{ from: 'no-such-node', to: 'nor-this' }] },
    });
    expect(toolError(unknown)).toMatch(/no-such-node/);
  });

  it('remediation_plan is the API plan, each path linked', async () => {
    const { remediationPlan } = await api(VIEWER, '{ remediationPlan { rank title pathIds } }');
    const got = structured(await client.callTool({ name: 'remediation_plan', arguments: {} }));
    expect(got.items.map((i: { rank: number; title: string }) => [i.rank, i.title])).toEqual(
      remediationPlan.map((i: { rank: number; title: string }) => [i.rank, i.title]),
    );
    for (const [n, item] of got.items.entries())
      expect(item.paths.map((p: { link: string }) => p.link)).toEqual(
        remediationPlan[n].pathIds.map((id: string) => `${PUBLIC_URL}/paths/${id}`),
      );
  });
});

describe('the admin tool', () => {
  it('suppress_attack_path suppresses through POST /suppressions, as the admin', async () => {
    const { attackPathsConnection } = await api(
      ADMIN,
      '{ attackPathsConnection(first: 100, priority: P2) { edges { node { id } } } }',
    );
    const pathId = attackPathsConnection.edges[0].node.id as string;
    const { client } = await overHttp(ADMIN);
    try {
      const got = structured(
        await client.callTool({
          name: 'suppress_attack_path',
          arguments: { pathId, reason: 'mitigating-control', owner: 'platform-team', ttlDays: 7 },
        }),
      );
      expect(got.suppression).toMatchObject({ pathId, reason: 'mitigating-control', state: 'active' });
    } finally {
      await client.close();
    }
    const board = (await (
      await fetch(`${service.apiUrl}/suppressions`, { headers: { authorization: `Bearer ${VIEWER}` } })
    ).json()) as { suppressions: { pathId: string; owner: string }[] };
    expect(board.suppressions).toContainEqual(expect.objectContaining({ pathId, owner: 'platform-team' }));
  }, 60_000);

  it("a viewer's call of the admin tool is refused: it is not on the viewer's server", async () => {
    const { client } = await overHttp(VIEWER);
    try {
      const result = await client.callTool({
        name: 'suppress_attack_path',
        arguments: { pathId: 'ap-0000000000000000', reason: 'duplicate', owner: 'x' },
      });
      expect(toolError(result)).toMatch(/suppress_attack_path/);
    } finally {
      await client.close();
    }
  });
});
