import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeService, type TestService } from '../helpers/service.js';
import { edge, envelope, node } from '../helpers/envelope.js';

let svc: TestService;
beforeEach(async () => {
  svc = await makeService();
});
afterEach(async () => {
  await svc.dispose();
});

const lb = node('LoadBalancer', 'public-lb', { internet_exposed: true });
const app = node('Service', 'checkout');
const db = node('Database', 'orders-db', { crown_jewel: true });
const estate = envelope(
  [lb, app, db],
  [edge('ROUTES_TO', lb, app, 0.9), edge('HAS_PERMISSION', app, db, 0.8)],
);

async function graphSize(tenant = 'default') {
  await svc.engine.drain();
  const state = svc.engine.tenant(tenant);
  return { nodes: state?.graph.order ?? 0, edges: state?.graph.size ?? 0 };
}

describe('POST /ingest/events', () => {
  it('answers 202 with the batch id and counts, and the batch reaches the graph', async () => {
    const response = await svc.ingest(estate);
    expect(response.status).toBe(202);
    expect(response.json).toEqual({ batchId: expect.stringMatching(/^b-/), nodes: 3, edges: 2 });
    await svc.settle();
    const data = await svc.graphql(
      `{ ingestBatch(id: "${response.json.batchId}") { complete chunks chunksApplied nodes edges source } }`,
    );
    expect(data.ingestBatch).toEqual({
      complete: true,
      chunks: 1,
      chunksApplied: 1,
      nodes: 3,
      edges: 2,
      source: 'events',
    });
    expect(await graphSize()).toEqual({ nodes: 3, edges: 2 });
  });

  it('derives a node id from label and name when it is omitted', async () => {
    const bare = { ...estate, nodes: estate.nodes.map(({ id: _id, ...rest }) => rest) };
    expect((await svc.ingest(bare)).status).toBe(202);
    expect(await graphSize()).toEqual({ nodes: 3, edges: 2 });
  });

  it.each([
    [
      'an unknown node label',
      { ...estate, nodes: [{ label: 'Spaceship', name: 'x' }] },
      'unknown-vocabulary',
      '/nodes/0/label',
      'Spaceship',
    ],
    [
      'an unknown edge type',
      { ...estate, edges: [{ type: 'TELEPORTS_TO', from: lb.id, to: app.id }] },
      'unknown-vocabulary',
      '/edges/0/type',
      'TELEPORTS_TO',
    ],
    [
      'a missing field',
      { source: 's', kind: 'asset', nodes: [], edges: [] },
      'invalid-payload',
      '/observed_at',
      undefined,
    ],
    [
      'a wrong type',
      { ...estate, nodes: [{ label: 'Service', name: 42 }] },
      'invalid-payload',
      '/nodes/0/name',
      42,
    ],
    ['an unknown event kind', { ...estate, kind: 'gossip' }, 'invalid-payload', '/kind', 'gossip'],
    [
      'a probability above 1',
      { ...estate, edges: [{ type: 'ROUTES_TO', from: lb.id, to: app.id, exploit_probability: 1.5 }] },
      'invalid-payload',
      '/edges/0/exploit_probability',
      1.5,
    ],
    [
      'an id that does not match label and name',
      { ...estate, nodes: [{ ...lb, id: 'LoadBalancer:0000000000000000' }] },
      'invalid-payload',
      '/nodes/0/id',
      'LoadBalancer:0000000000000000',
    ],
    [
      'an edge endpoint with an unknown label',
      { ...estate, edges: [{ type: 'ROUTES_TO', from: 'Spaceship:0123456789abcdef', to: app.id }] },
      'unknown-vocabulary',
      '/edges/0/from',
      'Spaceship:0123456789abcdef',
    ],
    [
      'a bad timestamp',
      { ...estate, observed_at: 'yesterday' },
      'invalid-payload',
      '/observed_at',
      'yesterday',
    ],
  ])(
    'rejects %s with 400 problem+json naming it, storing nothing',
    async (_name, body, code, pointer, value) => {
      await svc.ingest(estate);
      const before = await graphSize();
      const response = await svc.ingest(body);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json).toMatchObject({ type: `urn:pathgate:problem:${code}`, status: 400 });
      const offending = response.json.errors.find((e: { pointer: string }) => e.pointer === pointer);
      expect(offending).toBeDefined();
      if (value !== undefined) expect(offending.value).toEqual(value);
      expect(response.json.detail).toContain(pointer);
      expect(await graphSize()).toEqual(before);
    },
  );

  it('rejects malformed JSON with 400', async () => {
    const response = await svc.ingest('{"source": "x", ');
    expect(response.status).toBe(400);
    expect(response.json.type).toBe('urn:pathgate:problem:malformed-json');
  });

  it('rejects a body over 32 MiB with 413 and stores nothing', async () => {
    const padding = 'x'.repeat(33 * 1024 * 1024);
    const response = await svc.ingest(`{"source":"${padding}"}`);
    expect(response.status).toBe(413);
    expect(response.json.type).toBe('urn:pathgate:problem:payload-too-large');
    expect(await graphSize()).toEqual({ nodes: 0, edges: 0 });
  });

  it('answers 404 problem+json for an unknown source segment, whatever the body', async () => {
    const response = await svc.ingest('not even json', { source: 'nessus' });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ type: 'urn:pathgate:problem:unknown-source', status: 404 });
    expect(response.json.detail).toContain('"nessus"');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await svc.ingestApp.inject({
      method: 'POST',
      url: '/ingest/events',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().type).toBe('urn:pathgate:problem:unsupported-media-type');
  });

  it('splits an event over 1 MiB into chunks, nodes first, and all of it lands', async () => {
    const nodes = Array.from({ length: 6000 }, (_, i) =>
      node('Service', `svc-${i}`, { note: 'n'.repeat(200) }),
    );
    const edges = nodes.slice(1).map((n, i) => edge('CONNECTS_TO', nodes[i], n));
    const response = await svc.ingest(envelope(nodes, edges));
    expect(response.status).toBe(202);
    await svc.settle();
    const data = await svc.graphql(
      `{ ingestBatch(id: "${response.json.batchId}") { complete chunks chunksApplied } }`,
    );
    expect(data.ingestBatch.chunks).toBeGreaterThan(1);
    expect(data.ingestBatch).toMatchObject({ complete: true, chunksApplied: data.ingestBatch.chunks });
    expect(await graphSize()).toEqual({ nodes: 6000, edges: 5999 });
    expect(svc.engine.tenant('default')!.writer.pendingEdges).toBe(0);
  });

  it('keeps an edge parked until a later report brings its endpoint', async () => {
    await svc.ingest(envelope([lb], [edge('ROUTES_TO', lb, app, 0.9)]));
    await svc.settle();
    expect((await svc.graphql('{ status { graph { edges pendingEdges } } }')).status.graph).toEqual({
      edges: 0,
      pendingEdges: 1,
    });
    const metrics = await svc.tenantMetrics();
    expect(metrics.body).toContain('service_graph_pending_edges{tenant="default"} 1');
    await svc.ingest(envelope([app]));
    await svc.settle();
    expect((await svc.graphql('{ status { graph { edges pendingEdges } } }')).status.graph).toEqual({
      edges: 1,
      pendingEdges: 0,
    });
  });

  it('routes by X-Tenant: tenants never see each other', async () => {
    await svc.ingest(estate, { tenant: 'acme' });
    await svc.settle();
    const acme = await svc.graphql('{ attackPaths { id } }', { tenant: 'acme' });
    const other = await svc.graphql('{ attackPaths { id } }', { tenant: 'globex' });
    const fallback = await svc.graphql('{ attackPaths { id } }');
    expect(acme.attackPaths).toHaveLength(1);
    expect(other.attackPaths).toEqual([]);
    expect(fallback.attackPaths).toEqual([]);
  });

  it('rejects a malformed tenant name', async () => {
    const response = await svc.ingest(estate, { tenant: '../etc' });
    expect(response.status).toBe(400);
    expect(response.json.errors[0]).toMatchObject({ pointer: '/headers/x-tenant', value: '../etc' });
  });

  it('redacts secrets from property values before they are stored, leaving ids and names alone', async () => {
    const key = ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join('');
    const leaky = node('Service', 'billing', { env: `AWS_ACCESS_KEY_ID=${key}`, commit_sha: 'a'.repeat(40) });
    expect((await svc.ingest(envelope([leaky]))).status).toBe(202);
    await svc.settle();
    const attrs = svc.engine.tenant('default')!.graph.getNodeAttributes(leaky.id);
    expect(attrs.name).toBe('billing');
    expect(JSON.stringify(attrs.props)).not.toContain(key);
    expect(attrs.props).toMatchObject({ secrets_scrubbed: true, commit_sha: 'a'.repeat(40) });
    expect(String(attrs.props.env)).toContain('***redacted:');
  });
});

describe('request ids', () => {
  it('honours a short alphanumeric X-Request-Id and replaces anything else', async () => {
    const kept = await svc.ingestApp.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc123' },
    });
    expect(kept.headers['x-request-id']).toBe('abc123');
    const replaced = await svc.apiApp.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'evil\nvalue<script>' },
    });
    expect(replaced.headers['x-request-id']).not.toContain('evil');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const long = await svc.apiApp.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'a'.repeat(200) },
    });
    expect(String(long.headers['x-request-id']).length).toBeLessThanOrEqual(64);
  });

  it('gives unknown routes a 404 problem', async () => {
    const response = await svc.apiApp.inject({ method: 'GET', url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/problem\+json/);
    expect(response.headers['x-request-id']).toBeTruthy();
  });
});
