// The estate the AI answer tests ask about: the demo estate in the default tenant, through the real ingest
// path, and a second tenant (`rival`) with names found nowhere else, so a prompt can be checked for what it
// must not hold. Tokens bind a viewer to each tenant; anonymous callers are viewers (and still refused /ai/*).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { expect } from 'vitest';
import { DEMO_DIR, loadDemo } from '../../app/service.js';
import { nodeId } from '../../src/graph/ids.js';
import { routeNodes, type PathRecord } from '../../src/paths/path-store.js';
import { yamlToList } from '../../src/ingest/yaml.js';
import { makeService, type TestService } from './service.js';

export const VIEWER = 'ai-viewer-token-0001';
export const RIVAL = 'ai-rival-token-00002';
/** Rival viewers bound to applications: `payroll` (the rival's worker) and `billing` (nothing there). */
export const RIVAL_PAYROLL = 'ai-rival-payroll-003';
export const RIVAL_BILLING = 'ai-rival-billing-004';
export const TOKENS = [
  `${VIEWER}:viewer:default`,
  `${RIVAL}:viewer:rival`,
  `${RIVAL_PAYROLL}:viewer:rival:2099-12-31:payroll`,
  `${RIVAL_BILLING}:viewer:rival:2099-12-31:billing`,
].join(',');

/** Names only the rival tenant holds: none may reach a prompt of the default tenant. */
export const RIVAL_NAMES = [
  'quokka-edge-gateway',
  'zanzibar-ledger-worker',
  'zanzibar-payroll-vault',
] as const;

/** The rival tenant's estate: an internet-facing gateway routes to a worker that reaches the payroll vault. */
export function rivalEnvelope(): object {
  const [gateway, worker, vault] = RIVAL_NAMES;
  return {
    source: 'rival-inventory',
    kind: 'asset',
    observed_at: '2026-11-01T09:00:00Z',
    nodes: [
      {
        id: nodeId('LoadBalancer', gateway),
        label: 'LoadBalancer',
        name: gateway,
        properties: { internet_exposed: true },
      },
      {
        id: nodeId('Service', worker),
        label: 'Service',
        name: worker,
        properties: { namespace: 'payroll', app: 'payroll' },
      },
      {
        id: nodeId('Database', vault),
        label: 'Database',
        name: vault,
        properties: { crown_jewel: true, crown_jewel_basis: 'classified:rival:payroll' },
      },
    ],
    edges: [
      { type: 'ROUTES_TO', from: nodeId('LoadBalancer', gateway), to: nodeId('Service', worker) },
      { type: 'CONNECTS_TO', from: nodeId('Service', worker), to: nodeId('Database', vault) },
    ],
  };
}

/** The demo's k8s dump with its reviews Deployment renamed to `name` (a hostile name in a real report). */
export async function k8sDumpWithWorkloadNamed(name: string): Promise<unknown> {
  const text = await readFile(path.join(DEMO_DIR, 'k8s-shop-cluster.yaml'), 'utf8');
  const renamed = text.replace(
    'kind: Deployment\nmetadata:\n  name: reviews\n',
    `kind: Deployment\nmetadata:\n  name: ${JSON.stringify(name)}\n`,
  );
  expect(renamed).not.toBe(text);
  return yamlToList(renamed);
}

export async function aiEstate(
  env: Record<string, string>,
  options: { k8s?: unknown; logger?: Logger } = {},
): Promise<TestService> {
  const s = await makeService(
    { API_TOKENS: TOKENS, API_ANONYMOUS_ROLE: 'viewer', ...env },
    { logger: options.logger },
  );
  await loadDemo(s);
  const rival = await s.ingest(rivalEnvelope(), { tenant: 'rival' });
  expect(rival.status).toBe(202);
  if (options.k8s) {
    const k8s = await s.ingest(options.k8s, { source: 'k8s', query: 'snapshot=cluster:shop' });
    expect(k8s.status).toBe(202);
  }
  await s.settle();
  return s;
}

/** The open path of `tenant` whose route holds a node named with `fragment`, the riskiest first. */
export function pathThrough(s: TestService, fragment: string, tenant = 'default'): PathRecord {
  const found = s.engine
    .tenant(tenant)
    ?.paths.open()
    .find((p) => routeNodes(p).some((n) => n.name.includes(fragment)));
  if (!found) throw new Error(`no open path through ${fragment} in ${tenant}`);
  return found;
}

export interface Asked {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  json: any;
}

export async function ask(
  s: TestService,
  body: unknown,
  options: { token?: string; accept?: string; tenant?: string } = {},
): Promise<Asked> {
  const response = await s.apiApp.inject({
    method: 'POST',
    url: '/ai/ask',
    headers: {
      'content-type': 'application/json',
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.accept && { accept: options.accept }),
      ...(options.tenant && { 'x-tenant': options.tenant }),
    },
    payload: JSON.stringify(body),
  });
  const type = String(response.headers['content-type'] ?? '');
  return {
    status: response.statusCode,
    headers: response.headers,
    body: response.body,
    json: type.includes('json') ? response.json() : undefined,
  };
}

/** Server-sent events as the client reads them: name and parsed data, in order. */
export function events(body: string): { event: string; data: any }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}
