// Tickets through the API: admin-only writes, one open ticket per path, the work board, closing, app
// scoping, dispatch to TICKET_WEBHOOK_URL (a receiver on loopback), and problems naming the bad value.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const ADMIN = 'tickets-admin-token-0123456789';
const VIEWER = 'tickets-viewer-token-0123456789';
const SHOP_ADMIN = 'tickets-shop-admin-token-012345';
let service: TestService;
let receiver: http.Server;
const received: any[] = [];
let shopPath: string;
let billingPath: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.statusCode = 202;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  service = await makeService({
    API_TOKENS: `${ADMIN}:admin,${VIEWER}:viewer,${SHOP_ADMIN}:admin::2030-01-01:shop`,
    TICKET_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tickets`,
  });
  const lb = node('LoadBalancer', 'edge', { internet_exposed: true });
  const shop = node('Service', 'shop-web', { app: 'shop' });
  const billing = node('Service', 'billing-api', { app: 'billing' });
  const orders = node('Database', 'orders', { crown_jewel: true });
  const ledger = node('Database', 'ledger', { crown_jewel: true });
  await service.ingest(
    envelope(
      [lb, shop, billing, orders, ledger],
      [
        edge('ROUTES_TO', lb, shop, 0.5),
        edge('ROUTES_TO', lb, billing, 0.5),
        edge('CONNECTS_TO', shop, orders, 0.5),
        edge('CONNECTS_TO', billing, ledger, 0.5),
      ],
    ),
  );
  await service.settle();
  const paths = service.engine.tenant('default')!.paths.open();
  const byTarget = (name: string) =>
    paths.find((p) => service.engine.tenant('default')!.graph.getNodeAttribute(p.targetId, 'name') === name)!
      .id;
  shopPath = byTarget('orders');
  billingPath = byTarget('ledger');
});
afterAll(async () => {
  await service.dispose();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const call = async (method: 'GET' | 'POST', url: string, token: string, body?: unknown) => {
  const r = await service.apiApp.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, json: r.json() };
};

describe('tickets', () => {
  it('opens one ticket per path (admin), sends it to the webhook, and lists it on the board', async () => {
    const created = await call('POST', '/tickets', ADMIN, { pathId: shopPath, owner: 'team-shop' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^tk-[0-9a-f]{16}$/),
      pathId: shopPath,
      owner: 'team-shop',
      state: 'open',
      route: { start: 'edge', target: 'orders', priority: 'P2' },
      createdBy: expect.stringMatching(/^token:/),
      dispatch: { status: 202, error: null },
    });
    expect(received.at(-1)).toMatchObject({
      event: 'ticket.opened',
      tenant: 'default',
      ticket: { id: created.json.id },
    });
    const second = await call('POST', '/tickets', ADMIN, { pathId: shopPath, owner: 'someone' });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ type: 'urn:pathgate:problem:conflict', ticket: created.json.id });
    const board = await call('GET', '/tickets?state=open', VIEWER);
    expect(board.json.tickets.map((t: { id: string }) => t.id)).toEqual([created.json.id]);

    const closed = await call('POST', `/tickets/${created.json.id}/close`, ADMIN);
    expect(closed.json).toMatchObject({ state: 'closed', closedBy: expect.stringMatching(/^token:/) });
    expect(received.at(-1)).toMatchObject({ event: 'ticket.closed' });
    expect((await call('POST', `/tickets/${created.json.id}/close`, ADMIN)).status).toBe(409);
    // Closed, the path may have a new one.
    expect((await call('POST', '/tickets', ADMIN, { pathId: shopPath, owner: 'team-shop' })).status).toBe(
      201,
    );
  });

  it('refuses non-admins, unknown paths and malformed bodies, naming the value', async () => {
    expect((await call('POST', '/tickets', VIEWER, { pathId: billingPath, owner: 'x' })).status).toBe(403);
    const unknown = await call('POST', '/tickets', ADMIN, { pathId: 'ap-0000000000000000', owner: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0]).toMatchObject({ pointer: '/pathId', value: 'ap-0000000000000000' });
    const bad = await call('POST', '/tickets', ADMIN, { pathId: 'nope', owner: '' });
    expect(bad.status).toBe(400);
    expect([...new Set(bad.json.errors.map((e: { pointer: string }) => e.pointer))].sort()).toEqual([
      '/owner',
      '/pathId',
    ]);
    expect((await call('GET', '/tickets?state=maybe', VIEWER)).json.errors[0].pointer).toBe('/query/state');
  });

  it('keeps an app-bound admin to the paths of its applications', async () => {
    expect((await call('POST', '/tickets', SHOP_ADMIN, { pathId: billingPath, owner: 'x' })).status).toBe(
      404,
    );
    const billing = await call('POST', '/tickets', ADMIN, { pathId: billingPath, owner: 'team-billing' });
    expect(billing.status).toBe(201);
    const board = await call('GET', '/tickets', SHOP_ADMIN);
    expect(board.json.tickets.every((t: { pathId: string }) => t.pathId === shopPath)).toBe(true);
    expect((await call('POST', `/tickets/${billing.json.id}/close`, SHOP_ADMIN)).status).toBe(404);
  });
});
