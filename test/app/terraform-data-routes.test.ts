// Internet-to-data routes a Terraform change opens, end to end through the service: the plan posted to
// /ingest/terraform as it is, the crown jewel marked by its own tags, by a data-classification record, or by
// a Cloud Custodian report of the same database (each through its own source; the joins are the writer's,
// by name). A bucket policy letting anyone read a crown-jewel bucket is an attack path (direct access);
// confined to a VPC endpoint it is none; at the gate, a pull request adding such a policy to a crown-jewel
// bucket Custodian reports is blocked, and one confined to the organization is clean. A publicly accessible
// crown-jewel database is a CRITICAL violation whichever report says so (the plan's Database is custodian's
// node), and a plan that makes it private again closes it; at the gate, a plan that exposes one blocks.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestGate } from '../../app/gate-client.js';
import { reconcile } from '../../app/github/pull-request.js';
import { custodianBody } from '../helpers/placebo.js';
import { recordingForge } from '../helpers/recording-forge.js';
import { makeService, type TestService } from '../helpers/service.js';
import { ACCOUNT, res } from '../helpers/terraform-plan.js';

const real = async (name: string) =>
  readFile(new URL(`../../fixtures/unseen/terraform/${name}`, import.meta.url), 'utf8');
const plan = (resources: unknown[]) => ({
  format_version: '1.2',
  terraform_version: '1.9.8',
  planned_values: { root_module: { resources } },
  resource_changes: [],
});
const PATHS = '{ attackPaths { directAccess priority nodes { name label } } }';
const VIOLATIONS = '{ violations { invariant severity node { name label } } }';

let service: TestService;
beforeEach(async () => {
  service = await makeService();
});
afterEach(async () => {
  await service.dispose();
});

const post = async (body: unknown, source: string, query?: string) => {
  const response = await service.ingest(body, { source, query });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
};
const paths = async () => (await service.graphql(PATHS)).attackPaths as any[];
const violations = async () => (await service.graphql(VIOLATIONS)).violations as any[];

describe('Terraform plans opening data to the internet', () => {
  it('a bucket policy open to anyone, on a crown-jewel bucket: a direct-access attack path; confined: none', async () => {
    const bucket = (name: string) =>
      res(`aws_s3_bucket.${name}`, { bucket: name, tags: { classification: 'pii' } });
    const policy = (name: string, condition?: Record<string, unknown>) =>
      res(`aws_s3_bucket_policy.${name}`, {
        bucket: name,
        policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${name}/*`,
              ...(condition && { Condition: condition }),
            },
          ],
        }),
      });
    await post(
      plan([
        bucket('exports'),
        policy('exports'),
        bucket('partner-drop'),
        policy('partner-drop', { StringEquals: { 'aws:SourceVpce': 'vpce-1a2b3c4d' } }),
      ]),
      'terraform',
      `account=${ACCOUNT}`,
    );
    await service.settle();
    expect(await paths()).toEqual([
      { directAccess: true, priority: 'P1', nodes: [{ name: `${ACCOUNT}/exports`, label: 'Bucket' }] },
    ]);
  });

  it('at the gate: a policy opening a crown-jewel bucket Custodian reports is blocked; confined to the org, clean', async () => {
    await post(
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.s3',
          resources: [{ Name: 'exports', Tags: [{ Key: 'classification', Value: 'pii' }] }],
        },
      ]),
      'custodian',
    );
    await service.settle();
    const apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
    const gate = (condition?: Record<string, unknown>) =>
      requestGate({
        apiUrl,
        report: JSON.stringify(
          plan([
            res('aws_s3_bucket_policy.exports', {
              bucket: 'exports',
              policy: JSON.stringify({
                Statement: [
                  {
                    Effect: 'Allow',
                    Principal: { AWS: '*' },
                    Action: ['s3:GetObject', 's3:ListBucket'],
                    Resource: ['arn:aws:s3:::exports', 'arn:aws:s3:::exports/*'],
                    ...(condition && { Condition: condition }),
                  },
                ],
              }),
            }),
          ]),
        ),
        query: {
          slug: 'acme/infra',
          pr: '7',
          sha: '7c0ffee1234567890abcdef1234567890abcdef1',
          account: ACCOUNT,
        },
      }) as Promise<any>;
    const open = await gate();
    expect(open.verdict).toBe('blocked');
    expect(open.opened.map((p: any) => p.nodes.map((n: any) => n.name))).toEqual([[`${ACCOUNT}/exports`]]);
    expect((await gate({ StringEquals: { 'aws:PrincipalOrgID': 'o-abc123' } })).verdict).toBe('clean');
  });

  it("terraform-compliance's plan as it is, a classification record naming one bucket: that bucket's path only", async () => {
    await post(await real('terraform-compliance-test_issue-174-plan.out.json'), 'terraform');
    // Its twin: a bucket whose policy names no principal, classified too, opens nothing.
    await post(await real('terraform-compliance-test_issue-255-plan.out.json'), 'terraform');
    await post(
      {
        source: 'macie',
        records: [
          { asset: 'my_test_bucket_noncompliant', label: 'Bucket', kind: 'pii' },
          { asset: 'my_tf_test_bucket', label: 'Bucket', kind: 'pii' },
        ],
      },
      'dataclass',
    );
    await service.settle();
    expect((await paths()).map((p) => p.nodes.map((n: any) => n.name))).toEqual([
      ['my_test_bucket_noncompliant'],
    ]);
  });

  it('a publicly accessible database: the plan and a Custodian report meet on one node; a private plan closes it', async () => {
    // TerraGoat's plan as it is, in the account its names carry; Custodian reports the same instance, tagged.
    const account = '123456789123';
    const identifier = 'rds-123456789123-acme-corp';
    await post(await real('checkov-terragoat-tfplan.json'), 'terraform', `account=${account}`);
    await post(
      custodianBody(account, [
        {
          resource: 'aws.rds',
          resources: [
            {
              DBInstanceIdentifier: identifier,
              PubliclyAccessible: true,
              Engine: 'mysql',
              TagList: [{ Key: 'classification', Value: 'pii' }],
            },
          ],
        },
      ]),
      'custodian',
    );
    await service.settle();
    const databases: string[] = [];
    service.engine.tenant('default')!.graph.forEachNode((_id, a) => {
      if (a.label === 'Database') databases.push(a.name);
    });
    expect(databases).toEqual([`${account}/${identifier}`]);
    expect(await violations()).toContainEqual({
      invariant: 'no-internet-exposed-sensitive-asset',
      severity: 'CRITICAL',
      node: { name: `${account}/${identifier}`, label: 'Database' },
    });
    // The next plan makes it private: the exposure is stated closed, and the violation is gone.
    await post(
      plan([res('aws_db_instance.default', { identifier, engine: 'mysql', publicly_accessible: false })]),
      'terraform',
      `account=${account}`,
    );
    await service.settle();
    expect((await violations()).filter((v) => v.node.label === 'Database')).toEqual([]);
  });

  it('at the gate: a plan that makes a crown-jewel database publicly accessible blocks; private stays clean; closing it is said', async () => {
    const identifier = 'customers';
    const custodian = (publiclyAccessible: boolean) =>
      custodianBody(ACCOUNT, [
        {
          resource: 'aws.rds',
          resources: [
            {
              DBInstanceIdentifier: identifier,
              PubliclyAccessible: publiclyAccessible,
              Engine: 'postgres',
              TagList: [{ Key: 'classification', Value: 'pii' }],
            },
          ],
        },
      ]);
    await post(custodian(false), 'custodian');
    await service.settle();
    const apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
    const gate = (publiclyAccessible: boolean) =>
      requestGate({
        apiUrl,
        report: JSON.stringify(
          plan([
            res('aws_db_instance.customers', {
              identifier,
              engine: 'postgres',
              publicly_accessible: publiclyAccessible,
            }),
          ]),
        ),
        query: {
          slug: 'acme/infra',
          pr: '9',
          sha: '9c0ffee1234567890abcdef1234567890abcdef1',
          account: ACCOUNT,
        },
      }) as Promise<any>;
    const opened = await gate(true);
    expect(opened.verdict, opened.reason).toBe('blocked');
    // No hop to price: the database itself is on the internet, so no route is listed, only the exposure.
    expect([...opened.opened, ...opened.worsened]).toEqual([]);
    expect(opened.exposed).toEqual([
      expect.objectContaining({
        invariant: 'no-internet-exposed-sensitive-asset',
        severity: 'CRITICAL',
        node: expect.objectContaining({ name: `${ACCOUNT}/${identifier}`, label: 'Database' }),
        origin: { terraform: ['aws_db_instance.customers'] },
      }),
    ]);
    expect(opened.reason).toMatch(/^1 crown jewel exposed to the internet: Database \d+\/customers; /);
    // The app turns the pull request's status red, naming the database.
    const forge = recordingForge();
    const target = { repo: { owner: 'acme', repo: 'infra' }, number: 9, sha: opened.commit };
    expect((await reconcile(forge, target, opened)).status).toBe('failure');
    expect(forge.statuses[0].description).toBe(
      `1 crown jewel exposed to the internet: ${ACCOUNT}/${identifier}`,
    );
    // And comments on it: the exposure, where the plan declares it, what to do.
    expect(forge.comments).toEqual([
      expect.stringMatching(
        new RegExp(
          `^<!-- pathgate:path=exposed-[0-9a-f]{16} -->\n### ⛔ Crown jewel exposed to the internet: \`${ACCOUNT}/${identifier}\`\n`,
        ),
      ),
      expect.stringMatching(/^<!-- pathgate:summary -->\n## ⛔ pathgate blocked/),
    ]);
    expect(forge.comments[0]).toContain('**Where**: `aws_db_instance.customers`');
    // The commit's verdict counts it.
    const { prVerdict } = await service.graphql(
      `{ prVerdict(sha: "${opened.commit}") { verdict exposed opened } }`,
    );
    expect(prVerdict).toEqual({ verdict: 'blocked', exposed: 1, opened: 0 });
    // Twin: the plan keeps it private.
    const kept = await gate(false);
    expect(kept.verdict, kept.reason).toBe('clean');
    expect(kept.exposed).toBeUndefined();
    // The estate exposes it today; a plan that makes it private is clean and says what it closes.
    await post(custodian(true), 'custodian');
    await service.settle();
    const closed = await gate(false);
    expect(closed.verdict).toBe('clean');
    expect(closed.unexposed.map((v: any) => v.node.name)).toEqual([`${ACCOUNT}/${identifier}`]);
    expect(closed.reason).toContain('no longer exposed to the internet');
    // A plan that leaves it as public as it is brings nothing new.
    expect((await gate(true)).verdict).toBe('clean');
  });
});
