// Issue 37's "done when", end to end: a service started as the tests start it, with
// CONNECTORS_ENABLED=clouda CLOUDA_CONNECTOR_MODE=sdk and the AWS SDK pointed at the loopback AWS through
// AWS_ENDPOINT_URL, pulls the estate on its tick with no report pushed and yields the route from the load
// balancer to the administrator role and the public bucket's direct-access path; the bucket deleted in AWS
// is retracted at the next pull; an account whose role stops working keeps its assets and shows its
// error in GET /connectors while the other account updates.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pointSdkAt } from '../helpers/aws/env.js';
import { pathNames } from '../helpers/aws/publish.js';
import { A, B, CALLER_KEY, roleArn, sampleEstate } from '../helpers/aws/sample-estate.js';
import { AwsStandIn } from '../helpers/aws/server.js';
import { makeService, type TestService } from '../helpers/service.js';

let aws: AwsStandIn;
let restore: () => void;
let service: TestService | undefined;
const KEYS = { AWS_ACCESS_KEY_ID: CALLER_KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: CALLER_KEY.secretAccessKey };

beforeAll(() => {
  restore = pointSdkAt('http://127.0.0.1:1');
  Object.assign(process.env, KEYS); // the SDK's default credential chain reads them, as in production
});
afterAll(() => {
  restore();
  for (const k of Object.keys(KEYS)) delete process.env[k];
});
beforeEach(async () => {
  aws = new AwsStandIn(sampleEstate());
  await aws.start();
  process.env.AWS_ENDPOINT_URL = aws.url;
  service = await makeService({
    CONNECTORS_ENABLED: 'clouda',
    CLOUDA_CONNECTOR_MODE: 'sdk',
    CLOUDA_REGION: 'us-east-1',
    CLOUDA_ROLE_ARN: `${roleArn(A)},${roleArn(B)}`,
  });
});
afterEach(async () => {
  await service?.dispose();
  service = undefined;
  await aws.stop();
});

const ROUTE = [`${A}/web-alb`, `${A}/app-1`, `${A}/app-role`];

async function connectorHealth(s: TestService) {
  const answer = await s.apiApp.inject({ method: 'GET', url: '/connectors' });
  expect(answer.statusCode).toBe(200);
  return answer.json().connectors.find((c: { name: string }) => c.name === 'clouda');
}

describe('CONNECTORS_ENABLED=clouda CLOUDA_CONNECTOR_MODE=sdk against the loopback AWS', () => {
  it('pulls the estate with no report pushed, and retracts a deleted bucket at the next pull', async () => {
    const s = service!;
    expect(s.engine.tenant('default')?.graph.order ?? 0).toBe(0);
    await s.connectors.tick();
    await s.settle();
    const paths = await pathNames(s);
    expect(paths).toContainEqual(ROUTE);
    expect(paths).toContainEqual([`${A}/customer-exports`]);
    const health = await connectorHealth(s);
    expect(health).toMatchObject({ mode: 'sdk', lastResult: 'ok', lastError: null });
    expect(health.accounts.map((a: any) => [a.account, a.lastError, a.reports])).toEqual([
      [A, null, 3],
      [B, null, 2],
    ]);
    expect(health.accounts[0].calls).toBeGreaterThan(20);
    // Only reads reached AWS.
    expect(aws.actions().every((a) => /^[a-z0-9]+:(Describe|List|Get)|^sts:AssumeRole$/.test(a))).toBe(true);

    const estate = aws.estate.accounts[A];
    estate.buckets = estate.buckets!.filter((b) => b.Name !== 'customer-exports');
    await s.connectors.tick();
    await s.settle();
    const after = await pathNames(s);
    expect(after).not.toContainEqual([`${A}/customer-exports`]);
    expect(after).toContainEqual(ROUTE);
  });

  it('an account whose role fails keeps its assets and shows its error; the other account updates', async () => {
    const s = service!;
    await s.connectors.tick();
    await s.settle();
    expect(await pathNames(s)).toContainEqual([`${B}/bastion`, `${B}/bastion-role`]);

    aws.estate.assumable = [roleArn(A)]; // B's trust no longer admits the collector
    aws.estate.accounts[B].reservations = []; // what a successful pull of B would retract
    const estate = aws.estate.accounts[A];
    estate.buckets = estate.buckets!.filter((b) => b.Name !== 'customer-exports');
    await s.connectors.tick();
    await s.settle();

    const paths = await pathNames(s);
    expect(paths).toContainEqual([`${B}/bastion`, `${B}/bastion-role`]); // kept
    expect(paths).not.toContainEqual([`${A}/customer-exports`]); // A updated
    const health = await connectorHealth(s);
    expect(health.lastResult).toBe('partial');
    const b = health.accounts.find((a: any) => a.account === B);
    expect(b.lastError).toBe(
      `sts:AssumeRole: AccessDenied: User: arn:aws:iam::${A}:user/pathgate-collector is not authorized to perform: sts:AssumeRole on resource: ${roleArn(B)}`,
    );
    expect(JSON.stringify(health)).not.toContain(CALLER_KEY.secretAccessKey);
    expect(health.accounts.find((a: any) => a.account === A).lastError).toBeNull();
  });
});
