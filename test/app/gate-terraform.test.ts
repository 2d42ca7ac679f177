// Infrastructure as code at the gate: Terraform plans (`terraform show -json`, fixtures/terraform/) against
// the demo estate's cloud account, through the listening API. A plan that puts a box whose role may pass
// any role on the internet is blocked before it merges, naming the route to the account's administrator; a
// plan that narrows the jump hosts' SSH closes that route (clean, improved); the plan's nodes are the
// cloud sources' nodes (no second VM, role or group). Negative twins: a plan that changes nothing that
// matters is clean; a plan of another account names nothing the estate holds. A state (`terraform show
// -json` of no plan) of the same resources names the same nodes; a malformed one is refused at ingest,
// storing nothing.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestGate } from '../../app/gate-client.js';
import { loadDemo } from '../../app/service.js';
import { createSources } from '../../src/ingest/sources/index.js';
import { recognizeReport } from '../../src/ingest/recognize.js';
import { makeService, type TestService } from '../helpers/service.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/terraform');
const plan = async (name: string) => readFile(path.join(fixtures, name), 'utf8');
const SHA = '7c0ffee1234567890abcdef1234567890abcdef1';
let service: TestService;
let apiUrl: string;

const ask = (report: string, query: Record<string, string> = {}) =>
  requestGate({
    apiUrl,
    report,
    query: { slug: 'acme/infra', pr: '31', sha: SHA, ...query },
  }) as Promise<any>;
const names = (route: any) => route.nodes.map((n: any) => n.name);

function liveState() {
  const state = service.engine.tenant('default')!;
  const edges: unknown[] = [];
  state.graph.forEachEdge((_k, a, s, t) => edges.push([a.type, s, t, a.p]));
  const nodes: unknown[] = [];
  state.graph.forEachNode((id, a) => nodes.push([id, a.props.internet_exposed]));
  return JSON.stringify({ edges, nodes, paths: state.paths.open().map((p) => [p.id, p.score]) });
}

beforeAll(async () => {
  service = await makeService();
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
  expect(await loadDemo(service)).toBe(true);
  // The account's authorization details with its administrator role, which EC2 may be launched with: the
  // batch workers' role (RunInstances, PassRole *) may pass it to a new instance (DECISIONS "IAM precision").
  const iam = JSON.parse(await readFile(path.join(fixtures, '../demo/iam-111122223333.json'), 'utf8'));
  iam.RoleDetailList.push({
    RoleName: 'batch-admin',
    Arn: 'arn:aws:iam::111122223333:role/batch-admin',
    AssumeRolePolicyDocument: {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    },
    AttachedManagedPolicies: [
      { PolicyName: 'AdministratorAccess', PolicyArn: 'arn:aws:iam::aws:policy/AdministratorAccess' },
    ],
    RolePolicyList: [],
  });
  expect((await service.ingest(iam, { source: 'iam', query: 'account=111122223333' })).status).toBe(202);
  await service.settle();
  const live = service.engine
    .tenant('default')!
    .paths.open()
    .map((p) => p.id);
  expect(live.length).toBeGreaterThan(0);
});
afterAll(() => service.dispose());

describe('Terraform plans at the gate', () => {
  it('is recognised as a terraform plan and read onto the cloud sources’ names', async () => {
    const body = JSON.parse(await plan('open-batch-worker-ssh.plan.json'));
    expect(recognizeReport(body)).toBe('terraform');
    const out = createSources()
      .get('terraform')!
      .normalize({ body, query: {}, receivedAt: '2026-11-20T09:14:03Z' });
    const nodes = out.envelopes.flatMap((e) => e.nodes);
    const graph = service.engine.tenant('default')!.graph;
    // Every VM, role and the admin the plan names is the node the cloud sources already hold.
    for (const name of ['111122223333/batch-worker-1', '111122223333/batch-worker-role']) {
      const node = nodes.find((n) => n.name === name)!;
      expect(node, name).toBeDefined();
      expect(graph.hasNode(node.id), name).toBe(true);
    }
    expect(nodes.find((n) => n.name === '111122223333/batch-worker-1')!.properties).toMatchObject({
      internet_exposed: true,
      region: 'us-east-1',
      terraform_address: 'aws_instance.batch_worker',
    });
    expect(out.envelopes.every((e) => e.source === 'terraform')).toBe(true);
  });

  it('blocks a plan that opens 0.0.0.0/0 to an instance whose role escalates', async () => {
    const before = liveState();
    const answer = await ask(await plan('open-batch-worker-ssh.plan.json'), { source: 'terraform' });
    expect(answer.verdict).toBe('blocked');
    const route = answer.opened.find(
      (r: any) =>
        names(r)[0] === '111122223333/batch-worker-1' && names(r).at(-1) === '111122223333/account-admin',
    );
    expect(route, answer.reason).toBeDefined();
    expect(names(route)).toContain('111122223333/batch-worker-role');
    expect(route.why[0]).toMatchObject({
      change: 'exposed',
      type: 'EXPOSURE',
      weightBasis: 'sg-open:tcp/22',
    });
    expect(route.fix).toMatch(
      /^do not expose 111122223333\/batch-worker-1 to the internet \(sg-open:tcp\/22\)/,
    );
    expect(route.critical).toBe(true);
    expect(answer.reason).toContain('111122223333/batch-worker-1 → 111122223333/account-admin');
    expect(liveState()).toBe(before);
  });

  it('is clean, reporting the route improved, for a plan that closes SSH from anywhere', async () => {
    const answer = await ask(await plan('close-jump-ssh.plan.json'));
    expect(answer.verdict).toBe('clean');
    expect(answer.source).toBe('terraform');
    expect(answer.opened).toEqual([]);
    expect(answer.worsened).toEqual([]);
    const closed = answer.improved.find(
      (p: any) => names(p)[0] === '111122223333/jump-1' && names(p).at(-1) === '111122223333/account-admin',
    );
    expect(closed, answer.reason).toMatchObject({
      closed: true,
      score: null,
      previousPriority: expect.any(String),
    });
  });

  it('is clean for a plan that re-states the estate as it is (negative twin)', async () => {
    const body = JSON.parse(await plan('close-jump-ssh.plan.json'));
    // The same resources, the group left open as it is today.
    const sg = body.planned_values.root_module.resources.find((r: any) => r.type === 'aws_security_group');
    sg.values.ingress[0].cidr_blocks = ['0.0.0.0/0'];
    const answer = await ask(JSON.stringify(body));
    expect(answer).toMatchObject({ verdict: 'clean', opened: [], worsened: [], improved: [] });
    expect(answer.preexisting).toBeGreaterThan(0);
  });

  it('names nothing the estate holds for a plan of another account (negative twin)', async () => {
    const answer = await ask(await plan('open-batch-worker-ssh.plan.json'), { account: '999988887777' });
    expect(answer.verdict).toBe('unknown');
    expect(answer.reason).toMatch(/names nothing the estate holds/);
  });

  it('answers unknown, naming the field, for a document that is not a plan', async () => {
    // Format 0.1 is Terraform 0.12's and read; 2.0 is none Terraform printed.
    const answer = await ask(JSON.stringify({ format_version: '2.0', planned_values: {} }), {
      source: 'terraform',
    });
    expect(answer).toMatchObject({
      verdict: 'unknown',
      errors: [expect.objectContaining({ pointer: '/format_version' })],
    });
  });
});

describe('Terraform states', () => {
  /**
   * The plan's resources as `terraform show -json` prints the state they leave (`values`, no plan fields),
   * with what apply makes known: the new instance's id and public address, the new rule's id.
   */
  const asState = (body: any) => {
    const root = structuredClone(body.planned_values.root_module);
    for (const r of root.resources) {
      if (r.type === 'aws_instance') Object.assign(r.values, { id: 'i-0f00d', public_ip: '198.51.100.20' });
      r.values.id ??= `${r.type}-${r.name}`;
    }
    return {
      format_version: '1.0',
      terraform_version: body.terraform_version,
      values: { root_module: root },
    };
  };
  const ids = (body: unknown, query: Record<string, string> = {}) =>
    createSources()
      .get('terraform')!
      .normalize({ body, query, receivedAt: '2026-11-20T09:14:03Z' })
      .envelopes.flatMap((e) => e.nodes.map((n) => `${n.id} ${n.name} ${n.properties?.internet_exposed}`))
      .sort();

  it('a state of the plan’s resources names the same nodes, and the gate reads it the same', async () => {
    const body = JSON.parse(await plan('open-batch-worker-ssh.plan.json'));
    const state = asState(body);
    expect(recognizeReport(state)).toBe('terraform');
    expect(ids(state)).toEqual(ids(body));
    expect(ids(state)).toContainEqual(expect.stringMatching(/ 111122223333\/batch-worker-1 true$/));
    const before = liveState();
    const answer = await ask(JSON.stringify(state));
    expect(answer).toMatchObject({ verdict: 'blocked', source: 'terraform' });
    expect(liveState()).toBe(before);
    // Twin: the state of another account names none of the plan's nodes.
    const other = ids(state, { account: '999988887777' });
    expect(other.filter((n) => ids(body).includes(n))).toEqual([]);
  });

  it('refuses a malformed state with a problem naming the pointer, and stores nothing', async () => {
    const before = liveState();
    const bad = { format_version: '1.0', values: { root_module: { resources: [{ address: 'x' }] } } };
    const answer = await service.ingest(bad, { source: 'terraform', query: 'account=111122223333' });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/values/root_module/resources/0' })],
    });
    expect(answer.json.detail).toContain('/values/root_module/resources/0');
    await service.settle();
    expect(liveState()).toBe(before);
    // Twin: the same state, well formed, is taken.
    const good = asState(JSON.parse(await plan('close-jump-ssh.plan.json')));
    const taken = await service.ingest(good, { source: 'terraform', query: 'slug=acme/infra&pr=32' });
    expect(taken.status).toBe(202);
  });
});
