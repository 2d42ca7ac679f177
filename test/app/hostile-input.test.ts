// Hostile bodies on the listening service (issue 13): nesting deep enough to overflow a recursive walk on
// every ingest route and /gate/impact, YAML that expands (billion laughs, alias chains) or is too large,
// malformed JSON, a 5 MB value echoed back, prototype keys, out-of-range CVSS and EPSS scores, and a
// journal that cannot write (disk full). Each answer is a problem+json naming the culprit, and nothing
// reaches the journal or the graph.
import { readFileSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { envelope, node } from '../helpers/envelope.js';
import { makeService, type TestService } from '../helpers/service.js';

const REAL = path.resolve(import.meta.dirname, '../../../shared/fixtures/real');

let service: TestService;
let ingestUrl: string;
let apiUrl: string;

beforeAll(async () => {
  service = await makeService({ YAML_MAX_BYTES: '64KiB' });
  ingestUrl = await service.ingestApp.listen({ host: '127.0.0.1', port: 0 });
  apiUrl = await service.apiApp.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await service.dispose();
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface Answer {
  status: number;
  type: string | null;
  headers: Headers;
  text: string;
  json: any;
}

async function post(url: string, body: string, contentType = 'application/json'): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    headers: response.headers,
    text,
    json: text.startsWith('{') ? JSON.parse(text) : undefined,
  };
}

const ingest = (source: string, body: string, contentType?: string, query = '') =>
  post(`${ingestUrl}/ingest/${source}${query}`, body, contentType);

/** Bytes journaled so far: a refused report must not add any. */
async function journalBytes(): Promise<number> {
  const dir = path.join(service.dataDir, 'journal');
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(path.join(dir, name))).size;
  return total;
}

async function expectRefused(answer: Answer, code: string, status = 400) {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(answer.type).toMatch(/^application\/problem\+json/);
  expect(answer.json.type).toBe(`urn:pathgate:problem:${code}`);
}

const deepObject = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const vm = (properties: string) =>
  `{"source":"hostile","kind":"asset","observed_at":"2026-11-01T00:00:00Z","nodes":[{"label":"VirtualMachine","name":"vm-1","properties":${properties}}],"edges":[]}`;
/** `/a/a/…` as deep as the limit allows, and one level more */
const pointerOfA = (levels: number) => '/a'.repeat(levels);

describe('deep nesting: one bound at body-parse time, on every route (item 9)', () => {
  it('refuses properties nested 5,000 objects deep on /ingest/events, naming the pointer, storing nothing', async () => {
    const before = await journalBytes();
    const answer = await ingest('events', vm(deepObject(5_000)));
    await expectRefused(answer, 'nesting-too-deep');
    // The envelope is 3 levels (root, nodes, node), properties the 4th: /a repeats 125 times to reach 129.
    const pointer = `/nodes/0/properties${pointerOfA(125)}`;
    expect(answer.json.errors).toEqual([{ pointer, detail: expect.stringContaining('128 levels') }]);
    expect(answer.json.detail).toContain(pointer);
    expect(answer.json.maxDepth).toBe(128);
    expect(await journalBytes()).toBe(before);
    expect(service.engine.tenant('default')).toBeUndefined();
  });

  it('refuses 100,000 nested arrays on /ingest/events', async () => {
    const answer = await ingest('events', vm(`{"x":${deepArray(100_000)}}`));
    await expectRefused(answer, 'nesting-too-deep');
    expect(answer.json.errors[0].pointer).toMatch(/^\/nodes\/0\/properties\/x(\/0){124}$/);
  });

  it('takes a body exactly at the limit: 128 levels', async () => {
    // root(1) nodes(2) node(3) properties(4) + 124 more objects = 128
    const answer = await ingest('events', vm(deepObject(124)));
    expect(answer.status, answer.text).toBe(202);
  });

  it.each([
    ['iam', deepObject(5_000)],
    ['falco', deepObject(5_000)],
    ['falco', deepArray(100_000)],
    ['k8s', deepObject(5_000)],
    ['cloudnet', deepObject(5_000)],
    ['trivy', deepArray(100_000)],
  ])('answers problem+json, not fastify’s default body, on /ingest/%s', async (source, body) => {
    const answer = await ingest(source, body);
    await expectRefused(answer, 'nesting-too-deep');
    expect(answer.json.errors[0].pointer).toMatch(/^(\/a){128}$|^(\/0){128}$/);
  });

  it('names the NDJSON line and its index on /ingest/falco', async () => {
    const alert = readFileSync(path.join(REAL, 'falco/falco-website-syscall-alerts.ndjson'), 'utf8').split(
      '\n',
    )[0];
    const answer = await ingest('falco', `${alert}\n${deepObject(3_000)}\n`, 'application/x-ndjson');
    await expectRefused(answer, 'nesting-too-deep');
    expect(answer.json.detail).toMatch(/^line 2: \/1(\/a){128}:/);
    expect(answer.json.errors[0].pointer).toBe(`/1${pointerOfA(128)}`);
  });

  it('refuses deep YAML on /ingest/k8s before composing it, naming document, line and column', async () => {
    const flow = await ingest('k8s', `kind: List\nitems: ${deepArray(5_000)}\n`, 'application/yaml');
    await expectRefused(flow, 'nesting-too-deep');
    expect(flow.json.detail).toMatch(
      /document 1, line 2, column \d+: mappings and sequences nest deeper than 128/,
    );
    let block = '';
    for (let i = 0; i < 300; i++) block += `${' '.repeat(i)}k:\n`;
    const indented = await ingest('k8s', `---\nkind: List\n---\n${block}`, 'application/yaml');
    await expectRefused(indented, 'nesting-too-deep');
    expect(indented.json.detail).toMatch(/document 2, line \d+, column \d+/);
  });

  it('refuses deep bodies on /gate/impact too, before any normalizer or overlay', async () => {
    const answer = await post(`${apiUrl}/gate/impact?source=events`, vm(deepObject(5_000)));
    await expectRefused(answer, 'nesting-too-deep');
    expect(answer.json.errors[0].pointer).toBe(`/nodes/0/properties${pointerOfA(125)}`);
  });
});

describe('YAML that expands (billion laughs, alias chains) or is too large', () => {
  const laughs = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefghi'.split('').map((k, i) => {
      const prev = 'abcdefghi'[i];
      return `${k}: &${k} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  ].join('\n');

  it('refuses a billion-laughs document with 400 too-many-aliases', async () => {
    const answer = await ingest('k8s', laughs, 'application/yaml');
    await expectRefused(answer, 'too-many-aliases');
    expect(answer.json.maxAliasCount).toBe(100);
    expect(answer.json.detail).toMatch(/^document 1: /);
  });

  it('refuses a 2,000-deep alias chain with 400', async () => {
    let chain = 'a0: &a0 [x]\n';
    for (let i = 1; i < 2_000; i++) chain += `a${i}: &a${i} [*a${i - 1}]\n`;
    const answer = await ingest('k8s', chain, 'application/yaml');
    await expectRefused(answer, 'too-many-aliases');
  });

  it('takes a document that uses a few aliases', async () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: {name: shop, labels: &labels {team: payments}, annotations: *labels}',
    ].join('\n');
    const answer = await ingest('k8s', yaml, 'application/yaml');
    expect(answer.status, answer.text).toBe(202);
  });

  it('refuses YAML over YAML_MAX_BYTES with 413 naming the limit, and takes the same report as JSON', async () => {
    const items = Array.from({ length: 1_000 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `team-${i}`, labels: { owner: `owner-${i}`, tier: 'backend' } },
    }));
    const yaml = items
      .map(
        (o) =>
          `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${o.metadata.name}\n  labels: {owner: ${o.metadata.labels.owner}, tier: backend}\n`,
      )
      .join('---\n');
    expect(yaml.length).toBeGreaterThan(64 * 1024);
    const answer = await ingest('k8s', yaml, 'application/yaml');
    await expectRefused(answer, 'payload-too-large', 413);
    expect(answer.json).toMatchObject({ limit: 64 * 1024, size: yaml.length });
    expect(answer.json.detail).toContain('YAML_MAX_BYTES');
    // Sent chunked, without a declared length: counted as it is read.
    const streamed = await fetch(`${ingestUrl}/ingest/k8s`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: new Blob([yaml]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ limit: 64 * 1024, size: yaml.length });
    const json = await ingest('k8s', JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    expect(json.status, json.text).toBe(202);
  });
});

describe('the error contract (item 12)', () => {
  it('names the line, column and offset of a JSON syntax error', async () => {
    const answer = await ingest('events', '{"source": "t",\n "kind": x}');
    await expectRefused(answer, 'malformed-json');
    expect(answer.json).toMatchObject({ line: 2, column: 10, offset: 25 });
    expect(answer.json.detail).toBe(
      'request body is not valid JSON: line 2, column 10 (offset 25): expected a value, found "x"',
    );
    const cut = await ingest('events', '{"source": "t", ');
    expect(cut.json.detail).toContain('line 1, column 17 (offset 16): expected a property name');
    const ndjson = await ingest('falco', '{"rule":"x"}\n{"rule": }\n', 'application/x-ndjson');
    await expectRefused(ndjson, 'malformed-json');
    expect(ndjson.json).toMatchObject({ line: 2, column: 10, offset: 22 });
  });

  it('caps a 5 MB node name echoed in the 400 at 200 characters, with its length', async () => {
    const name = 'x'.repeat(5_000_000);
    const answer = await ingest(
      'events',
      JSON.stringify(envelope([{ label: 'VirtualMachine', name } as never])),
    );
    await expectRefused(answer, 'invalid-payload');
    expect(answer.text.length).toBeLessThan(4_000);
    const echoed = answer.json.errors.find((e: { pointer: string }) => e.pointer === '/nodes/0/name');
    expect(echoed.value).toBe(`${'x'.repeat(200)}… (5000000 characters)`);
  });

  it('caps an echoed object too: the deep body iam used to answer with fastify’s own body', async () => {
    // A report that is an object of 50,000 keys is named by value in the source's 400.
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const answer = await ingest(
      'iam',
      JSON.stringify({ UserDetailList: wide }),
      'application/json',
      '?snapshot=none',
    );
    await expectRefused(answer, 'invalid-payload');
    expect(answer.text.length).toBeLessThan(4_000);
  });

  it('refuses keys that reach a prototype, on JSON, NDJSON and YAML, and pollutes nothing', async () => {
    const json = await ingest('events', vm('{"__proto__":{"polluted":true}}'));
    await expectRefused(json, 'invalid-payload');
    expect(json.json.errors[0].pointer).toBe('/nodes/0/properties/__proto__');
    const constructor = await ingest('events', vm('{"constructor":{"prototype":{"polluted":true}}}'));
    await expectRefused(constructor, 'invalid-payload');
    const ndjson = await ingest(
      'falco',
      '{"rule":"a","__proto__":{"polluted":true}}',
      'application/x-ndjson',
    );
    await expectRefused(ndjson, 'invalid-payload');
    const yaml = await ingest('k8s', 'kind: Pod\n__proto__: {polluted: true}\n', 'application/yaml');
    await expectRefused(yaml, 'invalid-payload');
    expect(yaml.json.errors[0].pointer).toBe('/items/0/__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a disk-full journal with 503, Retry-After and problem+json, then takes the retry', async () => {
    const probe = await open(path.join(service.dataDir, 'probe'), 'w');
    await probe.close();
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    vi.spyOn(Object.getPrototypeOf(probe), 'writev').mockRejectedValueOnce(full);
    const body = JSON.stringify(envelope([node('VirtualMachine', 'disk-full-vm')]));
    const answer = await ingest('events', body);
    await expectRefused(answer, 'unavailable', 503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.text).not.toContain('ENOSPC');
    expect((await ingest('events', body)).status).toBe(202);
  });
});

describe('CVSS and EPSS scores out of range are refused with the pointer (item 12)', () => {
  it('on an envelope’s CVE node, and the same node in range is taken', async () => {
    const cvss = await ingest(
      'events',
      JSON.stringify(envelope([node('CVE', 'CVE-2026-0001', { cvss_score: 42 })])),
    );
    await expectRefused(cvss, 'invalid-payload');
    expect(cvss.json.errors).toEqual([
      expect.objectContaining({ pointer: '/nodes/0/properties/cvss_score', value: 42 }),
    ]);
    const negative = await ingest(
      'events',
      JSON.stringify(envelope([node('CVE', 'CVE-2026-0001', { cvss_score: -1 })])),
    );
    await expectRefused(negative, 'invalid-payload');
    const text = await ingest(
      'events',
      JSON.stringify(envelope([node('CVE', 'CVE-2026-0001', { cvss_score: '9.8' })])),
    );
    await expectRefused(text, 'invalid-payload');
    const epss = await ingest(
      'events',
      JSON.stringify(envelope([node('CVE', 'CVE-2026-0001', { epss: 1.5 })])),
    );
    await expectRefused(epss, 'invalid-payload');
    expect(epss.json.errors[0].pointer).toBe('/nodes/0/properties/epss');
    const fine = await ingest(
      'events',
      JSON.stringify(envelope([node('CVE', 'CVE-2026-0001', { cvss_score: 9.8, epss: 0.97 })])),
    );
    expect(fine.status, fine.text).toBe(202);
  });

  it('in a real Trivy report with one score made 11', async () => {
    const report = JSON.parse(readFileSync(path.join(REAL, 'trivy/alpine-310-registry.json'), 'utf8'));
    expect((await ingest('trivy', JSON.stringify(report))).status).toBe(202);
    const results = report.Results as {
      Vulnerabilities?: { CVSS?: Record<string, { V3Score?: number }> }[];
    }[];
    const r = results.findIndex((x) => x.Vulnerabilities?.some((v) => v.CVSS?.nvd?.V3Score));
    const v = results[r].Vulnerabilities!.findIndex((x) => x.CVSS?.nvd?.V3Score);
    results[r].Vulnerabilities![v].CVSS!.nvd.V3Score = 11;
    const answer = await ingest('trivy', JSON.stringify(report));
    await expectRefused(answer, 'invalid-payload');
    expect(answer.json.errors[0].pointer).toBe(`/Results/${r}/Vulnerabilities/${v}/CVSS/nvd/V3Score`);
  });

  it('in a real CycloneDX SBOM with one CVSS rating made 12; other rating methods keep their scales', async () => {
    const sbom = JSON.parse(
      readFileSync(
        path.join(REAL, 'sbom/trivy-fluentd-multiple-lockfiles-short-with-vulns.cdx.json'),
        'utf8',
      ),
    );
    const vulnerabilities = sbom.vulnerabilities as { ratings?: { score?: number; method?: string }[] }[];
    const v = vulnerabilities.findIndex((x) => x.ratings?.some((r) => r.method?.startsWith('CVSSv')));
    const r = vulnerabilities[v].ratings!.findIndex((x) => x.method?.startsWith('CVSSv'));
    vulnerabilities[v].ratings![r].score = 12;
    const answer = await ingest(
      'supplychain',
      JSON.stringify(sbom),
      'application/json',
      '?image=ghcr.io/acme/fluentd:1.0',
    );
    await expectRefused(answer, 'invalid-payload');
    expect(answer.json.errors[0].pointer).toBe(`/vulnerabilities/${v}/ratings/${r}/score`);
    vulnerabilities[v].ratings![r] = { score: 25, method: 'other' };
    const other = await ingest(
      'supplychain',
      JSON.stringify(sbom),
      'application/json',
      '?image=ghcr.io/acme/fluentd:1.0',
    );
    expect(other.status, other.text.slice(0, 300)).toBe(202);
  });
});

describe('terraform: null and wrong types answer 400 naming the pointer (issue 31 item 7)', () => {
  const terragoat = () =>
    JSON.parse(
      readFileSync(
        path.resolve(import.meta.dirname, '../../fixtures/unseen/terraform/checkov-terragoat-tfplan.json'),
        'utf8',
      ),
    );
  const resources = (plan: any) => plan.planned_values.root_module.resources as any[];
  const groupAt = (plan: any) => resources(plan).findIndex((r) => Array.isArray(r.values?.ingress));

  it('the real terragoat plan as it is is taken (the cases below change one value each)', async () => {
    const answer = await ingest('terraform', JSON.stringify(terragoat()));
    expect(answer.status, answer.text.slice(0, 300)).toBe(202);
  });

  const cases: [string, (plan: any) => string][] = [
    [
      'a null resource in planned_values',
      (plan) => {
        resources(plan)[3] = null;
        return '/planned_values/root_module/resources/3';
      },
    ],
    [
      "a null rule in a security group's ingress",
      (plan) => {
        const at = groupAt(plan);
        resources(plan)[at].values.ingress[0] = null;
        return `/planned_values/root_module/resources/${at}/values/ingress/0`;
      },
    ],
    [
      "a security group's ingress that is a string",
      (plan) => {
        const at = groupAt(plan);
        resources(plan)[at].values.ingress = 'everything';
        return `/planned_values/root_module/resources/${at}/values/ingress`;
      },
    ],
    [
      "an ingress rule's security_groups that is a number",
      (plan) => {
        const at = groupAt(plan);
        resources(plan)[at].values.ingress[1].security_groups = 7;
        return `/planned_values/root_module/resources/${at}/values/ingress/1/security_groups`;
      },
    ],
    [
      'resources that are an object',
      (plan) => {
        plan.planned_values.root_module.resources = { a: 1 };
        return '/planned_values/root_module/resources';
      },
    ],
    [
      'a null resource change',
      (plan) => {
        plan.resource_changes[0] = null;
        return '/resource_changes/0';
      },
    ],
    [
      "a resource change's actions that are a number",
      (plan) => {
        plan.resource_changes[2].change.actions = 1;
        return '/resource_changes/2/change/actions';
      },
    ],
    [
      "a resource's values that are a list",
      (plan) => {
        resources(plan)[5].values = [1];
        return '/planned_values/root_module/resources/5/values';
      },
    ],
    [
      'a null resource in the configuration',
      (plan) => {
        plan.configuration.root_module.resources[1] = null;
        return '/configuration/root_module/resources/1';
      },
    ],
  ];
  for (const [name, spoil] of cases)
    it(`${name}: 400 naming the pointer, nothing journaled`, async () => {
      const plan = terragoat();
      const pointer = spoil(plan);
      const before = await journalBytes();
      const answer = await ingest('terraform', JSON.stringify(plan));
      await expectRefused(answer, 'invalid-payload');
      expect(answer.json.errors[0].pointer).toBe(pointer);
      expect(answer.json.detail).toContain(pointer);
      expect(await journalBytes()).toBe(before);
    });
});
