// A report declared complete that yields nothing the source recognises (`{}`, `[]`, an unknown key,
// another tool's real report, an empty list) would retract its whole scope: every source refuses it with
// a 400 naming what it reads, and the graph stays as it was (DECISIONS.md "Empty snapshots are refused").
// The negative twins: a real complete snapshot still retracts what it omits, and a partial report that
// yields nothing is accepted with a warning.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSources, EXPECTS } from '../../src/ingest/sources/index.js';
import { ndjsonToArray } from '../../src/ingest/yaml.js';
import { edge, envelope, node } from '../helpers/envelope.js';
import { REAL, readReal } from '../helpers/normalize.js';
import { custodianBody, placebo } from '../helpers/placebo.js';
import { makeService, type TestService } from '../helpers/service.js';

const trivyReport = readReal('trivy/alpine-310-registry.json');
const grypeReport = JSON.parse(
  readFileSync(
    new URL('../../fixtures/unseen/grype/defectdojo-many_vulns_with_epss_values.json', import.meta.url),
    'utf8',
  ),
) as unknown;
const codeqlLog = JSON.parse(
  readFileSync(
    new URL('../../fixtures/unseen/sarif/defectdojo-codeQL-output.sarif', import.meta.url),
    'utf8',
  ),
) as unknown;
const k8sDump = readReal('k8s/popeye-combined-list.json') as { items: Record<string, any>[] };
const iamDocument = readReal('iam/cloudsplaining-test-example-authz-details.json');
const semgrepReport = readReal('semgrep/defectdojo-issue_8435.json');
const sbom = readReal('sbom/trivy-centos-7.cdx.json');
const falcoAlerts = ndjsonToArray(
  readFileSync(path.join(REAL, 'falco', 'falco-website-syscall-alerts.ndjson'), 'utf8'),
);
const igw = placebo('awsnet/ec2_igw_subnet');
const cloudnetBody = {
  instances: igw['ec2.DescribeInstances_1'],
  subnets: igw['ec2.DescribeSubnets_1'],
  route_tables: igw['ec2.DescribeRouteTables_1'],
};
const buckets = placebo('custodian/test_s3_grants')['s3.ListBuckets_1'].Buckets as unknown[];

interface Case {
  source: string;
  /** The query that makes a report complete (self-declared sources: the one that names their scope). */
  query: string;
  /** A real complete report of that scope, sent first so that there is something to lose. */
  real: unknown;
  /** Another tool's real report, which this source does not read. */
  foreign: unknown;
}

const lb = node('LoadBalancer', 'edge-lb', { internet_exposed: true });
const api = node('Service', 'orders-api');
const cases: Case[] = [
  {
    source: 'events',
    query: 'snapshot=aws:111122223333/us-east-1',
    real: envelope([lb, api], [edge('ROUTES_TO', lb, api, 0.9)]),
    foreign: trivyReport,
  },
  { source: 'trivy', query: '', real: trivyReport, foreign: k8sDump },
  { source: 'grype', query: '', real: grypeReport, foreign: trivyReport },
  { source: 'semgrep', query: 'repo=acme/shop', real: semgrepReport, foreign: trivyReport },
  { source: 'sarif', query: 'repo=acme/shop', real: codeqlLog, foreign: trivyReport },
  {
    source: 'build',
    query: 'snapshot=aws:111122223333/us-east-1',
    real: { image: 'alpine:3.10', repository: 'acme/shop' },
    foreign: semgrepReport,
  },
  {
    source: 'supplychain',
    query: 'snapshot=aws:111122223333/us-east-1&image=registry.example/centos:7',
    real: sbom,
    foreign: iamDocument,
  },
  {
    source: 'custodian',
    query: 'snapshot=aws:111122223333/us-east-1&account=111122223333',
    real: custodianBody('111122223333', [{ resource: 'aws.s3', resources: buckets }]),
    foreign: cloudnetBody,
  },
  {
    source: 'cloudnet',
    query: 'snapshot=aws:644160558196/eu-west-1&account=644160558196',
    real: cloudnetBody,
    foreign: trivyReport,
  },
  { source: 'iam', query: 'snapshot=aws:222233334444/global', real: iamDocument, foreign: k8sDump },
  { source: 'k8s', query: 'snapshot=cluster:shop', real: k8sDump, foreign: iamDocument },
  { source: 'falco', query: 'snapshot=cluster:shop', real: falcoAlerts, foreign: cloudnetBody },
  {
    source: 'sso',
    query: 'snapshot=okta:acme/global',
    real: {
      provider: 'okta',
      users: [{ email: 'ana@acme.example', mfa: false, groups: ['ops'], federated_roles: [] }],
    },
    foreign: k8sDump,
  },
  {
    source: 'terraform',
    query: 'snapshot=aws:111122223333/us-east-1&account=111122223333',
    real: JSON.parse(
      readFileSync(
        new URL('../../fixtures/terraform/open-batch-worker-ssh.plan.json', import.meta.url),
        'utf8',
      ),
    ),
    foreign: trivyReport,
  },
  {
    source: 'dataclass',
    query: 'snapshot=aws:111122223333/us-east-1',
    real: { source: 'macie', records: [{ asset: 'orders-db', label: 'Database', kind: 'pii' }] },
    foreign: falcoAlerts,
  },
];

/** Bodies no source may take as a complete snapshot, beyond the case's foreign report. */
const junk: [string, unknown][] = [
  ['{}', {}],
  ['[]', []],
  ['{"junk":1}', { junk: 1 }],
  ['an error object from a failing collector', { error: { code: 'AccessDenied', message: 'denied' } }],
];

let service: TestService;
const counts = async () =>
  (await service.graphql('{ status { graph { nodes edges pendingEdges } } }')).status.graph as {
    nodes: number;
    edges: number;
    pendingEdges: number;
  };

beforeAll(async () => {
  service = await makeService();
  for (const c of cases) {
    const response = await service.ingest(c.real, { source: c.source, query: c.query });
    expect(response.status, `${c.source}: ${JSON.stringify(response.json)}`).toBe(202);
    expect(response.json.nodes + response.json.edges, c.source).toBeGreaterThan(0);
  }
  await service.settle();
});
afterAll(async () => {
  await service.dispose();
});

describe('a complete snapshot that yields nothing', () => {
  it.each(cases)('is refused by $source, and the graph keeps everything', async (c) => {
    const before = await counts();
    expect(before.nodes).toBeGreaterThan(0);
    for (const [what, body] of [...junk, ['another tool’s real report', c.foreign] as [string, unknown]]) {
      const response = await service.ingest(body, { source: c.source, query: c.query });
      expect(response.status, `${c.source} with ${what}: ${JSON.stringify(response.json)}`).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(['urn:pathgate:problem:invalid-payload', 'urn:pathgate:problem:empty-snapshot']).toContain(
        response.json.type,
      );
    }
    await service.settle();
    expect(await counts()).toEqual(before);
  });

  it('names the scope and what the source reads, and retracts nothing (cloudnet, the reported case)', async () => {
    const graph = service.engine.tenant('default')!.graph;
    const before = await counts();
    const inAccount = () =>
      graph.filterNodes((_, a) => a.label === 'VirtualMachine' && String(a.name).startsWith('644160558196/'));
    const held = inAccount();
    expect(held.length).toBeGreaterThan(0);
    for (const body of [{ junk: 1 }, {}, trivyReport, { SecurityGroups: [] }]) {
      const response = await service.ingest(body, {
        source: 'cloudnet',
        query: 'account=644160558196&snapshot=aws:644160558196/eu-west-1',
      });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({
        type: 'urn:pathgate:problem:empty-snapshot',
        status: 400,
        scope: 'aws:644160558196/eu-west-1',
        expected: EXPECTS.cloudnet,
        errors: [{ pointer: '/' }],
      });
      expect(response.json.detail).toContain('aws:644160558196/eu-west-1');
      expect(response.json.detail).toContain('snapshot=none');
      expect(response.json.detail).toContain(EXPECTS.cloudnet);
    }
    await service.settle();
    expect(await counts()).toEqual(before);
    expect(inAccount()).toEqual(held);
  });

  it('refuses an empty cluster: a List without items, or one of kinds the source does not read', async () => {
    const before = await counts();
    for (const body of [
      [],
      { apiVersion: 'v1', kind: 'List', items: [] },
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }],
      },
    ]) {
      const response = await service.ingest(body, { source: 'k8s', query: 'snapshot=cluster:shop' });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({
        type: 'urn:pathgate:problem:empty-snapshot',
        scope: 'cluster:shop',
        expected: EXPECTS.k8s,
      });
    }
    // An envelope with no node and no edge, sent complete, is refused the same way.
    const response = await service.ingest(envelope([], []), {
      source: 'events',
      query: 'snapshot=aws:111122223333/us-east-1',
    });
    expect(response.json).toMatchObject({ status: 400, type: 'urn:pathgate:problem:empty-snapshot' });
    await service.settle();
    expect(await counts()).toEqual(before);
  });

  it('names what every source reads', () => {
    const sources = createSources();
    expect(cases.map((c) => c.source).sort()).toEqual([...sources.keys()].sort());
    for (const [name, source] of sources) expect(source.expects, name).toBe(EXPECTS[name]);
  });
});

describe('negative twins', () => {
  it('a real complete snapshot still retracts what it omits', async () => {
    const graph = service.engine.tenant('default')!.graph;
    // Found by name: the cluster may qualify it (`shop/default/ingress/ing6`).
    const ingress = (name: string) =>
      graph.someNode((_, a) => a.label === 'LoadBalancer' && a.name.endsWith(`default/ingress/${name}`));
    expect(ingress('ing6')).toBe(true);
    expect(ingress('ing5')).toBe(true);
    const smaller = {
      ...k8sDump,
      items: k8sDump.items.filter((o) => !(o.kind === 'Ingress' && o.metadata.name === 'ing6')),
    };
    expect(smaller.items).toHaveLength(k8sDump.items.length - 1);
    const response = await service.ingest(smaller, { source: 'k8s', query: 'snapshot=cluster:shop' });
    expect(response.status).toBe(202);
    await service.settle();
    expect(ingress('ing6')).toBe(false);
    expect(ingress('ing5')).toBe(true);
  });

  it('a partial report that yields nothing is accepted with a warning, and retracts nothing', async () => {
    const before = await counts();
    const response = await service.ingest(
      { junk: 1 },
      { source: 'cloudnet', query: 'account=644160558196&snapshot=none' },
    );
    expect(response.status).toBe(202);
    expect(response.json).toMatchObject({ nodes: 0, edges: 0 });
    expect(response.json.warnings).toEqual([
      `the report yielded no node and no edge; expected ${EXPECTS.cloudnet}`,
    ]);
    await service.settle();
    expect(await counts()).toEqual(before);
  });
});
