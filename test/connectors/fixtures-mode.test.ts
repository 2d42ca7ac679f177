// The connectors in fixtures mode, end to end through a real service: the shipped demo fixtures (AWS CLI
// outputs and Cloud Custodian recordings of real AWS answers; cloudb's normalized network state) are pulled
// on a tick, with no report pushed, and yield the routes the same reports yield when pushed; a resource
// removed from the fixtures is retracted at the next pull; metrics and GET /connectors say what happened.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../app/package-root.js';
import { createCloudaFixturesSource } from '../../src/connectors/clouda/fixtures.js';
import { createCloudbFixturesSource } from '../../src/connectors/cloudb/fixtures.js';
import { edgeLines } from '../helpers/graph-lines.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';

const DEMO = path.join(packageRoot(), 'fixtures', 'connectors');
const PATHS = `{ attackPaths { priority directAccess nodes { name } } }`;

let services: TestService[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.dispose()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  services = [];
  dirs = [];
});

async function copyOfDemo(): Promise<string> {
  const dir = await tempDir('pathgate-connectors-');
  dirs.push(dir);
  await cp(DEMO, dir, { recursive: true });
  return dir;
}

async function connectorService(dir: string): Promise<TestService> {
  const service = await makeService({
    CONNECTORS_ENABLED: 'clouda,cloudb',
    CLOUDA_CONNECTOR_MODE: 'fixtures',
    CLOUDA_FIXTURES_DIR: path.join(dir, 'clouda'),
    CLOUDB_FIXTURES_DIR: path.join(dir, 'cloudb'),
  });
  services.push(service);
  return service;
}

const routeNames = async (service: TestService) =>
  ((await service.graphql(PATHS)).attackPaths as { nodes: { name: string }[] }[]).map((p) =>
    p.nodes.map((n) => n.name).join(' > '),
  );

describe('clouda and cloudb in fixtures mode', () => {
  it('pull the demo estate with no report pushed, into the routes a push of the same reports gives', async () => {
    const dir = await copyOfDemo();
    const service = await connectorService(dir);
    expect(service.engine.tenant('default')?.graph.order ?? 0).toBe(0);
    await service.connectors.tick();
    await service.settle();
    const routes = await routeNames(service);
    // The demo account: jump-1 (open to the internet) reaches batch-worker-1, whose role passes an
    // administrator role to EC2.
    expect(routes.some((r) => /jump-1 > .*batch-worker-1 > .*111122223333\/account-admin$/.test(r))).toBe(
      true,
    );
    // The recorded account: the billing bucket every AWS account may read is an exposed crown jewel, and
    // the instance in the subnet routed to the internet gateway is a node of the account.
    const graph = service.engine.tenant('default')!.graph;
    const named = (name: string) => {
      let found: Record<string, unknown> | undefined;
      graph.forEachNode((_id, a) => {
        if (a.name === name) found = a.props as Record<string, unknown>;
      });
      return found;
    };
    expect(named('644160558196/custodian-skunk-billing')).toMatchObject({
      internet_exposed: true,
      crown_jewel: true,
      exposure_basis: 'acl:AuthenticatedUsers:READ',
    });
    expect(named('644160558196/i-0ed351953eb1132ef')).toMatchObject({ account: '644160558196' });
    // cloudb: the public web VM reaches the app VM, which reaches the pii database across the peering.
    expect(routes.some((r) => /shop-web-1 > .*shop-app-1 > .*orders-db-1$/.test(r))).toBe(true);

    // The same reports pushed by hand give the same graph: a pull names the nodes a push names.
    const pushed = await makeService();
    services.push(pushed);
    for (const source of [
      createCloudaFixturesSource({ dir: path.join(dir, 'clouda'), region: 'us-east-1' }),
      createCloudbFixturesSource({ dir: path.join(dir, 'cloudb') }),
    ]) {
      const pull = await source.pull(new AbortController().signal);
      expect(pull.failures).toEqual([]);
      for (const account of pull.accounts)
        for (const report of account.reports) {
          const account12 = /^aws:(\d{12})\//.exec(report.scope)?.[1];
          const query = `snapshot=${encodeURIComponent(report.scope)}${account12 ? `&account=${account12}` : ''}`;
          expect((await pushed.ingest(report.body, { source: report.source, query })).status).toBe(202);
        }
    }
    await pushed.settle();
    const lines = (s: TestService) => edgeLines(s.engine.tenant('default')!.graph).sort();
    expect(lines(service)).toEqual(lines(pushed));
    expect(await routeNames(service)).toEqual(await routeNames(pushed));

    // Health and metrics.
    const answer = await service.apiApp.inject({ method: 'GET', url: '/connectors' });
    expect(answer.statusCode).toBe(200);
    const body = answer.json();
    expect(body.leader).toBe(true);
    expect(body.tenant).toBe('default');
    const clouda = body.connectors.find((c: any) => c.name === 'clouda');
    expect(clouda).toMatchObject({
      mode: 'fixtures',
      lastResult: 'ok',
      lastError: null,
      runs: 1,
      skipped: 0,
    });
    expect(clouda.nextRunAt).toEqual(expect.any(String));
    expect(clouda.lastDurationMs).toBeGreaterThanOrEqual(0);
    expect(clouda.accounts.map((a: any) => [a.account, a.lastError, a.reports])).toEqual([
      ['111122223333', null, 2],
      ['644160558196', null, 2],
    ]);
    expect(clouda.events).toBeGreaterThan(0);
    const metrics = (await service.apiApp.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('service_connector_runs_total{connector="clouda",result="ok"} 1');
    expect(metrics).toContain('service_connector_runs_total{connector="cloudb",result="ok"} 1');
    expect(metrics).toMatch(/service_connector_last_success_timestamp_seconds\{connector="clouda"\} \d+/);
    expect(metrics).toContain(`service_connector_events_total{connector="clouda"} ${clouda.events}`);
  });

  it('retracts an instance removed from the fixtures at the next pull', async () => {
    const dir = await copyOfDemo();
    const service = await connectorService(dir);
    await service.connectors.tick();
    await service.settle();
    const hasJump = () =>
      [...(service.engine.tenant('default')?.graph.nodes() ?? [])].some((id) =>
        String(service.engine.tenant('default')!.graph.getNodeAttribute(id, 'name')).includes('jump-1'),
      );
    expect(hasJump()).toBe(true);
    const file = path.join(dir, 'clouda', '111122223333', 'ec2-describe-instances.json');
    const instances = JSON.parse(await readFile(file, 'utf8'));
    for (const r of instances.Reservations)
      r.Instances = r.Instances.filter((i: any) => !i.Tags?.some((t: any) => t.Value === 'jump-1'));
    await writeFile(file, JSON.stringify(instances));
    await service.connectors.tick();
    await service.settle();
    expect(hasJump()).toBe(false);
    expect((await routeNames(service)).some((r) => r.includes('jump-1'))).toBe(false);
    // The other route of the pull is still there.
    expect((await routeNames(service)).some((r) => r.endsWith('orders-db-1'))).toBe(true);
  });

  it("reports an unreadable account file as that account's error and keeps its assets", async () => {
    const dir = await copyOfDemo();
    const service = await connectorService(dir);
    await service.connectors.tick();
    await service.settle();
    const before = edgeLines(service.engine.tenant('default')!.graph).filter((l) =>
      l.includes('644160558196'),
    );
    expect(before.length).toBeGreaterThan(0);
    await writeFile(
      path.join(dir, 'clouda', '644160558196', 'ec2-describe-instances.json'),
      '{"Reservations": [',
    );
    await service.connectors.tick();
    await service.settle();
    const clouda = service.connectors.status().connectors.find((c) => c.name === 'clouda')!;
    expect(clouda.lastResult).toBe('partial');
    const failed = clouda.accounts.find((a) => a.account === '644160558196')!;
    expect(failed.lastError).toMatch(/ec2-describe-instances\.json is not JSON/);
    expect(failed.lastSuccessAt).not.toBeNull();
    expect(
      edgeLines(service.engine.tenant('default')!.graph).filter((l) => l.includes('644160558196')),
    ).toEqual(before);
  });
});
