import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../app/service.js';
import { makeService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await makeService();
  expect(await loadDemo(svc)).toBe(true);
  await svc.settle();
});
afterAll(async () => {
  await svc.dispose();
});

const PATH_FIELDS =
  'id score logScore priority directAccess openForSeconds reopens nodes { id name label } steps { from to type probability weightBasis }';

describe('attackPaths on the demo estate', () => {
  it('lists open paths highest score first, with nodes and steps', async () => {
    const { attackPaths } = await svc.graphql(`{ attackPaths { ${PATH_FIELDS} } }`);
    expect(attackPaths.length).toBeGreaterThanOrEqual(4);
    const scores = attackPaths.map((p: { score: number }) => p.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const direct = attackPaths.find((p: { directAccess: boolean }) => p.directAccess);
    expect(direct).toMatchObject({
      score: 1,
      priority: 'P1',
      steps: [],
      nodes: [{ name: 'acme-customer-exports', label: 'Bucket' }],
    });
    const stripe = attackPaths.find(
      (p: { nodes: { name: string }[] }) => p.nodes.at(-1)!.name === 'shop/stripe-api-key',
    );
    expect(stripe.nodes.map((n: { name: string }) => n.name)).toEqual([
      'shop-public-alb',
      'checkout-api',
      'shop/stripe-api-key',
    ]);
    // The hop into checkout-api is priced from its image's worst CVE (CVSS 9.8 -> 0.784), scaled by the
    // tag join (0.85) that says the workload runs the scanned image; then its key, 0.95.
    const hop = 0.98 * 0.8 * 0.85;
    expect(stripe.score).toBeCloseTo(hop * 0.95, 12);
    expect(stripe.logScore).toBeCloseTo(Math.log(hop * 0.95), 12);
    expect(direct.logScore).toBe(0);
    expect(stripe.steps[0]).toMatchObject({ type: 'ROUTES_TO', weightBasis: 'cvss' });
    expect(stripe.steps[0].probability).toBeCloseTo(hop, 12);
    for (const path of attackPaths) expect(path.id).toMatch(/^ap-[0-9a-f]{16}$/);
  });

  it('has a route across the cloud account: network, instance role, IAM escalation', async () => {
    const { attackPaths } = await svc.graphql(`{ attackPaths { ${PATH_FIELDS} } }`);
    const escalation = attackPaths.find(
      (p: { nodes: { name: string }[] }) => p.nodes.at(-1)!.name === '111122223333/account-admin',
    );
    // PassRole + ec2:RunInstances reaches the administrator role EC2 may run as, and through it the account.
    expect(escalation.nodes.map((n: { name: string }) => n.name)).toEqual([
      '111122223333/jump-1',
      '111122223333/batch-worker-1',
      '111122223333/batch-worker-role',
      '111122223333/batch-node-admin',
      '111122223333/account-admin',
    ]);
    expect(escalation.steps.map((s: { type: string }) => s.type)).toEqual([
      'CONNECTS_TO',
      'ASSUMES',
      'CAN_ESCALATE_TO',
      'CAN_ESCALATE_TO',
    ]);
    expect(escalation.score).toBeCloseTo(0.5 * 0.8 * 0.9 * 1, 12);
  });

  it('has a route through the shop cluster: ingress, service, pods, service account, escalation', async () => {
    const { attackPaths } = await svc.graphql(`{ attackPaths { ${PATH_FIELDS} } }`);
    // The demo sends the dump as snapshot=cluster:shop: every name is qualified by the cluster.
    const cluster = attackPaths.find(
      (p: { nodes: { name: string }[] }) =>
        p.nodes.at(-1)!.name === 'shop/cluster-admin' && p.nodes[0].name === 'shop/shop/ingress/storefront',
    );
    expect(cluster.nodes.map((n: { name: string }) => n.name)).toEqual([
      'shop/shop/ingress/storefront',
      'shop/shop/service/reviews',
      'shop/shop/reviews',
      'shop/shop/reviews-sa',
      'shop/shop/role/job-launcher',
      'shop/cluster-admin',
    ]);
  });

  it('lists the public customer-exports bucket as a policy violation', async () => {
    const { violations } = await svc.graphql('{ violations { invariant severity node { name } } }');
    expect(violations).toEqual([
      {
        invariant: 'no-internet-exposed-sensitive-asset',
        severity: 'CRITICAL',
        node: { name: 'acme-customer-exports' },
      },
    ]);
  });

  it('does not list the credential-exposed user without SEED_IAM_USERS', async () => {
    const { attackPaths } = await svc.graphql('{ attackPaths { nodes { name } } }');
    expect(attackPaths.some((p: { nodes: { name: string }[] }) => p.nodes[0].name === 'ci-deployer')).toBe(
      false,
    );
  });

  it('narrows by priority, minScore and target (id or name), and pages with first/after', async () => {
    const all = (await svc.graphql('{ attackPaths { id score priority nodes { id name } } }')).attackPaths;
    const p1 = (await svc.graphql('{ attackPaths(priority: P1) { id priority } }')).attackPaths;
    expect(p1.length).toBeGreaterThan(0);
    expect(p1.every((p: { priority: string }) => p.priority === 'P1')).toBe(true);
    const strong = (await svc.graphql('{ attackPaths(minScore: 0.5) { score } }')).attackPaths;
    expect(strong.every((p: { score: number }) => p.score >= 0.5)).toBe(true);
    const byName = (await svc.graphql('{ attackPaths(target: "ORDERS-postgres") { id nodes { name } } }'))
      .attackPaths;
    expect(byName.length).toBeGreaterThan(0);
    expect(
      byName.every((p: { nodes: { name: string }[] }) => p.nodes.at(-1)!.name === 'orders-postgres'),
    ).toBe(true);
    const targetId = byName[0] && all.find((p: { id: string }) => p.id === byName[0].id).nodes.at(-1).id;
    expect((await svc.graphql(`{ attackPaths(target: "${targetId}") { id } }`)).attackPaths).toHaveLength(
      byName.length,
    );
    const first = (await svc.graphql('{ attackPaths(first: 2) { id } }')).attackPaths;
    const next = (await svc.graphql(`{ attackPaths(first: 2, after: "${first[1].id}") { id } }`)).attackPaths;
    expect([...first, ...next].map((p: { id: string }) => p.id)).toEqual(
      all.slice(0, 4).map((p: { id: string }) => p.id),
    );
  });

  it('answers a GraphQL error for an unknown cursor', async () => {
    await expect(svc.graphql('{ attackPaths(after: "ap-0000000000000000") { id } }')).rejects.toThrow(
      /cursor/,
    );
  });

  it('reports posture and status', async () => {
    const { posture, status } = await svc.graphql(
      '{ posture { criticalPaths kevOnPaths runtimeConfirmed openPaths } status { prunedNodes prunedEdges lastPrunedAt graph { nodes edges pendingEdges } analyzer { passes upToDate lastPassSeconds starts targets } } }',
    );
    const p1 = (await svc.graphql('{ attackPaths(priority: P1) { id } }')).attackPaths.length;
    expect(posture).toMatchObject({ criticalPaths: p1, kevOnPaths: 0, runtimeConfirmed: 0 });
    expect(status).toMatchObject({
      prunedNodes: 0,
      prunedEdges: 0,
      lastPrunedAt: null,
      // the demo account's passable administrator role (batch-node-admin) and its hop count here
      graph: { nodes: 35, edges: 33, pendingEdges: 0 },
    });
    // Starts: the shop cluster's ingress, not also the service behind it (DECISIONS "One start per exposure").
    // Targets include the demo account's administrator role (AdministratorAccess: a crown jewel) and account-admin.
    expect(status.analyzer).toMatchObject({ passes: 1, upToDate: true, starts: 5, targets: 6 });
  });

  it('exposes the spec metrics on /metrics', async () => {
    const response = await svc.tenantMetrics();
    expect(response.statusCode).toBe(200);
    for (const name of [
      'service_analyzer_critical_paths{tenant="default"}',
      'service_analyzer_passes_total{tenant="default"} 1',
      'service_analyzer_pass_seconds_bucket',
      'service_graph_nodes{tenant="default"} 35',
      'service_graph_edges{tenant="default"} 33',
      'service_graph_pending_edges{tenant="default"} 0',
    ]) {
      expect(response.body).toContain(name);
    }
  });

  it('answers healthz on both listeners', async () => {
    for (const app of [svc.apiApp, svc.ingestApp]) {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('ok');
    }
  });
});

describe('SEED_IAM_USERS on the demo estate', () => {
  it('adds the credential-exposed user as a starting node', async () => {
    const seeded = await makeService({ SEED_IAM_USERS: 'true' });
    try {
      await loadDemo(seeded);
      await seeded.settle();
      const { attackPaths } = await seeded.graphql('{ attackPaths { nodes { name } } }');
      const fromUser = attackPaths.filter(
        (p: { nodes: { name: string }[] }) => p.nodes[0].name === 'ci-deployer',
      );
      expect(fromUser.map((p: { nodes: { name: string }[] }) => p.nodes.map((n) => n.name))).toEqual([
        ['ci-deployer', 'deploy-admin', 'orders-postgres'],
      ]);
    } finally {
      await seeded.dispose();
    }
  });
});
