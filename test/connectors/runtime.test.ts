// The connector runtime with a source of the test's own (a real ConnectorSource reading fixtures folders,
// one per account, whose second account's role can be made to fail): a failed account keeps its assets while
// the other account updates, GET /connectors names the error; a pull still running when the next tick comes
// makes that tick skip; stop() aborts a running pull. Start-up refuses bad connector settings by name.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../app/package-root.js';
import { readAccountFolder } from '../../src/connectors/clouda/fixtures.js';
import type { ConnectorSource, PullResult } from '../../src/connectors/connector.js';
import { edgeLines } from '../helpers/graph-lines.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import { startupRefusal } from '../helpers/settings.js';

const DEMO = path.join(packageRoot(), 'fixtures', 'connectors', 'clouda');
const A = '111122223333';
const B = '644160558196';

/** AWS in two accounts, each a fixtures folder; `failing` names accounts whose assume-role is refused. */
class TwoAccountSource implements ConnectorSource {
  readonly name = 'clouda';
  readonly mode = 'sdk' as const;
  readonly failing = new Set<string>();
  pulls = 0;
  /** while set, a pull waits for it (a slow AWS) */
  gate: Promise<void> | undefined;
  constructor(private readonly dir: string) {}

  async pull(signal: AbortSignal): Promise<PullResult> {
    this.pulls++;
    if (this.gate)
      await Promise.race([
        this.gate,
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
      ]);
    const result: PullResult = { accounts: [], failures: [] };
    for (const account of [A, B]) {
      if (this.failing.has(account)) {
        result.failures.push({
          account,
          error: `sts:AssumeRole arn:aws:iam::${account}:role/pathgate-read: AccessDenied`,
        });
        continue;
      }
      result.accounts.push({
        account,
        reports: await readAccountFolder(path.join(this.dir, account), account, 'us-east-1'),
        calls: 3,
      });
    }
    return result;
  }
}

let services: TestService[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.dispose()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  services = [];
  dirs = [];
});

async function setUp() {
  const dir = await tempDir('pathgate-connectors-');
  dirs.push(dir);
  await cp(DEMO, dir, { recursive: true });
  const source = new TwoAccountSource(dir);
  const service = await makeService({}, { connectorSources: [source] });
  services.push(service);
  return { dir, source, service };
}

/** Removes the instance named `name` (its Name tag or id) from an account's DescribeInstances file. */
async function removeInstance(dir: string, account: string, name: string) {
  const file = path.join(dir, account, 'ec2-describe-instances.json');
  const answer = JSON.parse(await readFile(file, 'utf8'));
  for (const r of answer.Reservations)
    r.Instances = r.Instances.filter(
      (i: any) => i.InstanceId !== name && !i.Tags?.some((t: any) => t.Key === 'Name' && t.Value === name),
    );
  await writeFile(file, JSON.stringify(answer));
}

const nodeNames = (service: TestService) => {
  const names: string[] = [];
  service.engine.tenant('default')!.graph.forEachNode((_id, a) => names.push(String(a.name)));
  return names;
};

describe('an account whose role fails', () => {
  it('keeps its assets and reports its error; the other account updates', async () => {
    const { dir, source, service } = await setUp();
    await service.connectors.tick();
    await service.settle();
    expect(nodeNames(service)).toEqual(expect.arrayContaining([`${A}/jump-1`, `${B}/i-0ed351953eb1132ef`]));
    const bEdges = () => edgeLines(service.engine.tenant('default')!.graph).filter((l) => l.includes(B));
    const before = bEdges();

    // Both accounts change; B's role is refused at the next pull.
    await removeInstance(dir, A, 'jump-1');
    await removeInstance(dir, B, 'i-0ed351953eb1132ef');
    source.failing.add(B);
    await service.connectors.tick();
    await service.settle();
    const names = nodeNames(service);
    expect(names).not.toContain(`${A}/jump-1`); // A updated: its removed instance is retracted
    expect(names).toContain(`${B}/i-0ed351953eb1132ef`); // B's previous snapshot stays
    expect(bEdges()).toEqual(before);

    const answer = await service.apiApp.inject({ method: 'GET', url: '/connectors' });
    expect(answer.statusCode).toBe(200);
    const clouda = answer.json().connectors[0];
    expect(clouda).toMatchObject({ name: 'clouda', mode: 'sdk', lastResult: 'partial', runs: 2 });
    const [a, b] = clouda.accounts;
    expect(a).toMatchObject({ account: A, lastError: null, calls: 3 });
    expect(a.events).toBeGreaterThan(0);
    expect(b).toMatchObject({
      account: B,
      lastError: `sts:AssumeRole arn:aws:iam::${B}:role/pathgate-read: AccessDenied`,
      events: 0,
    });
    expect(b.lastSuccessAt).not.toBe(b.lastRunAt);
    const metrics = (await service.apiApp.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('service_connector_runs_total{connector="clouda",result="ok"} 1');
    expect(metrics).toContain('service_connector_runs_total{connector="clouda",result="partial"} 1');

    // The role works again: B's removed instance goes with its next snapshot.
    source.failing.clear();
    await service.connectors.tick();
    await service.settle();
    expect(nodeNames(service)).not.toContain(`${B}/i-0ed351953eb1132ef`);
    expect(service.connectors.status().connectors[0].accounts[1].lastError).toBeNull();
  });

  it('twin: every account failing publishes nothing and retracts nothing (result error)', async () => {
    const { source, service } = await setUp();
    await service.connectors.tick();
    await service.settle();
    const before = edgeLines(service.engine.tenant('default')!.graph).sort();
    source.failing.add(A).add(B);
    await service.connectors.tick();
    await service.settle();
    expect(edgeLines(service.engine.tenant('default')!.graph).sort()).toEqual(before);
    expect(service.connectors.status().connectors[0].lastResult).toBe('error');
  });

  it("an account whose report the pipeline refuses (an empty snapshot) is that account's error", async () => {
    const { dir, service } = await setUp();
    await writeFile(path.join(dir, A, 'iam-get-account-authorization-details.json'), '{}');
    await service.connectors.tick();
    const [a, b] = service.connectors.status().connectors[0].accounts;
    expect(a.lastError).toMatch(/^iam aws:111122223333\/us-east-1: /);
    expect(a.reports).toBe(1); // the cloudnet snapshot went through
    expect(b.lastError).toBeNull();
  });
});

describe('scheduling', () => {
  it('skips a tick while the previous pull still runs, and counts it', async () => {
    const { source, service } = await setUp();
    let release!: () => void;
    source.gate = new Promise((resolve) => (release = resolve));
    const first = service.connectors.tick();
    await service.connectors.tick(); // the first pull is still waiting for AWS
    await service.connectors.tick();
    expect(source.pulls).toBe(1);
    const health = service.connectors.status().connectors[0];
    expect(health).toMatchObject({ running: true, skipped: 2, runs: 0 });
    release();
    await first;
    expect(service.connectors.status().connectors[0]).toMatchObject({ running: false, runs: 1, skipped: 2 });
    const metrics = (await service.apiApp.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('service_connector_runs_total{connector="clouda",result="skipped"} 2');
    // Twin: once it ended, the next tick pulls.
    source.gate = undefined;
    await service.connectors.tick();
    expect(source.pulls).toBe(2);
  });

  it('stop() aborts a running pull and waits for it; nothing is published', async () => {
    const { source, service } = await setUp();
    source.gate = new Promise(() => undefined); // AWS never answers
    const run = service.connectors.tick();
    await service.connectors.stop();
    await run;
    const health = service.connectors.status().connectors[0];
    expect(health).toMatchObject({ running: false, lastResult: 'error' });
    expect(health.lastError).toMatch(/shutting down/);
    expect(service.engine.tenant('default')?.graph.order ?? 0).toBe(0);
    // Stopped for good: a later tick does nothing.
    await service.connectors.tick();
    expect(source.pulls).toBe(1);
  });

  it('a pull that yields no account is an error, not a success', async () => {
    const empty: ConnectorSource = {
      name: 'cloudb',
      mode: 'fixtures',
      pull: async () => ({ accounts: [], failures: [] }),
    };
    const service = await makeService({}, { connectorSources: [empty] });
    services.push(service);
    await service.connectors.tick();
    expect(service.connectors.status().connectors[0]).toMatchObject({
      lastResult: 'error',
      lastError: 'the pull yielded no account',
      lastSuccessAt: null,
    });
  });

  it('a follower does not pull', async () => {
    const dir = await tempDir('pathgate-connectors-');
    dirs.push(dir);
    await cp(DEMO, dir, { recursive: true });
    const source = new TwoAccountSource(dir);
    const service = await makeService({}, { connectorSources: [source] });
    services.push(service);
    // The engine's leadership answered by a lock someone else holds.
    (service.engine as { isLeader: () => boolean }).isLeader = () => false;
    await service.connectors.tick();
    expect(source.pulls).toBe(0);
    const answer = (await service.apiApp.inject({ method: 'GET', url: '/connectors' })).json();
    expect(answer.leader).toBe(false);
    expect(answer.connectors[0]).toMatchObject({ runs: 0, lastRunAt: null });
    expect(answer.connectors[0].nextRunAt).toEqual(expect.any(String));
  });
});

describe('connector settings', () => {
  it('refuses CLOUDB_CONNECTOR_MODE=sdk, as the spec says', () => {
    expect(startupRefusal({ CLOUDB_CONNECTOR_MODE: 'sdk' })).toMatch(
      /CLOUDB_CONNECTOR_MODE="sdk" is refused: the cloudb connector has no live mode/,
    );
    expect(startupRefusal({ CLOUDB_CONNECTOR_MODE: 'fixtures' })).toBe('started');
  });

  it.each([
    [
      { CONNECTORS_ENABLED: 'clouda,cloudc' },
      /CONNECTORS_ENABLED="clouda,cloudc" names "cloudc", not a connector/,
    ],
    [{ CONNECTOR_INTERVAL: 'hourly' }, /CONNECTOR_INTERVAL="hourly" is not a duration/],
    [{ CONNECTOR_INTERVAL: '500ms' }, /CONNECTOR_INTERVAL="500ms" must be at least 1s/],
    [{ CLOUDA_CONNECTOR_MODE: 'live' }, /CLOUDA_CONNECTOR_MODE="live" is not one of fixtures, sdk/],
    [{ CLOUDA_REGION: 'mars-1' }, /CLOUDA_REGION="mars-1" is not an AWS region name/],
    [
      { CLOUDA_ROLE_ARN: 'arn:aws:iam::111122223333:role/ok,arn:aws:iam::1:role/short' },
      /CLOUDA_ROLE_ARN=.* holds "arn:aws:iam::1:role\/short", not a role ARN/,
    ],
    [
      { CLOUDA_FIXTURES_DIR: '/nonexistent/pathgate' },
      /CLOUDA_FIXTURES_DIR="\/nonexistent\/pathgate" cannot be read \(ENOENT\)/,
    ],
    [
      { CONNECTORS_ENABLED: 'clouda', CLOUDA_CONNECTOR_MODE: 'fixtures' },
      /clouda in fixtures mode .* but CLOUDA_FIXTURES_DIR is unset/,
    ],
    [{ CONNECTORS_ENABLED: 'cloudb' }, /names cloudb but CLOUDB_FIXTURES_DIR is unset/],
  ])('refuses %j naming the value', (env, message) => {
    expect(startupRefusal(env)).toMatch(message);
  });

  it('takes good values', () => {
    expect(
      startupRefusal({
        CONNECTORS_ENABLED: 'clouda, cloudb',
        CONNECTOR_INTERVAL: '5m',
        CLOUDA_CONNECTOR_MODE: 'fixtures',
        CLOUDA_REGION: 'eu-central-1',
        CLOUDA_FIXTURES_DIR: DEMO,
        CLOUDB_FIXTURES_DIR: path.join(DEMO, '..', 'cloudb'),
        CLOUDA_ROLE_ARN: `arn:aws:iam::${A}:role/pathgate-read,arn:aws:iam::${B}:role/org/pathgate-read`,
      }),
    ).toBe('started');
  });
});
